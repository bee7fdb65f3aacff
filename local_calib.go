package scn

import (
	"context"
	"fmt"

	"github.com/scn2d/scn/internal/linalg"
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

// localHeldOutputs returns the outputs (len(idx) x m) on the images idx of
// the ridge solution at r of the engine's l columns over every image but
// idx: G and H^T T of all the images (g0, ht0) minus the images' own sums
// (the lower triangle of H_idx^T H_idx, half the multiply-adds of the
// whole product). work (l x l) is overwritten.
//
// copies, unless nil, calls its function with the pooled outputs (rows x L,
// row-major) and targets of the augmented copies of the images idx, a chunk
// at a time (localFit.heldCopies): they leave the sums with their images.
func localHeldOutputs(eng *lsq.Gram, t []float64, m int, g0, ht0, work []float64, idx []int, r float64, copies func(idx []int, f func(rows int, h, th []float64)) error) ([]float64, error) {
	l := eng.L
	nh := len(idx)
	ht, th := heldRows(eng, t, m, idx, true) // H_idx^T: row j holds column j's outputs on idx
	clear(work)
	lsq.GramLower(l, nh, ht, nh, work)
	for i := 0; i < l; i++ {
		for j := 0; j <= i; j++ {
			work[i*l+j] = g0[i*l+j] - work[i*l+j]
		}
		work[i*l+i] += r
	}
	lsq.Symmetrize(work, l)
	beta := append([]float64(nil), ht0...)
	linalg.Dgemm(false, false, l, m, nh, -1, ht, nh, th, m, 1, beta, m)
	if copies != nil {
		if err := copies(idx, func(rows int, h, tc []float64) {
			linalg.Dgemm(true, false, l, l, rows, -1, h, l, h, l, 1, work, l)
			linalg.Dgemm(true, false, l, m, rows, -1, h, l, tc, m, 1, beta, m)
		}); err != nil {
			return nil, err
		}
	}
	if err := lsq.SolveFlat(work, l, beta, m, r); err != nil {
		return nil, fmt.Errorf("scn: ridge %g: %w", r, err)
	}
	y := make([]float64, nh*m)
	linalg.Dgemm(true, false, nh, m, l, 1, ht, nh, beta, m, 0, y, m)
	return y, nil
}

// heldRows returns the engine's pooled outputs on the images idx, as
// rows (len(idx) x L, row-major) or, transposed, as columns (L x
// len(idx)), and the images' targets (len(idx) x m) from t.
func heldRows(eng *lsq.Gram, t []float64, m int, idx []int, transposed bool) (h, th []float64) {
	l, nh := eng.L, len(idx)
	rs, cs := l, 1 // where image k's column j goes: k*rs + j*cs
	if transposed {
		rs, cs = 1, nh
	}
	h = make([]float64, l*nh)
	th = make([]float64, nh*m)
	for k, i := range idx {
		sh := eng.Shards[i/lsq.ShardRows]
		rows := sh.Hi - sh.Lo
		for j := 0; j < l; j++ {
			h[k*rs+j*cs] = float64(sh.H[j*rows+i-sh.Lo])
		}
		copy(th[k*m:(k+1)*m], t[i*m:(i+1)*m])
	}
	return h, th
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
		yf, err := localHeldOutputs(eng, p.T, mo, g0, ht0, work, idx, r, copies)
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
