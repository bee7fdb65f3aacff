package budget

import (
	"math"
	"sort"
	"time"

	"github.com/scn2d/scn/internal/holdout"
	"github.com/scn2d/scn/internal/kind"
	"github.com/scn2d/scn/internal/timing"
)

// Rates are a machine's measured costs of a block fit's work, in seconds
// per unit; the time of a fit of L nodes on N images in blocks of b is
// modelled as
//
//	N L Score + N L^2/2 Gram + L^3/3 Chol + (L/b) Block
//
// (scoring every node on every image, the Gram products of the block
// engine, its Cholesky factor, and a fixed cost per block), and the finish
// after it, with H images held out and R ridge terms to choose from, as
//
//	H L Score + ((R+2) L^3/3 + H L^2/2) Finish
//
// (the held-out images' outputs; a factor per ridge term, the refit's
// factor and its held-out Gram products, all in float64).
type Rates struct {
	Score  float64 // seconds per image and node (drawing and scoring, all candidates)
	Gram   float64 // seconds per image and pair of nodes
	Chol   float64 // seconds per unit of L^3/3 (the fit's float64 factor)
	Block  float64 // seconds of fixed cost per block
	Finish float64 // seconds per unit of the finish's float64 work
}

// Valid reports whether r is usable: no rate negative, infinite or NaN,
// and scoring or Gram products costing something.
func (r Rates) Valid() bool {
	for _, v := range []float64{r.Score, r.Gram, r.Chol, r.Block, r.Finish} {
		if !(v >= 0) || math.IsInf(v, 0) {
			return false
		}
	}
	return r.Score > 0 || r.Gram > 0
}

// FitSeconds is the modelled time of a block fit of l nodes on n images.
func (r Rates) FitSeconds(n, l, block int) float64 {
	return timing.FitSeconds(n, l, block, r.Score, r.Gram, r.Chol, r.Block)
}

// FinishSeconds is the modelled time of what follows a fit of l nodes with
// model selection over ridges ridge terms on held images (see Rates).
func (r Rates) FinishSeconds(held, l, m, ridges, points int) float64 {
	return timing.FinishSeconds(held, l, m, ridges, points, r.Score, r.Finish)
}

// Measured returns the rates of a probe fit of l nodes on train images
// that took fit seconds, score of them drawing and scoring nodes (a path
// that does not split its time passes 0): the float64 factors' rates are
// timed on factors of their own sizes.
func Measured(fit, score float64, train, l int) Rates {
	var r Rates
	if score <= 0 || score > fit {
		score = fit / 2 // a path that does not split its time
	}
	r.Score = score / (float64(train) * float64(l))
	r.Gram = math.Max(fit-score, 0) / (float64(train) * float64(l) * float64(l) / 2)
	// The float64 factors: the fit's are grown by blocks, the finish's
	// are of thousands of nodes, where the blocked factor runs several
	// times faster than on the probe's few hundred (on two cores of a
	// Xeon, 12 GFLOP/s at 512, 48 at 2048, 75 at 4096): each is timed on
	// a Cholesky factor of its size. (The probe's own finish, timed at
	// L = 1000, overstated a finish at L = 6000 by a factor of two or more.)
	r.Chol = timing.CholSeconds(1024)
	r.Finish = timing.CholSeconds(2048)
	r.Block = 1e-3
	return r
}

// Plan is what a budget chose before fitting (scn.BudgetPlan).
type Plan struct {
	Kind       kind.Kind
	Preset     string        // the preset the settings came from
	Nodes      int           // the planned L
	MaxNodes   int           // the most the fit may grow to (running ahead)
	BlockSize  int           // nodes per block (and between checkpoints)
	Validation float64       // share of the training images held out
	Ridges     []float64     // ridge terms model selection chooses from
	Points     int           // prefix lengths model selection scores (besides the checkpoints)
	FitRidge   float64       // the ridge term of the fit's own solves
	Predicted  time.Duration // the planned fit and finish, from the rates
	Rates      Rates
	Why        string // why this learner
	// FitWeights: model selection chooses L among the checkpoints only
	// (scored at FitRidge while fitting), and the output weights are the
	// fit's own on the training part, not re-solved with the held-out
	// images (Points is then 0 and Ridges is FitRidge alone).
	FitWeights bool
	// Filters is the filters per size of a plan of local nodes on photos
	// (internal/budgetflow's FitLocal; 0: global nodes). Such a plan fits Nodes
	// pooled outputs of every image at FitRidge, then chooses the ridge
	// term among Ridges on a Validation share of them held out
	// (budgetflow.PhotoFit; Validation 0, as in files of earlier plans:
	// no choice), and its Rates.Score is the seconds per multiply-add of
	// its work model (Rates.Chol the factor's and the ridge choice's,
	// Rates.Block the fit's fixed seconds).
	Filters int
	// Probe says what the probe of a budget on grey images compared on
	// held-out images and what it chose, or why it was skipped
	// (internal/budgetflow's grey.go); "" when there was none (photos,
	// regression, small images).
	Probe string
}

// Growth bounds how far past its plan a fit running ahead may grow: the
// probe of a second or so on a few thousand images overstates the
// products of a large fit (MNIST: 2500 nodes planned, 9000 fitted in time),
// and the clock, checked after every block, is what stops the fit.
const Growth = 10

// Safety is the share of the remaining budget a plan may fill; the rest
// absorbs the rates' error and writing the model.
const Safety = 0.85

// RidgeSteps are the further ridge terms of a large set's budget, as
// multiples of the fit's (internal/selection's Evaluator.RidgeCheckpoints).
var RidgeSteps = []float64{10}

// FinishSeconds is the modelled time of the work after a fit of l nodes
// under the plan (held images held out, m outputs, images of d values):
// model selection and the re-solve, or with FitWeights only the output
// weights of the chosen prefix and writing the model.
func (pl Plan) FinishSeconds(held, l, m, d int) float64 {
	if pl.FitWeights {
		// The fit's factor's solves, the model file and the further
		// ridge terms (selection.Evaluator.RidgeCheckpoints).
		return timing.FitWeightsSeconds(l, m, d, len(timing.ExtraRidges(pl.Ridges, pl.FitRidge)), pl.BlockSize, pl.Rates.Finish)
	}
	return pl.Rates.FinishSeconds(held, l, m, len(pl.Ridges), pl.Points+holdout.MaxCheckpoints)
}

// Size chooses the plan's L (Nodes), the cap of a fit running ahead
// (MaxNodes) and the predicted time, for a training part of train images
// (held held out, m outputs, images of d values) and left seconds to
// fill: the largest multiple of the block whose fit and finish fit (at
// least one block), at most maxNodes/2, for the supervised learners at
// most the training images, and if memoryCap is not nil at most what it
// returns for extra bytes per L^2 at the end of the fit. pl's other
// fields (Kind, BlockSize, Ridges, FitRidge, Points, Rates, FitWeights)
// must be set.
func (pl *Plan) Size(left float64, train, held, m, d, maxNodes int, memoryCap func(extra int64) int) {
	r, block := pl.Rates, pl.BlockSize
	cost := func(l int) float64 {
		return r.FitSeconds(train, l, block) + pl.FinishSeconds(held, l, m, d)
	}
	// The largest multiple of the block that fits (at least one block).
	lmax := maxNodes / 2
	if pl.Kind.Choice == kind.Supervised {
		// Past N the supervised learners find no admissible candidate.
		lmax = min(lmax, max(block, train))
	}
	if memoryCap != nil {
		extra := int64(0)
		if pl.FitWeights && len(timing.ExtraRidges(pl.Ridges, pl.FitRidge)) > 0 {
			extra = 8
		}
		lmax = min(lmax, memoryCap(extra))
	}
	l := timing.MostNodes(block, lmax, left, cost)
	capL := min(lmax, Growth*l)
	capL = max(block, capL/block*block)
	pl.Nodes, pl.MaxNodes = l, capL
	pl.Predicted = time.Duration(cost(l) * float64(time.Second))
}

// MemoryCap returns the largest multiple of block, below maxNodes, whose
// fit fits (by the caller's memory estimate); block itself when not even
// that fits (the smallest plan: the caller's memory check refuses it if
// need be).
func MemoryCap(block, maxNodes int, fits func(l int) bool) int {
	if !fits(block) {
		return block
	}
	k := sort.Search(maxNodes/block, func(k int) bool { return !fits((k + 1) * block) })
	return max(1, k) * block
}

// Run is the fit under way for its clock (internal/timing): the plan's
// time model on train images with held held out (m outputs, images of d
// values), from start.
func (pl Plan) Run(train, held, m, d int, start time.Time) timing.Run {
	return timing.Run{
		Fit:    func(l int) float64 { return pl.Rates.FitSeconds(train, l, pl.BlockSize) },
		Finish: func(l int) float64 { return pl.FinishSeconds(held, l, m, d) },
		Block:  pl.BlockSize, MaxNodes: pl.MaxNodes, Safety: Safety, Start: start,
	}
}

// Checkpoint is the state of a budgeted fit after one block.
type Checkpoint struct {
	Nodes    int
	Elapsed  time.Duration // since the budget's start
	Accuracy float64       // held-out accuracy at FitRidge (classification)
	RMSE     float64       // held-out RMSE at FitRidge
}

// Record is a budgeted fit's plan and what happened, saved in the model
// file (scn.BudgetRecord, Model.Budget).
type Record struct {
	Budget      time.Duration
	Plan        Plan
	FitNodes    int           // nodes fitted (the prefix chosen is Model.Selection.Nodes)
	Stopped     string        // "budget" (stopped by the clock), "plan" (grew to MaxNodes) or the fit's own stop
	Elapsed     time.Duration // from the budget's start to the model's return
	Checkpoints []Checkpoint
}

// Probe is what the probe of a budget measured on one problem.
type Probe struct {
	Accuracy float64 // held-out accuracy of the probe's fit
	Held     int     // held-out images it was measured on
	Rates    Rates   // the machine's rates it measured
}
