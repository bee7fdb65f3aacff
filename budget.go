package scn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/scn2d/scn/internal/timing"
)

// Budget fits the best model a wall-clock budget can buy (scn train
// --budget): it chooses the learner and its settings for the data, measures
// this machine's rates with a short probe fit, plans the number of nodes L
// that the rest of the budget can pay for, and then adapts while fitting:
// the fit goes block by block, and after each block a check compares the
// time spent with the rates measured so far and stops when the next block
// and the finishing work (scoring the held-out images, choosing L and the
// ridge, re-solving on all images) would no longer fit. A fit that runs
// ahead of its plan grows past it (up to ten times the planned L, and within
// MaxBytes); one that runs behind stops early. Either way model selection
// then picks the best prefix on held-out data among all the checkpoints (the
// block path's prefixes are free), so a budget never returns a model worse
// on held-out data than its first checkpoint.
//
// The plan that was carried out is recorded in the model (Model.Budget), and
// Replay refits it without a clock, giving the same model bytes.
type Budget struct {
	// Duration is the whole budget, counted from Start.
	Duration time.Duration
	// Start is when the budget began (scn train passes its process's start,
	// so that reading the data counts); zero means when Fit is called.
	Start time.Time
	// Now is the clock; nil means time.Now. Tests pass a fake clock.
	Now func() time.Time
	// MaxBytes bounds the fit's estimated memory (Config.Estimate); 0
	// means no bound.
	MaxBytes int64
	// Rates are the machine's costs; nil means measure them with a probe
	// fit on a sample of the training images (Calibrate).
	Rates *Rates
	// LocalRates are the machine's costs of local nodes on grey images
	// that won the probe of budget_grey.go, in the meaning fitPhotos gives
	// Rates (seconds per multiply-add); nil means measure them. (Rates,
	// which scn train measures for the global plan while choosing the
	// images' preparation, are not those.)
	LocalRates *Rates
	// Seed fixes every random draw of the fit (nodes, hold-out split).
	Seed uint64
	// Photo is the choice of a photo budget's probe (ChoosePhotos) that
	// the caller ran on its inputs, the problem Fit gets being the input
	// chosen; nil means today's plan (5 x 5 filters), or with PhotoProbe
	// Fit probes the filter sizes on that problem itself.
	Photo *PhotoChoice
	// PhotoProbe makes a budget on photos without Photo run the probe of
	// budget_photo_probe.go (off: measured not to win, docs/local.md).
	PhotoProbe bool
}

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

// valid reports whether r is usable: no rate negative, infinite or NaN,
// and scoring or Gram products costing something.
func (r Rates) valid() bool {
	for _, v := range []float64{r.Score, r.Gram, r.Chol, r.Block, r.Finish} {
		if !(v >= 0) || math.IsInf(v, 0) {
			return false
		}
	}
	return r.Score > 0 || r.Gram > 0
}

// fitSeconds is the modelled time of a block fit of l nodes on n images.
func (r Rates) fitSeconds(n, l, block int) float64 {
	return timing.FitSeconds(n, l, block, r.Score, r.Gram, r.Chol, r.Block)
}

// finishSeconds is the modelled time of what follows a fit of l nodes with
// model selection over ridges ridge terms on held images (see Rates).
func (r Rates) finishSeconds(held, l, m, ridges, points int) float64 {
	return timing.FinishSeconds(held, l, m, ridges, points, r.Score, r.Finish)
}

// BudgetPlan is what a budget chose before fitting.
type BudgetPlan struct {
	Kind       Kind
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
	// (budget_local.go; 0: global nodes). Such a plan fits Nodes pooled
	// outputs of every image at FitRidge, then chooses the ridge term among
	// Ridges on a Validation share of them held out (budget_local_ridge.go;
	// Validation 0, as in files of earlier plans: no choice), and its
	// Rates.Score is the seconds per multiply-add of its work model
	// (Rates.Chol the factor's and the ridge choice's, Rates.Block the
	// fit's fixed seconds).
	Filters int
	// Probe says what the probe of a budget on grey images compared on
	// held-out images and what it chose, or why it was skipped
	// (budget_grey.go); "" when there was none (photos, regression,
	// small images).
	Probe string
}

// finishSeconds is the modelled time of the work after a fit of l nodes
// under the plan: model selection and the re-solve, or with FitWeights
// only the output weights of the chosen prefix and writing the model.
func (pl BudgetPlan) finishSeconds(held, l, m, d int) float64 {
	if pl.FitWeights {
		// The fit's factor's solves, the model file and the further
		// ridge terms (budget_ridge.go).
		return timing.FitWeightsSeconds(l, m, d, len(timing.ExtraRidges(pl.Ridges, pl.FitRidge)), pl.BlockSize, pl.Rates.Finish)
	}
	return pl.Rates.finishSeconds(held, l, m, len(pl.Ridges), pl.Points+maxCheckpointsInGrid)
}

// Checkpoint is the state of a budgeted fit after one block.
type Checkpoint struct {
	Nodes    int
	Elapsed  time.Duration // since the budget's start
	Accuracy float64       // held-out accuracy at FitRidge (classification)
	RMSE     float64       // held-out RMSE at FitRidge
}

// BudgetRecord is a budgeted fit's plan and what happened, saved in the
// model file (Model.Budget).
type BudgetRecord struct {
	Budget      time.Duration
	Plan        BudgetPlan
	FitNodes    int           // nodes fitted (the prefix chosen is Model.Selection.Nodes)
	Stopped     string        // "budget" (stopped by the clock), "plan" (grew to MaxNodes) or the fit's own stop
	Elapsed     time.Duration // from the budget's start to the model's return
	Checkpoints []Checkpoint
}

// ErrBudget is wrapped by the errors of a budget that cannot be met at all.
var ErrBudget = errors.New("scn: budget")

// budgetChoice returns the learner and settings for a training set of n
// images of p's shape: the
// measured Pareto front of this project (docs/performance.md) has the fast
// preset's RVFL ahead per second on tens of thousands of images, and the
// default preset's 2DSCN with model selection best on small sets (ORL: 96-98%).
func budgetChoice(n int, p Problem, seed uint64) (Config, Selection, string) {
	if n < budgetLargeSet {
		c := Default(SCN2D)
		c.Seed = seed
		why := fmt.Sprintf("%d training images (< %d): the default preset's 2DSCN with model selection, best on small sets", n, budgetLargeSet)
		return c, Selection{Validation: 0.2, Points: 20, Uncalibrated: true}, why
	}
	c := Fast(RVFL).ForImages(p.X.Rows, p.X.Cols)
	c.Seed = seed
	why := fmt.Sprintf("%d training images: the fast preset's RVFL, the most accurate per second measured on large sets", n)
	// L is chosen among the checkpoints at the preset's ridge term, and
	// the fit's own weights are kept: scoring a ridge grid and re-solving
	// with the held-out images cost factors of L^3/3 at the end (27 s of
	// 60 at L = 7000 on MNIST), which buy more as nodes. The ridge term is
	// the preset's, measured on MNIST and Fashion-MNIST (docs/presets.md).
	// A few further ridge terms are scored at the end (budget_ridge.go).
	ridges := []float64{c.Ridge}
	for _, k := range budgetRidgeSteps {
		ridges = append(ridges, k*c.Ridge)
	}
	return c, Selection{Validation: 0.05, Ridges: ridges, fitWeights: true, Uncalibrated: true}, why
}

// budgetLargeSet is the training set size from which a budget takes the
// fast RVFL rather than the default 2DSCN.
const budgetLargeSet = 5000

// budgetGrowth bounds how far past its plan a fit running ahead may grow:
// the probe of a second or so on a few thousand images overstates the
// products of a large fit (MNIST: 2500 nodes planned, 9000 fitted in time),
// and the clock, checked after every block, is what stops the fit.
const budgetGrowth = 10

// budgetSafety is the share of the remaining budget a plan may fill; the
// rest absorbs the rates' error and writing the model.
const budgetSafety = 0.85

func (b Budget) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// Fit plans, fits and selects within the budget, and returns the model with
// the plan and what happened in Model.Budget. progress, if not nil, gets every
// step; plan, if not nil, is called once the plan is made, before the fit.
func (b Budget) Fit(ctx context.Context, p Problem, progress func(Step), plan func(BudgetPlan)) (*Model, error) {
	if !(b.Duration > 0) {
		return nil, fmt.Errorf("%w: duration %v, want > 0", ErrBudget, b.Duration)
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	if b.Start.IsZero() {
		b.Start = b.now()
	}
	if budgetPhotos(p) {
		return b.fitPhotos(ctx, p, progress, plan)
	}
	cfg, sel, why := budgetChoice(p.X.Len(), p, b.Seed)
	probed := ""
	if budgetGrey(p) {
		lc, rec, local, err := b.probeGrey(ctx, p, cfg)
		if err != nil {
			return nil, err
		}
		if local {
			lb := b
			lb.Rates = b.LocalRates
			return lb.fitLocalPlan(ctx, p, lc, greyRidges, greyWhat(p), rec, greyGrow, progress, plan)
		}
		probed = rec
	}
	held := max(1, int(math.Round(sel.Validation*float64(p.X.Len()))))
	train := p.X.Len() - held
	rates := b.Rates
	if rates == nil {
		r, _, _, err := probe(ctx, cfg, sel, p)
		if err != nil {
			return nil, err
		}
		rates = &r
	}
	if !rates.valid() {
		return nil, fmt.Errorf("%w: rates %+v are not usable", ErrBudget, *rates)
	}
	pl := b.plan(cfg, sel, *rates, p, train, held)
	pl.Why = why
	pl.Probe = probed
	if plan != nil {
		plan(pl)
	}
	staged := cfg.mode(runOpts{}) == modeOnePass
	cfg.MaxNodes, cfg.BlockSize = pl.MaxNodes, pl.BlockSize
	o := runOpts{blockByBlock: !staged}
	sel.Ridges = pl.Ridges
	sel.checkpoints = pl.BlockSize
	sel.fitWeights = pl.FitWeights
	rec := &BudgetRecord{Budget: b.Duration, Plan: pl}
	fitStart := b.now()
	stoppedByClock := false
	watch := &timing.Watch{Run: b.run(pl, *rates, p, train, held, fitStart)}
	sel.watch = func(path *Path, ev *evaluator) bool {
		l := path.Nodes()
		now := b.now()
		cp := Checkpoint{Nodes: l, Elapsed: now.Sub(b.Start)}
		if s, err := ev.checkpoint(path, l, cfg.Ridge); err == nil {
			cp.Accuracy, cp.RMSE = s.Accuracy, s.RMSE
		}
		rec.Checkpoints = append(rec.Checkpoints, cp)
		if staged {
			return false // the stages decide (below)
		}
		// The next block and the finish at the pace measured so far.
		if watch.Stop(l, now, (b.Duration - now.Sub(b.Start)).Seconds()) {
			stoppedByClock = true
			return true
		}
		return false
	}
	if staged {
		o.stages = b.stages(pl, *rates, p, train, held, fitStart, &stoppedByClock)
	}
	m, err := cfg.selectWith(ctx, p, sel, progress, o)
	if err != nil {
		return m, err
	}
	rec.FitNodes = m.Selection.FitNodes
	switch {
	case stoppedByClock:
		rec.Stopped = "budget"
		m.Summary.Stop = BudgetSpent
	case m.Selection.FitNodes >= pl.MaxNodes:
		rec.Stopped = "plan"
	default:
		rec.Stopped = m.Summary.Stop.String()
	}
	rec.Elapsed = b.now().Sub(b.Start)
	m.Budget = rec
	return m, nil
}

// stages returns a staged fit's stage sizes (runOpts.stages) for the plan
// (internal/timing's Stages: the first stage a quarter of the planned L,
// each later one what the pace measured so far lets fill the time left),
// and 0, which stops the fit and sets *clock, when not one block fits.
func (b Budget) stages(pl BudgetPlan, r Rates, p Problem, train, held int, fitStart time.Time, clock *bool) func(int) int {
	st := &timing.Stages{Run: b.run(pl, r, p, train, held, fitStart), Score: r.Score, Train: train, Nodes: pl.Nodes}
	return func(done int) int {
		now := b.now()
		n, spent := st.Next(done, now, (b.Duration - now.Sub(b.Start)).Seconds())
		if spent {
			*clock = true // runStaged asks only below pl.MaxNodes
		}
		return n
	}
}

// run is the fit under way for its clock: the plan's time model at rates
// r on train images with held held out, from fitStart.
func (b Budget) run(pl BudgetPlan, r Rates, p Problem, train, held int, fitStart time.Time) timing.Run {
	d := p.X.Rows * p.X.Cols * p.X.Chans()
	return timing.Run{
		Fit:    func(l int) float64 { return r.fitSeconds(train, l, pl.BlockSize) },
		Finish: func(l int) float64 { return pl.finishSeconds(held, l, p.M, d) },
		Block:  pl.BlockSize, MaxNodes: pl.MaxNodes, Safety: budgetSafety, Start: fitStart,
	}
}

// plan chooses L, the block size and the cap for cfg on a training part of
// train images (held held out) from the rates and the time left.
func (b Budget) plan(cfg Config, sel Selection, r Rates, p Problem, train, held int) BudgetPlan {
	left := (b.Duration - b.now().Sub(b.Start)).Seconds() * budgetSafety
	block := max(cfg.BlockSize, 1)
	ridges := sel.Ridges
	if ridges == nil {
		ridges = DefaultRidges()
	}
	if !slices.Contains(ridges, cfg.Ridge) {
		// The checkpoints are scored at the fit's ridge term: selection
		// must be able to choose what they saw.
		ridges = append(slices.Clone(ridges), cfg.Ridge)
	}
	pl := BudgetPlan{
		Kind: cfg.Kind, Preset: cfg.Preset, BlockSize: block, Validation: sel.Validation, Points: sel.Points,
		Ridges: append([]float64(nil), ridges...), FitRidge: cfg.Ridge, Rates: r, FitWeights: sel.fitWeights,
	}
	d := p.X.Rows * p.X.Cols * p.X.Chans()
	cost := func(l int) float64 {
		return r.fitSeconds(train, l, block) + pl.finishSeconds(held, l, p.M, d)
	}
	// The largest multiple of the block that fits (at least one block).
	lmax := maxNodes / 2
	if cfg.Kind.Choice == Supervised {
		// Past N the supervised learners find no admissible candidate.
		lmax = min(lmax, max(block, train))
	}
	if b.MaxBytes > 0 {
		extra := int64(0)
		if pl.FitWeights && len(timing.ExtraRidges(pl.Ridges, pl.FitRidge)) > 0 {
			extra = 8
		}
		lmax = min(lmax, b.memoryCap(cfg, p, train, block, extra))
	}
	l := timing.MostNodes(block, lmax, left, cost)
	capL := min(lmax, budgetGrowth*l)
	capL = max(block, capL/block*block)
	pl.Nodes, pl.MaxNodes = l, capL
	pl.Predicted = time.Duration(cost(l) * float64(time.Second))
	return pl
}

// memoryCap returns the largest multiple of block whose block-by-block fit
// on train images stays within b.MaxBytes by the estimate.
//
// extra is the bytes per L^2 that the end of the fit adds (the further
// ridge terms' factor, budget_ridge.go).
func (b Budget) memoryCap(cfg Config, p Problem, train, block int, extra int64) int {
	// The staged one-pass fit keeps no H (see Fit): the estimate of c.
	c := cfg
	fits := func(l int) bool {
		c.MaxNodes = l
		return c.Estimate(outputsShape(train, p.X.Rows, p.X.Cols, p.X.Chans(), p.M), nil).FitBytes()+extra*int64(l)*int64(l) <= b.MaxBytes
	}
	if !fits(block) {
		return block // the smallest plan; the caller's memory check refuses it if need be
	}
	k := sort.Search(maxNodes/block, func(k int) bool { return !fits((k + 1) * block) })
	return max(1, k) * block
}

// Probe is what the probe of a budget measured on one problem.
type Probe struct {
	Accuracy float64 // held-out accuracy of the probe's fit
	Held     int     // held-out images it was measured on
	Rates    Rates   // the machine's rates it measured
}

// ProbeInputs runs the probe a budget plans from (Calibrate, with the
// learner and selection the budget chooses for a training set of n
// images) on each of ps, samples of that set's images (at most 4000 are
// used) prepared in different ways, as read and deskewed say: a budget
// then fits the preparation that scores best, and may take its rates
// (Budget.Rates) instead of probing again. The problems must have the
// same number of images, size and outputs.
func (b Budget) ProbeInputs(ctx context.Context, n int, ps []Problem) ([]Probe, error) {
	if len(ps) == 0 || n < 1 {
		return nil, fmt.Errorf("%w: %d problems of a set of %d images to probe", ErrBudget, len(ps), n)
	}
	out := make([]Probe, len(ps))
	for i, p := range ps {
		if err := p.check(); err != nil {
			return nil, err
		}
		if p.X.Len() != ps[0].X.Len() || p.X.Dim() != ps[0].X.Dim() || p.M != ps[0].M {
			return nil, fmt.Errorf("%w: the problems to probe differ in images, size or outputs", ErrBudget)
		}
		cfg, sel, _ := budgetChoice(n, p, b.Seed)
		r, acc, held, err := probe(ctx, cfg, sel, p)
		if err != nil {
			return nil, err
		}
		out[i] = Probe{Accuracy: acc, Held: held, Rates: r}
	}
	return out, nil
}

// Calibrate measures this machine's rates for cfg and the model selection
// sel with a probe: cfg's learner, block by block, on a sample of at most
// 4000 of p's images, two blocks of nodes (at most 1000), selected as sel
// says, timed in its parts; and float64 Cholesky factors of 1024 and 2048. It
// takes about a second for MNIST's fast RVFL on two cores.
func Calibrate(ctx context.Context, cfg Config, sel Selection, p Problem) (Rates, error) {
	r, _, _, err := probe(ctx, cfg, sel, p)
	return r, err
}

// probe is Calibrate, returning the probe's held-out accuracy and the
// number of images it held out too (a quarter of the sample, so that
// learners and preparations can be compared on it).
func probe(ctx context.Context, cfg Config, sel Selection, p Problem) (Rates, float64, int, error) {
	n := min(p.X.Len(), 4000)
	idx := rand.New(rand.NewPCG(cfg.Seed, 0xca1b)).Perm(p.X.Len())[:n]
	sort.Ints(idx)
	sub := p.subset(idx)
	c := cfg
	block := max(c.BlockSize, 1)
	c.MaxNodes = min(2*block, 1000)
	c.BlockSize = min(block, c.MaxNodes)
	sel.watch, sel.checkpoints = nil, 0
	sel.Validation = 0.25
	sel.Uncalibrated = true // timed: the fit, not a map
	t0 := time.Now()
	var fitEnd time.Time
	m, err := c.selectWith(ctx, sub, sel, func(Step) { fitEnd = time.Now() }, runOpts{blockByBlock: true})
	if err != nil {
		return Rates{}, 0, 0, fmt.Errorf("%w: calibration: %v", ErrBudget, err)
	}
	fit := fitEnd.Sub(t0).Seconds()
	held := m.Selection.Held
	train := n - held
	l := m.Selection.FitNodes
	prof := m.Summary.Profile
	var r Rates
	score := (prof.Draw + prof.Scoring + prof.Selection).Seconds()
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
	return r, m.Selection.Accuracy, held, nil
}

// Replay refits the plan a budgeted model records on the same training data
// without a clock: the same learner, settings and nodes, stopped where the
// budgeted fit stopped, with the same model selection. The model bytes equal
// the budgeted model's (the record is carried over).
func Replay(ctx context.Context, rec *BudgetRecord, m *Model, p Problem, progress func(Step)) (*Model, error) {
	if rec == nil || m == nil {
		return nil, fmt.Errorf("%w: the model has no budget record to replay", ErrBudget)
	}
	if m.Config.Local != nil {
		return replayLocal(ctx, rec, m, p, progress)
	}
	cfg := m.Config
	cfg.Ridge = rec.Plan.FitRidge
	cfg.MaxNodes = rec.FitNodes
	cfg.BlockSize = rec.Plan.BlockSize
	sel := Selection{Validation: rec.Plan.Validation, Ridges: rec.Plan.Ridges, checkpoints: rec.Plan.BlockSize, fitWeights: rec.Plan.FitWeights, Uncalibrated: true}
	sel.Points = rec.Plan.Points
	out, err := cfg.selectWith(ctx, p, sel, progress, runOpts{blockByBlock: true})
	if err != nil {
		return nil, err
	}
	out.Config.MaxNodes = rec.Plan.MaxNodes
	out.Summary.Stop = m.Summary.Stop
	out.Budget = rec
	out.Meta, out.Preprocessing = m.Meta, m.Preprocessing
	return out, nil
}

// checkpoint scores the first l nodes of a path in the middle of a fit at
// ridge alpha on the held-out images (extending the held-out outputs that
// selection reuses afterwards).
func (e *evaluator) checkpoint(path *Path, l int, alpha float64) (Score, error) {
	if k := len(e.checkpoints); k > 0 && e.checkpoints[k-1].Nodes == l && e.checkpoints[k-1].Ridge == alpha {
		return e.checkpoints[k-1], nil // scored already at this step
	}
	e.hv = e.heldHidden(path.Model(), e.hv, l)
	beta, err := path.beta(path.Model(), l, alpha)
	if err != nil {
		return Score{}, err
	}
	s := e.score(l, alpha, beta)
	e.checkpoints = append(e.checkpoints, s)
	return s, nil
}
