package scn

import (
	"context"

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
	return primalRidgeOf(ctx, eng, t, m, held, ridges, classify, more, true)
}
