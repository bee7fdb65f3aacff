package scn

import (
	"context"

	"github.com/scn2d/scn/internal/holdout"
	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/lsq"
)

// The ridge term of a budget on photos (issue 31, item 7: "the budget
// selects the ridge term along with L") and of a budget's local nodes on
// grey images: chosen on a held-out share of the training images, the
// dual way when L passes N, the primal way otherwise, and its cost, are
// internal/localnet's (ridge.go); the shares and grids are the budgets'.

// photoValidation is the share of the training images a photo budget holds
// out to choose the ridge term.
const photoValidation = 0.1

// photoRidges are the ridge terms a photo budget chooses from, in the
// order they are scored (a clock that runs short cuts the grid after the
// first ones): the presets' PhotoRidge (100, measured best at 128 filters
// on natural-images), then up to ten times it for the larger L a budget
// fits, then below it (on natural-images at 512 filters 10% held out gave
// 91.3, 92.0, 92.2 and 92.0% at 30, 100, 300 and 1000).
var photoRidges = []float64{100, 300, 1000, 30}

// moreRidges, when a ridge choice has scored its first i terms of the grid
// (i >= 1) after done multiply-adds, says whether the next term and the
// refit (next multiply-adds) go ahead (localnet.MoreRidges).
type moreRidges = localnet.MoreRidges

// ridgeChoice converts a ridge choice's held-out points to Scores.
func ridgeChoice(beta []float64, trainRMSE float64, curve []holdout.Point, best int, err error) ([]float64, float64, []Score, int, error) {
	if err != nil {
		return nil, 0, nil, 0, err
	}
	scores := make([]Score, len(curve))
	for i, p := range curve {
		scores[i] = Score(p)
	}
	return beta, trainRMSE, scores, best, nil
}

// photoRidge chooses the ridge term of the local fit lf among ridges on the
// images held (train being the rest), the dual way or the primal way,
// whichever costs less (localnet.ChooseRidge).
func photoRidge(ctx context.Context, lf *localFit, t []float64, train, held []int, ridges []float64, classify bool, more moreRidges) ([]float64, float64, []Score, int, error) {
	return ridgeChoice(localnet.ChooseRidge(ctx, lf.solver(), t, train, held, ridges, classify, more))
}

// greyRidgeChoice is photoRidge for a grey budget: the dual way when it
// costs less, otherwise the primal with the held-out images' products by
// rows (localnet.ChooseRidgeGrey).
func greyRidgeChoice(ctx context.Context, lf *localFit, t []float64, train, held []int, ridges []float64, classify bool, more moreRidges) ([]float64, float64, []Score, int, error) {
	return ridgeChoice(localnet.ChooseRidgeGrey(ctx, lf.solver(), t, train, held, ridges, classify, more))
}

// primalRidge is the ridge choice in the primal, from the fit's Gram sums
// (localnet.PrimalRidge).
func primalRidge(ctx context.Context, eng *lsq.Gram, t []float64, m int, held []int, ridges []float64, classify bool, more moreRidges) (beta []float64, trainRMSE float64, curve []Score, best int, err error) {
	return ridgeChoice(localnet.PrimalRidge(ctx, eng, t, m, held, ridges, classify, more))
}

// dualRidge is the ridge choice in the dual, from the pooled outputs eng
// holds (localnet.DualRidge).
func dualRidge(ctx context.Context, eng *lsq.Gram, t []float64, m int, train, held []int, ridges []float64, classify bool, more moreRidges) (beta []float64, trainRMSE float64, curve []Score, best int, err error) {
	return ridgeChoice(localnet.DualRidge(ctx, eng, t, m, train, held, ridges, classify, more))
}

// greyPrimalRidge is primalRidge with the held-out images' products
// formed from their pooled outputs held L x held (localnet.GreyPrimalRidge).
func greyPrimalRidge(ctx context.Context, eng *lsq.Gram, t []float64, m int, held []int, ridges []float64, classify bool, more moreRidges) (beta []float64, trainRMSE float64, curve []Score, best int, err error) {
	return ridgeChoice(localnet.GreyPrimalRidge(ctx, eng, t, m, held, ridges, classify, more))
}
