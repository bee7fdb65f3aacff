package scn

import (
	"context"
	"fmt"

	"github.com/scn2d/scn/internal/lsq"
)

// localCalibFolds is the number of folds (fewer when a class has fewer
// images, at least 2) whose out-of-fold outputs a local fit's calibration
// map (or conformal intervals) is fitted on: every training image's
// outputs under the output weights solved on the other folds, from the one
// fit's Gram sums (no refit). On natural-images, maps fitted on four
// folds' out-of-fold outputs (about 4420) scored a held-out log-loss of
// 0.2200 on the fifth against 0.2291 for maps fitted on 553 of them (the
// size of a 10% hold-out; docs/calibration.md).
const localCalibFolds = 5

// heldRows returns the engine's pooled outputs on the images idx and
// their targets (lsq.Gram.HeldRows); kept for the budgets' ridge
// choice (budget_local_ridge.go).
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
	k := localCalibFolds
	if p.Classes != nil {
		// As many folds as the smallest class has images (at least 2).
		count := make([]int, p.M)
		for _, y := range ArgMax(p.T, p.M) {
			count[y]++
		}
		for _, c := range count {
			if c > 0 {
				k = min(k, max(c, 2))
			}
		}
	}
	folds, err := splitFolds(p, k, seed)
	if err != nil {
		return nil, fmt.Errorf("scn: out-of-fold outputs for the calibration: %w", err)
	}
	eng, mo := lf.eng, p.M
	l := eng.L
	// With augmentation the sums are the augmented engine's (every image
	// and its copies): a fold's copies leave them with the fold.
	g0, ht0 := lf.solver().NormalDense(l)
	copies := func(idx []int, f func(rows int, h, th []float64)) error { return lf.heldCopies(idx, p.T, f) }
	work := make([]float64, l*l)
	var y, t []float64
	for _, idx := range folds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		yf, err := eng.HeldOutputs(p.T, mo, g0, ht0, work, idx, r, copies)
		if err != nil {
			return nil, err
		}
		y = append(y, yf...)
		for _, i := range idx {
			t = append(t, p.T[i*mo:(i+1)*mo]...)
		}
	}
	return s.attachExtras(m, cal, y, t)
}
