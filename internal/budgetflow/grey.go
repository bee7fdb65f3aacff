package budgetflow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/scn2d/scn/internal/localplan"
	"github.com/scn2d/scn/internal/timing"
)

// A time budget on grey images that are not photos (issue 31: "the
// planner chooses local nodes ... when they win on its probe"). Local
// nodes with average and max pooling beside each other win on some grey
// sets and lose on others (docs/local.md: Fashion-MNIST 90.26% against the
// global budget's 88.90%, MNIST 98.66% against 99.02%), so on grey
// classification problems of at least localplan.GreyMinSide x
// localplan.GreyMinSide pixels Fit first compares the two on a sample:
// localplan.GreyProbeImages images drawn from the seed, a stratified
// quarter of them held out; a local fit of localplan.GreyProbeFilters
// filters (Job.Grey: 2DRVFL, separable 5 x 5 filters, 3 x 3 average and
// max pooling, two-sided, ridge localplan.GreyRidge) and the global plan's
// learner (Job.Global) with localplan.GreyProbeNodes nodes, a few times
// the local fit's pooled outputs (a global node costs less: at 60 s on
// Fashion-MNIST the budget fits 7500 global nodes or 4608 pooled
// outputs). The one with the higher held-out accuracy is planned (ties go
// to global nodes): local nodes as a photo budget plans them (FitLocal,
// the ridge chosen among GreyRidges), global nodes as before. Both fits
// are deterministic for the seed; the probe's outcome is recorded in the
// plan (budget.Plan.Probe), and scn.Replay refits the model's
// configuration without probing again. The probe is skipped, and global
// nodes kept, when its modelled time exceeds localplan.GreyProbeShare of
// the time left.

// GreyRidges are the ridge terms a budget of local nodes on grey images
// chooses from, in the order they are scored (a clock that runs short
// cuts the grid after the first ones): 10 (measured on Fashion-MNIST at
// 128 and 192 filters, ahead of 100 by 0.2 to 0.45 points), then around
// it, a grid suited to the tens of thousands of images of such sets,
// where the photos' 100 to 1000 are too strong.
var GreyRidges = []float64{localplan.GreyRidge, 3, 30, 1, 100}

// greyGrow is how far past its plan a budget's local fit on grey images
// may grow, as a factor of the time left the plan was made for: the
// probe fits of a thousand images overstate the pace of a large fit (a 60
// s budget on Fashion-MNIST planned 48 filters and ended after 42 s), and
// the clock, checked after every block of filters, is what stops the fit
// (localplan.Plan.Stops, which leaves the time for the ridge choice's
// first localplan.GrowReserveTerms terms).
const greyGrow = 4

// greyWhat is the beginning of the plan's Why for local nodes on grey
// images.
func greyWhat(s Shape) string {
	return fmt.Sprintf("grey images (%d x %d), local nodes won the probe: 5 x 5 filters, average and max pooling", s.Rows, s.Cols)
}

// probeGrey runs the probe with the global plan's configuration global:
// it returns the local configuration to plan (its filters chosen later),
// the probe's record and whether local nodes won. With b.LocalRates set,
// its Chol is taken as the seconds per multiply-add of the probe's
// modelled work; otherwise a timed Cholesky factor's rate
// (timing.CholSeconds) times localplan.GreyProbeWorkPace.
func probeGrey[C, M any](ctx context.Context, b Budget, j Job[C, M], global C) (C, string, bool, error) {
	var zero C
	s := j.Shape()
	n := min(s.N, localplan.GreyProbeImages)
	local := j.Grey(localplan.GreyProbeFilters)
	rate := 0.0
	if b.LocalRates != nil {
		rate = b.LocalRates.Chol
	} else {
		rate = timing.CholSeconds(1024) * localplan.GreyProbeWorkPace
	}
	need := localplan.GreyProbeWork(n, s.Rows, s.Cols) * rate
	if skip := localplan.GreyProbeSkip(need, (b.Duration - b.now().Sub(b.Start)).Seconds()); skip != "" {
		return zero, skip, false, nil
	}
	idx := rand.New(rand.NewPCG(b.Seed, 0x9e7)).Perm(s.N)[:n]
	sort.Ints(idx)
	train, held, err := j.Holdout(idx, localplan.GreyProbeHeld, b.Seed)
	if err != nil {
		return zero, fmt.Sprintf("skipped, global nodes kept: %v", err), false, nil
	}
	nodes, block := localplan.GreyGlobal(len(train), j.Info(global).BlockSize)
	gc := j.Sized(global, nodes, block)
	accLocal, err := j.Accuracy(ctx, local, idx, train, held)
	if err != nil {
		return zero, "", false, fmt.Errorf("%w: probe of local nodes: %v", ErrBudget, err)
	}
	accGlobal, err := j.Accuracy(ctx, gc, idx, train, held)
	if err != nil {
		return zero, "", false, fmt.Errorf("%w: probe of global nodes: %v", ErrBudget, err)
	}
	li, gi := j.Info(local), j.Info(gc)
	rec, won := localplan.GreyProbe{
		Held: len(held), N: n, Train: len(train), Outputs: li.Local.Outputs(), Ridge: li.Ridge,
		Title: gi.Kind.Title(), Preset: gi.Preset, Nodes: gi.MaxNodes, AccLocal: accLocal, AccGlobal: accGlobal,
	}.Decide()
	return local, rec, won, nil
}
