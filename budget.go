package scn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/scn2d/scn/internal/budget"
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
// per unit, and the time model of a fit and its finish at those costs
// (internal/budget's Rates).
type Rates = budget.Rates

// BudgetPlan is what a budget chose before fitting (internal/budget's
// Plan: the learner, L and its cap, the block, the selection's settings,
// the rates, the predicted time, why).
type BudgetPlan = budget.Plan

// Checkpoint is the state of a budgeted fit after one block.
type Checkpoint = budget.Checkpoint

// BudgetRecord is a budgeted fit's plan and what happened, saved in the
// model file (Model.Budget; internal/budget's Record).
type BudgetRecord = budget.Record

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
	for _, k := range budget.RidgeSteps {
		ridges = append(ridges, k*c.Ridge)
	}
	return c, Selection{Validation: 0.05, Ridges: ridges, fitWeights: true, Uncalibrated: true}, why
}

// budgetLargeSet is the training set size from which a budget takes the
// fast RVFL rather than the default 2DSCN.
const budgetLargeSet = 5000

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
	if !rates.Valid() {
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
	// The record, the checkpoints and the clock of the fit
	// (internal/budget's Fit).
	fit := budget.NewFit(budget.Clock{Duration: b.Duration, Start: b.Start, Now: b.now}, pl, train, held, p.M, p.X.Rows*p.X.Cols*p.X.Chans(), b.now(), staged)
	sel.watch = func(path *Path, ev *evaluator) bool {
		l := path.Nodes()
		now := b.now()
		s, err := ev.checkpoint(path, l, cfg.Ridge)
		return fit.Checkpoint(l, now, s.Accuracy, s.RMSE, err == nil)
	}
	if staged {
		o.stages = fit.Stage
	}
	m, err := cfg.selectWith(ctx, p, sel, progress, o)
	if err != nil {
		return m, err
	}
	m.Budget = fit.End(m.Selection.FitNodes, m.Summary.Stop.String(), b.now())
	if fit.ByClock {
		m.Summary.Stop = BudgetSpent
	}
	return m, nil
}

// plan chooses L, the block size and the cap for cfg on a training part of
// train images (held held out) from the rates and the time left
// (BudgetPlan.Size).
func (b Budget) plan(cfg Config, sel Selection, r Rates, p Problem, train, held int) BudgetPlan {
	left := (b.Duration - b.now().Sub(b.Start)).Seconds() * budget.Safety
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
	var memoryCap func(extra int64) int
	if b.MaxBytes > 0 {
		memoryCap = func(extra int64) int { return b.memoryCap(cfg, p, train, block, extra) }
	}
	pl.Size(left, train, held, p.M, p.X.Rows*p.X.Cols*p.X.Chans(), maxNodes, memoryCap)
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
	return budget.MemoryCap(block, maxNodes, func(l int) bool {
		c.MaxNodes = l
		return c.Estimate(outputsShape(train, p.X.Rows, p.X.Cols, p.X.Chans(), p.M), nil).FitBytes()+extra*int64(l)*int64(l) <= b.MaxBytes
	})
}

// Probe is what the probe of a budget measured on one problem: the
// held-out accuracy of its fit, the images it held out and the rates it
// measured.
type Probe = budget.Probe

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
	// The probe's sample, nodes and hold-out (internal/budget's probe.go).
	idx := budget.ProbeSample(p.X.Len(), cfg.Seed)
	n := len(idx)
	sub := p.subset(idx)
	c := cfg
	c.MaxNodes, c.BlockSize = budget.ProbeNodes(c.BlockSize)
	sel.watch, sel.checkpoints = nil, 0
	sel.Validation = budget.ProbeValidation
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
	r := budget.Measured(fit, (prof.Draw + prof.Scoring + prof.Selection).Seconds(), train, l)
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
	s, err := e.Checkpoint(e.on(path), l, alpha)
	return Score(s), err
}
