package scn

import (
	"context"
	"fmt"
	"time"

	"github.com/scn2d/scn/internal/localplan"
	"github.com/scn2d/scn/internal/timing"
)

// A time budget on photos (issue 31, item 5): on classification problems
// whose images are photos (PhotoImages: colour, or more than 40 x 40
// pixels) Budget.Fit plans local nodes, the presets' photo choice
// (Config.ForPhotos: 2DRVFL, separable 5 x 5 filters, 3 x 3 average
// pooling, two-sided, whitened), chooses the number of filters that fits
// the time left, and then the ridge term on held-out images
// (budget_local_ridge.go). The time of a fit of F filters on N images is
// modelled by localplan.Seconds: the filters over every position and the Gram
// sums of the pooled outputs at the seconds per multiply-add measured by
// two probe fits (localplan.RateProbeFilters and three times as many filters, on
// at most localplan.RateProbeImages of the images), and the Cholesky factor at the
// rate of a timed factor (timing.CholSeconds); the ridge choice's solves
// (localnet.ChoiceWork) at that rate too. Every image is fitted. The clock is
// checked after every block of filters (the fit stops when the next block
// would end past localplan.FitStop of the budget, and the model is the fit of
// the filters drawn so far), before the ridge choice and between its
// terms. When the classes are too small to hold images out, the ridge
// term is the presets' (PhotoRidge) and nothing is held out.

// budgetPhotos reports whether a budget plans local nodes on p.
func budgetPhotos(p Problem) bool {
	return localplan.Photos(p.Classes != nil, p.X.Rows, p.X.Cols, p.X.Chans())
}

// fitPhotos is Budget.Fit on photos. With b.Rates set, b.Rates.Score is
// taken as the seconds per multiply-add of the filters and Gram sums,
// b.Rates.Chol as the seconds per unit of the factor's L^3 / 3 (and per
// multiply-add of the ridge choice) and b.Rates.Block as the fit's fixed
// seconds (no probe).
func (b Budget) fitPhotos(ctx context.Context, p Problem, progress func(Step), plan func(BudgetPlan)) (*Model, error) {
	n, rows, cols, chans := p.X.Len(), p.X.Rows, p.X.Cols, max(p.X.Chans(), 1)
	base := Default(SCN2D)
	base.Seed = b.Seed
	cfg, ok := base.ForPhotos(n, rows, cols, chans)
	if !ok {
		return nil, fmt.Errorf("%w: local nodes cannot be applied to images of %d x %d x %d", ErrBudget, rows, cols, chans)
	}
	what := fmt.Sprintf("photos (%d x %d x %d): the presets' local nodes", rows, cols, chans)
	choice := b.Photo
	if choice == nil && !b.PhotoProbe {
		choice = &PhotoChoice{Size: localplan.DefaultSize}
	}
	if choice == nil {
		c, err := b.ChoosePhotos(ctx, []PhotoInput{{Problem: p, Label: fmt.Sprintf("%d x %d", rows, cols)}})
		if err != nil {
			return nil, err
		}
		choice = &c
	}
	if choice.Size != localplan.DefaultSize {
		if !(choice.Size >= 1) {
			return nil, fmt.Errorf("%w: the photo probe's filter size %d", ErrBudget, choice.Size)
		}
		cfg.Local.Sizes = []int{choice.Size}
		if err := cfg.Local.ForImages(rows, cols, chans); err != nil {
			return nil, fmt.Errorf("%w: the photo probe's choice: %v", ErrBudget, err)
		}
	}
	return b.fitLocalPlan(ctx, p, cfg, photoRidges, what, choice.Record, 0, progress, plan)
}

// fitLocalPlan is fitPhotos with the local configuration cfg (its filters
// are planned), the ridge terms to choose from (the first is cfg.Ridge's
// place in the grid), what the plan's Why begins with, and the probe's
// record (BudgetPlan.Probe; "" for none). With grow > 0 the fit may draw
// filters past the plan, up to what grow times the time left would allow
// (BudgetPlan.MaxNodes), while the clock allows them and the ridge choice
// after them (localplan.Plan.Stops); grow 0 fits the plan's filters at most.
func (b Budget) fitLocalPlan(ctx context.Context, p Problem, cfg Config, choices []float64, what, probed string, grow float64, progress func(Step), plan func(BudgetPlan)) (*Model, error) {
	n, rows, cols, chans := p.X.Len(), p.X.Rows, p.X.Cols, max(p.X.Chans(), 1)
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
		q := p.subset(idx)
		var ts, cs [2]float64
		for i, f := range []int{localplan.RateProbeFilters, 3 * localplan.RateProbeFilters} {
			pc := cfg
			pc.Local = cfg.Local.Clone()
			pc.Local.Filters = f
			pc.MaxNodes = pc.Local.Outputs()
			t0 := b.now()
			if _, err := pc.Fit(ctx, q, nil); err != nil {
				return nil, fmt.Errorf("budget probe: %w", err)
			}
			ts[i], cs[i] = b.now().Sub(t0).Seconds(), localplan.Cost(pc.Local, f, m, rows, cols, chans)
		}
		rate, fixed = localplan.ProbeRates(ts, cs)
	}
	if !localplan.Usable(rate, chol, fixed) {
		return nil, fmt.Errorf("%w: local nodes' rates %v and %v s per multiply-add are not usable", ErrBudget, rate, chol)
	}
	// The ridge term is chosen on held-out images unless the classes are
	// too small to hold any out.
	ridges, share := choices, photoValidation
	_, held, serr := splitHoldout(p, share, b.Seed)
	if serr != nil {
		ridges, share, held = []float64{cfg.Ridge}, 0, nil
	}
	left := (b.Duration - b.now().Sub(b.Start)).Seconds() * localplan.BudgetShare
	f := budgetFilters(cfg, rate, chol, left-fixed, n, rows, cols, chans, p.M, len(held), len(ridges), share > 0, b.MaxBytes)
	cfg.Local.Filters = f
	cfg.MaxNodes = cfg.Local.Outputs()
	l := cfg.MaxNodes
	most := f
	if grow > 0 {
		most = max(f, budgetFilters(cfg, rate, chol, grow*(left-fixed), n, rows, cols, chans, p.M, len(held), len(ridges), share > 0, b.MaxBytes))
	}
	lp := localplan.Plan{
		Local: cfg.Local, N: n, Rows: rows, Cols: cols, Chans: chans, M: p.M, Rate: rate, Chol: chol, Fixed: fixed,
		Held: len(held), Ridges: len(ridges), Choose: share > 0, Grow: most > f,
	}
	why, predicted := lp.Describe(what, f, l, most, cfg.Local.Sizes[0], cfg.Ridge)
	pl := BudgetPlan{
		Kind: cfg.Kind, Preset: cfg.Preset, Nodes: l, MaxNodes: most * cfg.Local.PerFilter(), BlockSize: max(1, cfg.BlockSize), Validation: share,
		Ridges: append([]float64(nil), ridges...), FitRidge: cfg.Ridge, Predicted: time.Duration(predicted * float64(time.Second)),
		Rates: Rates{Score: rate, Chol: chol, Block: fixed}, Filters: f,
		Why: why, Probe: probed,
	}
	if plan != nil {
		plan(pl)
	}
	if most > f {
		cfg.Local.Filters = most
		cfg.MaxNodes = cfg.Local.Outputs()
	}
	// fitted is the filters the fit draws: all it may, unless the clock
	// stops a growing fit earlier.
	fitted := cfg.Local.Filters
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
	m, chose, err := photoFit(ctx, cfg, p, pl, progress, stopFit, proceedAt, more)
	if err != nil {
		return m, err
	}
	scored := 0
	if chose {
		scored = len(m.Selection.Curve)
	}
	// The clock stopped the fit, or left no time for the ridge choice, or
	// for all its terms?
	stopped := localplan.Stopped(m.Nodes(), pl.Nodes, pl.MaxNodes, most > f, pl.Validation > 0, chose, scored, len(pl.Ridges))
	if stopped == "budget" {
		m.Summary.Stop = BudgetSpent
	}
	m.Budget = &BudgetRecord{Budget: b.Duration, Plan: pl, FitNodes: m.Nodes(), Stopped: stopped, Elapsed: b.now().Sub(b.Start)}
	return m, nil
}

// photoFit fits cfg (local nodes, ridge pl.FitRidge) on p as the plan pl
// says: with pl.Validation > 0 the ridge term is then chosen among
// pl.Ridges on that share of the images held out (drawn from cfg.Seed) and
// the output weights are every image's at that term (photoRidge), unless
// proceed (nil: always) says, once the fit is done, that there is no time
// left for the choice: the model is then the fit's own, at pl.FitRidge,
// and chose is false; more (moreRidges) may cut the grid short.
func photoFit(ctx context.Context, cfg Config, p Problem, pl BudgetPlan, progress func(Step), stopFit func(filters int) bool, proceed func() bool, more moreRidges) (m *Model, chose bool, err error) {
	var train, held []int
	if pl.Validation > 0 {
		if train, held, err = splitHoldout(p, pl.Validation, cfg.Seed); err != nil {
			return nil, false, err
		}
		if cfg.Augment != nil {
			return nil, false, fmt.Errorf("%w: a budget's ridge choice with augmented local fits: not supported", ErrConfig)
		}
	}
	// The clock may stop the fit between two blocks of filters: the model
	// is then the fit of the filters drawn so far (the filters come from
	// one random stream, block after block), recorded as that many.
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	prog := progress
	if stopFit != nil {
		per := cfg.Local.PerFilter()
		prog = func(s Step) {
			if progress != nil {
				progress(s)
			}
			if f, at := localplan.AtBlock(s.L, per, cfg.Local.Filters); at && stopFit(f) {
				cancel()
			}
		}
	}
	m, lf, err := cfg.fitLocalState(fctx, p, prog)
	if err != nil && m != nil && ctx.Err() == nil && fctx.Err() != nil {
		f := m.Nodes() / cfg.Local.PerFilter()
		m.Config.Local.Filters, m.Local.Geometry.Filters, m.Config.MaxNodes = f, f, m.Nodes()
		m.Summary.Stop = ReachedMaxNodes // as a fit of f filters says
		err = nil
	}
	if err != nil {
		return m, false, err
	}
	if !(pl.Validation > 0) || (proceed != nil && !proceed()) {
		return m, false, nil
	}
	classify := p.Classes != nil
	choose := photoRidge
	if pl.Probe != "" && pl.MaxNodes > pl.Nodes {
		// A grey budget's growing local fit (localnet.ChooseRidgeGrey); the
		// plans of earlier files, which did not grow, replay as they were.
		choose = greyRidgeChoice
	}
	beta, rmse, curve, best, err := choose(ctx, lf, p.T, train, held, pl.Ridges, classify, more)
	if err != nil {
		return nil, false, err
	}
	choice := curve[best]
	m.Beta = beta
	m.Config.Ridge = choice.Ridge
	m.Summary.TrainRMSE = rmse
	metric := "rmse"
	if classify {
		metric = "accuracy"
	}
	m.Selection = &Choice{
		Method: "holdout", Held: len(held), Folds: 1, Metric: metric, Nodes: m.Nodes(), Ridge: choice.Ridge,
		Accuracy: choice.Accuracy, RMSE: choice.RMSE, Curve: curve, FitNodes: m.Nodes(), Candidates: len(curve),
		Refit: fmt.Sprintf("output weights of all %d images at ridge %g (the filters and the standardisation saw every image)", lf.n, choice.Ridge),
	}
	if err := m.check(); err != nil {
		return nil, false, err
	}
	return m, true, nil
}

// budgetFilters returns the most filters of cfg's local nodes whose
// modelled time fits in sec seconds and whose estimated memory
// (Config.Estimate) fits in maxBytes (localplan.MostFilters).
func budgetFilters(cfg Config, rate, chol, sec float64, n, rows, cols, chans, m, held, ridges int, choose bool, maxBytes int64) int {
	fitBytes := func(f int) int64 {
		c := cfg
		c.Local = cfg.Local.Clone()
		c.Local.Filters = f
		c.MaxNodes = c.Local.Outputs()
		return c.Estimate(outputsShape(n, rows, cols, chans, m), nil).FitBytes()
	}
	return localplan.MostFilters(cfg.Local, rate, chol, sec, n, rows, cols, chans, m, held, ridges, choose, maxBytes, fitBytes)
}

// replayLocal is Replay for a budget that planned local nodes: the
// model's configuration (its filters) fitted again.
func replayLocal(ctx context.Context, rec *BudgetRecord, m *Model, p Problem, progress func(Step)) (*Model, error) {
	cfg := m.Config
	cfg.Ridge = rec.Plan.FitRidge
	// A budget whose clock left out the ridge choice kept the fit's own
	// weights; one whose clock cut the grid short scored its first terms.
	curve := 0
	if m.Selection != nil {
		curve = len(m.Selection.Curve)
	}
	choose, scored := localplan.Replayed(rec.Stopped, m.Selection != nil, curve, len(rec.Plan.Ridges))
	proceed := func() bool { return choose }
	more := func(i int, _, _ float64) bool { return i < scored }
	out, _, err := photoFit(ctx, cfg, p, rec.Plan, progress, nil, proceed, more)
	if err != nil {
		return nil, err
	}
	out.Summary.Stop = m.Summary.Stop
	out.Budget = rec
	out.Meta, out.Preprocessing = m.Meta, m.Preprocessing
	return out, nil
}
