package budgetflow

import (
	"context"
	"fmt"
	"time"

	"github.com/scn2d/scn/internal/budget"
	"github.com/scn2d/scn/internal/localplan"
	"github.com/scn2d/scn/internal/timing"
)

// A time budget on photos (issue 31, item 5): on classification problems
// whose images are photos (scn.PhotoImages: colour, or more than 40 x 40
// pixels) scn.Budget.Fit plans local nodes, the presets' photo choice
// (scn.Config.ForPhotos: 2DRVFL, separable 5 x 5 filters, 3 x 3 average
// pooling, two-sided, whitened), chooses the number of filters that fits
// the time left, and then the ridge term on held-out images (PhotoRidges,
// PhotoValidation; the choice itself internal/localnet's). The time of a
// fit of F filters on N images is modelled by localplan.Seconds: the
// filters over every position and the Gram sums of the pooled outputs at
// the seconds per multiply-add measured by two probe fits
// (localplan.RateProbeFilters and three times as many filters, on at most
// localplan.RateProbeImages of the images), and the Cholesky factor at the
// rate of a timed factor (timing.CholSeconds); the ridge choice's solves
// (localnet.ChoiceWork) at that rate too. Every image is fitted. The clock
// is checked after every block of filters (the fit stops when the next
// block would end past localplan.FitStop of the budget, and the model is
// the fit of the filters drawn so far), before the ridge choice and
// between its terms. When the classes are too small to hold images out,
// the ridge term is the presets' (scn.PhotoRidge) and nothing is held out.

// The ridge term of a budget on photos (issue 31, item 7: "the budget
// selects the ridge term along with L") and of a budget's local nodes on
// grey images is chosen on a held-out share of the training images (the
// dual way when L passes N, the primal way otherwise, and its cost, are
// internal/localnet's ridge.go; the shares and grids are these).

// PhotoValidation is the share of the training images a photo budget
// holds out to choose the ridge term.
const PhotoValidation = 0.1

// PhotoRidges are the ridge terms a photo budget chooses from, in the
// order they are scored (a clock that runs short cuts the grid after the
// first ones): the presets' PhotoRidge (100, measured best at 128 filters
// on natural-images), then up to ten times it for the larger L a budget
// fits, then below it (on natural-images at 512 filters 10% held out gave
// 91.3, 92.0, 92.2 and 92.0% at 30, 100, 300 and 1000).
var PhotoRidges = []float64{100, 300, 1000, 30}

// FitLocal is a budget's fit of local nodes on photos (or on grey images
// whose probe they won) with the local configuration cfg (its filters
// are planned), the ridge terms to choose from (the first is cfg's ridge
// term's place in the grid), what the plan's Why begins with, and the
// probe's record (budget.Plan.Probe; "" for none). With b.Rates set,
// b.Rates.Score is taken as the seconds per multiply-add of the filters
// and Gram sums, b.Rates.Chol as the seconds per unit of the factor's
// L^3 / 3 (and per multiply-add of the ridge choice) and b.Rates.Block as
// the fit's fixed seconds (no probe). With grow > 0 the fit may draw
// filters past the plan, up to what grow times the time left would allow
// (budget.Plan.MaxNodes), while the clock allows them and the ridge
// choice after them (localplan.Plan.Stops); grow 0 fits the plan's
// filters at most.
func FitLocal[C, M any](ctx context.Context, b Budget, j Job[C, M], cfg C, choices []float64, what, probed string, grow float64, plan func(budget.Plan)) (M, error) {
	var zero M
	s := j.Shape()
	n, rows, cols, chans := s.N, s.Rows, s.Cols, max(s.Chans, 1)
	full := Shape{N: n, Rows: rows, Cols: cols, Chans: chans, M: s.M}
	// fixed is the seconds of a fit's costs outside the work model (the
	// whitening's patches and eigenvectors, the passes' set-up): the first
	// probe's time less its work at the rate. (Left out, a 10 s budget on natural-images at
	// load 10 planned a fit of 2.9 s that took 6.1 s.)
	var rate, chol, fixed float64
	if b.Rates != nil {
		rate, chol, fixed = b.Rates.Score, b.Rates.Chol, b.Rates.Block
	} else {
		// The least of three timed factors: on a loaded machine one short
		// timing may catch another job's slice (natural-images at load 11:
		// a choice predicted at 25.4 s ran whole within a 32 s process);
		// the choice is paced by the clock anyway.
		chol = timing.CholSeconds(1024)
		for range 2 {
			chol = min(chol, timing.CholSeconds(1024))
		}
		// Two probe fits, of localplan.RateProbeFilters and three times as many
		// filters on the same images: the rate is the slope between them,
		// free of the fixed costs of a fit (on natural-images the one small
		// probe alone overstated a large fit's time ten times).
		idx := localplan.RateProbeSample(n)
		m := len(idx)
		fit := j.Sample(idx)
		var ts, cs [2]float64
		for i, f := range []int{localplan.RateProbeFilters, 3 * localplan.RateProbeFilters} {
			pc := j.Filters(cfg, f, true)
			t0 := b.now()
			if err := fit(ctx, pc); err != nil {
				return zero, fmt.Errorf("budget probe: %w", err)
			}
			ts[i], cs[i] = b.now().Sub(t0).Seconds(), localplan.Cost(j.Info(pc).Local, f, m, rows, cols, chans)
		}
		rate, fixed = localplan.ProbeRates(ts, cs)
	}
	if !localplan.Usable(rate, chol, fixed) {
		return zero, fmt.Errorf("%w: local nodes' rates %v and %v s per multiply-add are not usable", ErrBudget, rate, chol)
	}
	// The ridge term is chosen on held-out images unless the classes are
	// too small to hold any out.
	ridges, share := choices, PhotoValidation
	_, held, serr := j.Holdout(nil, share, b.Seed)
	if serr != nil {
		ridges, share, held = []float64{j.Info(cfg).Ridge}, 0, nil
	}
	left := (b.Duration - b.now().Sub(b.Start)).Seconds() * localplan.BudgetShare
	f := mostFilters(j, cfg, rate, chol, left-fixed, full, len(held), len(ridges), share > 0, b.MaxBytes)
	cfg = j.Filters(cfg, f, false)
	in := j.Info(cfg)
	l := in.MaxNodes
	most := f
	if grow > 0 {
		most = max(f, mostFilters(j, cfg, rate, chol, grow*(left-fixed), full, len(held), len(ridges), share > 0, b.MaxBytes))
	}
	lp := localplan.Plan{
		Local: in.Local, N: n, Rows: rows, Cols: cols, Chans: chans, M: s.M, Rate: rate, Chol: chol, Fixed: fixed,
		Held: len(held), Ridges: len(ridges), Choose: share > 0, Grow: most > f,
	}
	why, predicted := lp.Describe(what, f, l, most, in.Local.Sizes[0], in.Ridge)
	pl := budget.Plan{
		Kind: in.Kind, Preset: in.Preset, Nodes: l, MaxNodes: most * in.Local.PerFilter(), BlockSize: max(1, in.BlockSize), Validation: share,
		Ridges: append([]float64(nil), ridges...), FitRidge: in.Ridge, Predicted: time.Duration(predicted * float64(time.Second)),
		Rates: budget.Rates{Score: rate, Chol: chol, Block: fixed}, Filters: f,
		Why: why, Probe: probed,
	}
	if plan != nil {
		plan(pl)
	}
	if most > f {
		// In the plan's own geometry: its stop rules read the filters the
		// fit may draw.
		cfg = j.Filters(cfg, most, false)
	}
	// fitted is the filters the fit draws: all it may, unless the clock
	// stops a growing fit earlier.
	fitted := j.Info(cfg).Local.Filters
	// The ridge choice goes ahead if, at the pace the fit ran against its
	// model (if slower), its first term and the refit still fit in the time
	// left (localplan.Plan.ChoiceGoes; the further terms are checked one by
	// one, below).
	fitStart := b.now()
	var choiceStart time.Time
	proceedAt := func() bool {
		spent := b.now().Sub(fitStart).Seconds()
		ok := lp.ChoiceGoes(fitted, spent, (b.Duration - b.now().Sub(b.Start)).Seconds())
		choiceStart = b.now()
		return ok
	}
	// Each further ridge term goes ahead if, at the pace the choice has run
	// so far, it and the refit fit in the time left.
	more := func(i int, done, next float64) bool {
		spent := b.now().Sub(choiceStart).Seconds()
		return lp.MoreRidges(spent, done, next, (b.Duration - b.now().Sub(b.Start)).Seconds())
	}
	// The fit stops between two blocks of filters when the next block, at
	// the pace of the last one (or of the fit so far, if slower), would end
	// past localplan.FitStop of the budget (a growing fit: with the ridge
	// choice after it, localplan.Plan.Stops).
	prevF, prevT := 0, fitStart
	stopFit := func(done int) bool {
		now := b.now()
		next := localplan.NextBlock(done, prevF, now.Sub(fitStart).Seconds(), now.Sub(prevT).Seconds())
		prevF, prevT = done, now
		if lp.Grow {
			stop := lp.Stops(done, now.Sub(fitStart).Seconds(), next, b.now().Sub(b.Start).Seconds(), b.Duration.Seconds())
			if stop {
				fitted = done
			}
			return stop
		}
		return lp.Stops(done, 0, next, now.Sub(b.Start).Seconds(), b.Duration.Seconds())
	}
	m, chose, err := PhotoFit(ctx, j, cfg, pl, stopFit, proceedAt, more)
	if err != nil {
		return m, err
	}
	nodes, curve := j.Nodes(m)
	scored := 0
	if chose {
		scored = curve
	}
	// The clock stopped the fit, or left no time for the ridge choice, or
	// for all its terms?
	stopped := localplan.Stopped(nodes, pl.Nodes, pl.MaxNodes, most > f, pl.Validation > 0, chose, scored, len(pl.Ridges))
	j.Done(m, &budget.Record{Budget: b.Duration, Plan: pl, FitNodes: nodes, Stopped: stopped, Elapsed: b.now().Sub(b.Start)}, stopped == "budget")
	return m, nil
}

// mostFilters returns the most filters of cfg's local nodes whose
// modelled time fits in sec seconds and whose estimated memory on a set
// of shape s fits in maxBytes (localplan.MostFilters).
func mostFilters[C any](j Configs[C], cfg C, rate, chol, sec float64, s Shape, held, ridges int, choose bool, maxBytes int64) int {
	fitBytes := func(f int) int64 { return j.Bytes(j.Filters(cfg, f, true), s) }
	return localplan.MostFilters(j.Info(cfg).Local, rate, chol, sec, s.N, s.Rows, s.Cols, s.Chans, s.M, held, ridges, choose, maxBytes, fitBytes)
}
