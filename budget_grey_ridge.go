package scn

import (
	"context"
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
)

// The ridge choice of a budget's local nodes on grey images (budget_grey.go).
// Grey sets are large (tens of thousands of images) and their budgets' L
// stays below N, so the choice goes the primal way (primalRidge), whose
// largest part is the held-out images' product H_h^T H_h (held x L^2
// multiply-adds: 1.3e11 at L = 4608 with 6000 images held out). primalRidge
// forms it with linalg.Dgemm on H_h transposed, which ran at a quarter of
// the Cholesky factor's rate on the 2-core machine (and took most of a
// minute of a 60 s budget on Fashion-MNIST at L = 4608); greyRidgeChoice
// forms it as
// linalg.GemmNT64 of H_h^T held row-wise (the dual choice's kernel, fixed
// chunks), otherwise as primalRidge. A photo budget keeps primalRidge, as
// do the grey plans of earlier files (their replays' bytes stay as they
// were): greyRidgeChoice is taken for a plan that records a probe and may
// grow (BudgetPlan.MaxNodes past Nodes).

// greyRidgeChoice is photoRidge for a grey budget: the dual way when it
// costs less, otherwise greyPrimalRidge.
func greyRidgeChoice(ctx context.Context, lf *localFit, t []float64, train, held []int, ridges []float64, classify bool, more moreRidges) ([]float64, float64, []Score, int, error) {
	eng := lf.solver()
	if photoDual(eng.N, len(held), eng.L, eng.M, len(ridges)) {
		return photoRidge(ctx, lf, t, train, held, ridges, classify, more)
	}
	return greyPrimalRidge(ctx, eng, t, eng.M, held, ridges, classify, more)
}

// greyPrimalRidge is primalRidge with the held-out images' products
// formed from their pooled outputs held L x held (GemmNT64).
func greyPrimalRidge(ctx context.Context, eng *lsq.Gram, t []float64, m int, held []int, ridges []float64, classify bool, more moreRidges) (beta []float64, trainRMSE float64, curve []Score, best int, err error) {
	l, nh := eng.L, len(held)
	if nh < 1 || nh >= eng.N || len(ridges) == 0 {
		return nil, 0, nil, 0, fmt.Errorf("scn: ridge choice: %d held-out images of %d, %d ridge terms", nh, eng.N, len(ridges))
	}
	ht, th := heldRows(eng, t, m, held, true) // L x nh
	g, hy := eng.NormalDense(l)
	linalg.GemmNT64(l, l, nh, -1, ht, nh, ht, nh, 1, g, l)
	linalg.Dgemm(false, false, l, m, nh, -1, ht, nh, th, m, 1, hy, m)
	a := make([]float64, l*l)
	y := make([]float64, nh*m)
	done, step, final := photoChoiceSteps(eng.N, nh, l, m, false)
	curve, best, err = ridgeCurve(ctx, ridges, more, done, step, final, l, th, m, classify, func(r float64) ([]float64, error) {
		copy(a, g)
		for i := 0; i < l; i++ {
			a[i*l+i] += r
		}
		b := append([]float64(nil), hy...)
		if err := lsq.SolveFlat(a, l, b, m, r); err != nil {
			return nil, err
		}
		linalg.Dgemm(true, false, nh, m, l, 1, ht, nh, b, m, 0, y, m)
		return y, nil
	})
	if err != nil {
		return nil, 0, nil, 0, err
	}
	a, g, ht = nil, nil, nil
	if beta, err = eng.Solve(l, curve[best].Ridge); err != nil {
		return nil, 0, nil, 0, err
	}
	res := make([]float64, eng.N*m)
	eng.Residual(l, beta, res)
	var ss float64
	for _, v := range res {
		ss += v * v
	}
	return beta, math.Sqrt(ss / float64(len(res))), curve, best, nil
}
