package scn

import (
	"context"
	"fmt"

	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/selection"
)

// localCalibFolds is the number of folds whose out-of-fold outputs a
// local fit's calibration map (or conformal intervals) is fitted on
// (selection.LocalCalibFolds says why).
const localCalibFolds = selection.LocalCalibFolds

// heldRows returns the engine's pooled outputs on the images idx and
// their targets (lsq.Gram.HeldRows); kept for the budgets' ridge
// choice (localnet.ChooseRidge).
func heldRows(eng *lsq.Gram, t []float64, m int, idx []int, transposed bool) (h, th []float64) {
	return eng.HeldRows(t, m, idx, transposed)
}

// localExtras adds the selection's extras (a classifier's calibration map
// unless s.Uncalibrated, s.Coverage) to m, the model of a local fit whose
// state lf holds every image's pooled outputs, the output weights solved
// at ridge r: the map or intervals are fitted on the out-of-fold outputs of
// every image over localCalibFolds stratified folds (the filters and the
// pooled outputs' standardisation saw every image, as for the ridge
// choice; the output weights did not see the images they score).
func (s Selection) localExtras(ctx context.Context, m *Model, lf *localFit, p Problem, r float64, seed uint64) (*Model, error) {
	cal := s.calibrates(p)
	if !cal && s.Coverage == 0 {
		return m, nil
	}
	if err := s.checkExtrasProblem(p); err != nil {
		return nil, err
	}
	var labels []int
	if p.Classes != nil {
		labels = ArgMax(p.T, p.M)
	}
	folds, err := splitFolds(p, selection.LocalFolds(labels, p.M), seed)
	if err != nil {
		return nil, fmt.Errorf("scn: out-of-fold outputs for the calibration: %w", err)
	}
	copies := func(idx []int, f func(rows int, h, th []float64)) error { return lf.heldCopies(idx, p.T, f) }
	y, t, err := selection.OutOfFold(lf.eng, lf.solver(), p.T, p.M, folds, r, copies, ctx.Err)
	if err != nil {
		return nil, err
	}
	return s.attachExtras(m, cal, y, t)
}
