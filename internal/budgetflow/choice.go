package budgetflow

import (
	"fmt"

	"github.com/scn2d/scn/internal/budget"
)

// LargeSet is the training set size from which a budget takes the fast
// preset's RVFL rather than the default preset's 2DSCN.
const LargeSet = 5000

// Choose returns the model selection a budget fits a training set of n
// images with, and why (scn's budgetChoice, which takes the learner: the
// default preset's 2DSCN below LargeSet images, the fast preset's RVFL
// from it, whose ridge term is ridge): the measured Pareto front of this
// project (docs/performance.md) has the fast preset's RVFL ahead per
// second on tens of thousands of images, and the default preset's 2DSCN
// with model selection best on small sets (ORL: 96-98%). Ridges is nil
// (the default grid) on a small set; Staged is left to the caller.
func Choose(n int, ridge float64) Global {
	if n < LargeSet {
		why := fmt.Sprintf("%d training images (< %d): the default preset's 2DSCN with model selection, best on small sets", n, LargeSet)
		return Global{Validation: 0.2, Points: 20, Why: why}
	}
	why := fmt.Sprintf("%d training images: the fast preset's RVFL, the most accurate per second measured on large sets", n)
	// L is chosen among the checkpoints at the preset's ridge term, and
	// the fit's own weights are kept: scoring a ridge grid and re-solving
	// with the held-out images cost factors of L^3/3 at the end (27 s of
	// 60 at L = 7000 on MNIST), which buy more as nodes. The ridge term is
	// the preset's, measured on MNIST and Fashion-MNIST (docs/presets.md).
	// A few further ridge terms are scored at the end
	// (internal/selection's Evaluator.RidgeCheckpoints).
	ridges := []float64{ridge}
	for _, k := range budget.RidgeSteps {
		ridges = append(ridges, k*ridge)
	}
	return Global{Validation: 0.05, Ridges: ridges, FitWeights: true, Why: why}
}
