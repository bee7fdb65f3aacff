package scn

import (
	"context"

	"github.com/scn2d/scn/internal/holdout"
	"github.com/scn2d/scn/internal/localnet"
)

// The ridge term of a budget on photos (issue 31, item 7: "the budget
// selects the ridge term along with L") and of a budget's local nodes on
// grey images: chosen on a held-out share of the training images, the
// dual way when L passes N, the primal way otherwise, and its cost, are
// internal/localnet's (ridge.go); the shares and grids are the budgets'
// (internal/budgetflow's PhotoValidation, PhotoRidges, GreyRidges).

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
