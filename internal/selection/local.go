package selection

import (
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/holdout"
	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
)

// Model selection for local nodes (scn's selectLocal): one fit on all the
// images, then the ridge term chosen on a held-out share of them from the
// fit's Gram sums (G minus the held-out images' own H_h^T H_h, likewise
// H^T T), each ridge scored on the held-out pooled outputs; the final
// output weights are the ridge solution of every image at the chosen term.

// LocalSettings returns the ridge grid of a local model's selection
// (ridges, or defaults when nil), each term > 0 (the pooled outputs need
// one: an error names a term that is not; the root package wraps it in
// scn.ErrConfig), and the share of the images held out: validation, or
// 1/folds for folds > 1 (a 1/folds share held out once).
func LocalSettings(ridges, defaults []float64, validation float64, folds int) ([]float64, float64, error) {
	if ridges == nil {
		ridges = defaults
	}
	for _, r := range ridges {
		if !(r > 0) {
			return nil, 0, fmt.Errorf("ridge %v in the grid: local nodes need ridge terms > 0", r)
		}
	}
	share := validation
	if folds > 1 {
		share = 1 / float64(folds)
	}
	return ridges, share, nil
}

// Copies calls f with the pooled outputs (float64, rows x L row-major) and
// targets of the augmented copies of the images idx, if the fit has any.
type Copies func(idx []int, f func(rows int, h, th []float64)) error

// LocalRidges scores each ridge term of ridges on the held-out images held
// of a local fit: eng holds every image's pooled outputs (the engine's L
// of them), solver the normal equations the output weights are solved
// from (the augmented engine's with augmentation), t the targets (mo per
// image); the held-out images and their copies leave the sums before each
// ridge term is scored on their rows (holdout.RidgeScores).
func LocalRidges(eng, solver *lsq.Gram, t []float64, mo int, held []int, copies Copies, ridges []float64, classify bool, stop func() error) (curve []holdout.Point, best int, err error) {
	l := eng.L
	nh := len(held)
	// The held-out images' pooled outputs as the engine holds them (nh x l).
	hh, th := eng.HeldRows(t, mo, held, false)
	g, ht := solver.NormalDense(l)
	linalg.Dgemm(true, false, l, l, nh, -1, hh, l, hh, l, 1, g, l)
	linalg.Dgemm(true, false, l, mo, nh, -1, hh, l, th, mo, 1, ht, mo)
	// With augmentation the held-out images' copies leave the sums too.
	if err := copies(held, func(r int, h, t []float64) {
		linalg.Dgemm(true, false, l, l, r, -1, h, l, h, l, 1, g, l)
		linalg.Dgemm(true, false, l, mo, r, -1, h, l, t, mo, 1, ht, mo)
	}); err != nil {
		return nil, 0, err
	}
	// Each ridge term scored on the held-out rows (holdout.RidgeScores).
	return holdout.RidgeScores(g, ht, hh, th, l, mo, nh, ridges, classify, stop)
}

// LocalFinal returns the output weights of every pooled output of eng at
// ridge r, solved from solver's normal equations, and their training RMSE
// over the n images (mo outputs each).
func LocalFinal(eng, solver *lsq.Gram, n, mo int, r float64) (beta []float64, rmse float64, err error) {
	l := eng.L
	beta, err = solver.Solve(l, r)
	if err != nil {
		return nil, 0, err
	}
	res := make([]float64, n*mo)
	eng.Residual(l, beta, res)
	var ss float64
	for _, v := range res {
		ss += v * v
	}
	return beta, math.Sqrt(ss / float64(len(res))), nil
}

// LocalCalibFolds is the number of folds (fewer when a class has fewer
// images, at least 2) whose out-of-fold outputs a local fit's calibration
// map (or conformal intervals) is fitted on: every training image's
// outputs under the output weights solved on the other folds, from the one
// fit's Gram sums (no refit). On natural-images, maps fitted on four
// folds' out-of-fold outputs (about 4420) scored a held-out log-loss of
// 0.2200 on the fifth against 0.2291 for maps fitted on 553 of them (the
// size of a 10% hold-out; docs/calibration.md).
const LocalCalibFolds = 5

// LocalFolds returns the folds of a local fit's out-of-fold outputs for
// images of the given classes (nil for regression; m classes): as many as
// the smallest class has images, at least 2, at most LocalCalibFolds.
func LocalFolds(labels []int, m int) int {
	k := LocalCalibFolds
	if labels != nil {
		// As many folds as the smallest class has images (at least 2).
		count := make([]int, m)
		for _, y := range labels {
			count[y]++
		}
		for _, c := range count {
			if c > 0 {
				k = min(k, max(c, 2))
			}
		}
	}
	return k
}

// OutOfFold returns every image's outputs (fold by fold, in the folds'
// order) under the output weights at ridge r solved without its fold, from
// the one fit's sums (solver's, eng's pooled outputs; copies as for
// LocalRidges), and the targets in the same order.
func OutOfFold(eng, solver *lsq.Gram, t []float64, mo int, folds [][]int, r float64, copies Copies, stop func() error) (y, ty []float64, err error) {
	l := eng.L
	// With augmentation the sums are the augmented engine's (every image
	// and its copies): a fold's copies leave them with the fold.
	g0, ht0 := solver.NormalDense(l)
	work := make([]float64, l*l)
	for _, idx := range folds {
		if err := stop(); err != nil {
			return nil, nil, err
		}
		yf, err := eng.HeldOutputs(t, mo, g0, ht0, work, idx, r, copies)
		if err != nil {
			return nil, nil, err
		}
		y = append(y, yf...)
		for _, i := range idx {
			ty = append(ty, t[i*mo:(i+1)*mo]...)
		}
	}
	return y, ty, nil
}
