package scn

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
// classification problems of at least localplan.GreyMinSide x localplan.GreyMinSide pixels
// Budget.Fit first compares the two on a sample: greyProbeImages images
// drawn from the seed, a stratified quarter of them held out; a local fit
// of greyProbeFilters filters (greyLocal: 2DRVFL, separable 5 x 5 filters,
// 3 x 3 average and max pooling, two-sided, ridge greyRidge) and the
// global plan's learner (budgetChoice) with localplan.GreyProbeNodes nodes, a few
// times the local fit's pooled outputs (a global node costs less: at 60 s
// on Fashion-MNIST the budget fits 7500 global nodes or 4608 pooled
// outputs). The one with the higher held-out accuracy is planned (ties go
// to global nodes): local nodes as a photo budget plans them
// (fitLocalPlan, the ridge chosen among greyRidges), global nodes as
// before. Both fits are deterministic for the seed; the probe's outcome is
// recorded in the plan (BudgetPlan.Probe), and Replay refits the model's
// configuration without probing again. The probe is skipped, and global
// nodes kept, when its modelled time exceeds localplan.GreyProbeShare of the time
// left.

// The grey probe's settings (internal/localplan's).
const (
	greyProbeImages  = localplan.GreyProbeImages
	greyProbeHeld    = localplan.GreyProbeHeld
	greyProbeFilters = localplan.GreyProbeFilters
	greyRidge        = localplan.GreyRidge
)

// greyRidges are the ridge terms a budget of local nodes on grey images
// chooses from, in the order they are scored (a clock that runs short
// cuts the grid after the first ones): 10 (measured on Fashion-MNIST at
// 128 and 192 filters, ahead of 100 by 0.2 to 0.45 points), then around
// it, a grid suited to the tens of thousands of images of such sets,
// where the photos' 100 to 1000 are too strong.
var greyRidges = []float64{greyRidge, 3, 30, 1, 100}

// budgetGrey reports whether a budget probes local against global nodes
// on p: grey classification problems that are not photos, of images of at
// least localplan.GreyMinSide pixels a side and at least localplan.GreyMinImages images.
func budgetGrey(p Problem) bool {
	return localplan.Grey(p.Classes != nil, p.X.Len(), p.X.Rows, p.X.Cols, p.X.Chans())
}

// greyLocal returns the local configuration a budget plans on grey
// images: scn train --model 2drvfl --local 5x5 --pooling avg+max --ridge 10
// with f filters (the preset's 2DRVFL, ReLU, scale 1, no whitening).
func greyLocal(seed uint64, f int) Config {
	c := Default(RVFL2D)
	c.Seed = seed
	l := localplan.GreyGeometry(f)
	c.Local = l
	c.Activation = ReLU
	c.Ridge = greyRidge
	c.Scales = []float64{1}
	c.FieldMin, c.FieldMax = 0, 0
	c.Differences, c.Standardize, c.Pairs = false, false, false
	c.MaxNodes = l.Outputs()
	return c
}

// greyWhat is the beginning of the plan's Why for local nodes on grey
// images.
func greyWhat(p Problem) string {
	return fmt.Sprintf("grey images (%d x %d), local nodes won the probe: 5 x 5 filters, average and max pooling", p.X.Rows, p.X.Cols)
}

// probeGrey runs the probe on p with the global plan's configuration
// global: it returns the local configuration to plan (its filters chosen
// later), the probe's record and whether local nodes won. With
// b.LocalRates set, its Chol is taken as the seconds per multiply-add of
// the probe's modelled work; otherwise a timed Cholesky factor's rate
// (timing.CholSeconds) times localplan.GreyProbeWorkPace.
func (b Budget) probeGrey(ctx context.Context, p Problem, global Config) (Config, string, bool, error) {
	n := min(p.X.Len(), greyProbeImages)
	local := greyLocal(b.Seed, greyProbeFilters)
	rate := 0.0
	if b.LocalRates != nil {
		rate = b.LocalRates.Chol
	} else {
		rate = timing.CholSeconds(1024) * localplan.GreyProbeWorkPace
	}
	need := localplan.GreyProbeWork(n, p.X.Rows, p.X.Cols) * rate
	if skip := localplan.GreyProbeSkip(need, (b.Duration - b.now().Sub(b.Start)).Seconds()); skip != "" {
		return Config{}, skip, false, nil
	}
	idx := rand.New(rand.NewPCG(b.Seed, 0x9e7)).Perm(p.X.Len())[:n]
	sort.Ints(idx)
	sub := p.subset(idx)
	train, held, err := splitHoldout(sub, greyProbeHeld, b.Seed)
	if err != nil {
		return Config{}, fmt.Sprintf("skipped, global nodes kept: %v", err), false, nil
	}
	tr, ho := sub.subset(train), sub.subset(held)
	gc := global
	gc.MaxNodes, gc.BlockSize = localplan.GreyGlobal(len(train), gc.BlockSize)
	accLocal, err := greyProbeFit(ctx, local, tr, ho)
	if err != nil {
		return Config{}, "", false, fmt.Errorf("%w: probe of local nodes: %v", ErrBudget, err)
	}
	accGlobal, err := greyProbeFit(ctx, gc, tr, ho)
	if err != nil {
		return Config{}, "", false, fmt.Errorf("%w: probe of global nodes: %v", ErrBudget, err)
	}
	rec, won := localplan.GreyProbe{
		Held: len(held), N: n, Train: len(train), Outputs: local.Local.Outputs(), Ridge: local.Ridge,
		Title: gc.Kind.Title(), Preset: gc.Preset, Nodes: gc.MaxNodes, AccLocal: accLocal, AccGlobal: accGlobal,
	}.Decide()
	return local, rec, won, nil
}

// greyProbeFit fits c on tr without model selection and returns its
// accuracy on ho.
func greyProbeFit(ctx context.Context, c Config, tr, ho Problem) (float64, error) {
	m, err := c.Fit(ctx, tr, nil)
	if err != nil {
		return 0, err
	}
	pred, err := m.Classify(ho.X)
	if err != nil {
		return 0, err
	}
	return Accuracy(pred, ArgMax(ho.T, ho.M)), nil
}

// greyGrow is how far past its plan a budget's local fit on grey images
// may grow, as a factor of the time left the plan was made for: the
// probe fits of a thousand images overstate the pace of a large fit (a 60
// s budget on Fashion-MNIST planned 48 filters and ended after 42 s), and
// the clock, checked after every block of filters, is what stops the fit
// (localplan.Plan.Stops, which leaves the time for the ridge choice's
// first localplan.GrowReserveTerms terms).
const greyGrow = 4
