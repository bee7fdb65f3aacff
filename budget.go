package scn

import (
	"context"
	"fmt"
	"time"

	"github.com/scn2d/scn/internal/budget"
	"github.com/scn2d/scn/internal/budgetflow"
	"github.com/scn2d/scn/internal/localplan"
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
	// that won the probe of internal/budgetflow's grey.go, in the meaning
	// a photo budget gives Rates (seconds per multiply-add); nil means
	// measure them. (Rates, which scn train measures for the global plan
	// while choosing the images' preparation, are not those.)
	LocalRates *Rates
	// Seed fixes every random draw of the fit (nodes, hold-out split).
	Seed uint64
	// Photo is the choice of a photo budget's probe (ChoosePhotos) that
	// the caller ran on its inputs, the problem Fit gets being the input
	// chosen; nil means today's plan (5 x 5 filters), or with PhotoProbe
	// Fit probes the filter sizes on that problem itself.
	Photo *PhotoChoice
	// PhotoProbe makes a budget on photos without Photo run the probe of
	// ChoosePhotos (off: measured not to win, docs/local.md).
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
var ErrBudget = budgetflow.ErrBudget

// budgetChoice returns the learner and settings for a training set of n
// images of p's shape (budgetflow.Choose): the default preset's 2DSCN with
// model selection on small sets, the fast preset's RVFL on large ones.
func budgetChoice(n int, p Problem, seed uint64) (Config, Selection, string) {
	c := Default(SCN2D)
	if n >= budgetLargeSet {
		c = Fast(RVFL).ForImages(p.X.Rows, p.X.Cols)
	}
	c.Seed = seed
	g := budgetflow.Choose(n, c.Ridge)
	return c, Selection{Validation: g.Validation, Points: g.Points, Ridges: g.Ridges, fitWeights: g.FitWeights, Uncalibrated: true}, g.Why
}

// budgetLargeSet is the training set size from which a budget takes the
// fast RVFL rather than the default 2DSCN.
const budgetLargeSet = budgetflow.LargeSet

func (b Budget) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// Fit plans, fits and selects within the budget, and returns the model with
// the plan and what happened in Model.Budget. progress, if not nil, gets every
// step; plan, if not nil, is called once the plan is made, before the fit
// (internal/budgetflow's Fit).
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
	return budgetflow.Fit(ctx, b.flow(), &budgetJob{b: b, p: p, progress: progress}, plan)
}

// flow returns what internal/budgetflow reads of b.
func (b Budget) flow() budgetflow.Budget {
	return budgetflow.Budget{Duration: b.Duration, Start: b.Start, Now: b.Now, MaxBytes: b.MaxBytes,
		Rates: b.Rates, LocalRates: b.LocalRates, Seed: b.Seed, NodeLimit: maxNodes, Photo: b.Photo, PhotoProbe: b.PhotoProbe}
}

// budgetConfigs is internal/budgetflow's view of configurations.
type budgetConfigs struct{}

func (budgetConfigs) Info(c Config) budgetflow.Info {
	return budgetflow.Info{Kind: c.Kind, Preset: c.Preset, BlockSize: c.BlockSize, Ridge: c.Ridge, MaxNodes: c.MaxNodes, Seed: c.Seed, Local: c.Local, Augmented: c.Augment != nil}
}

func (budgetConfigs) Filters(c Config, f int, clone bool) Config {
	if clone {
		c.Local = c.Local.Clone()
	}
	c.Local.Filters = f
	c.MaxNodes = c.Local.Outputs()
	return c
}

func (budgetConfigs) Bytes(c Config, s budgetflow.Shape) int64 {
	return c.Estimate(Shape{N: s.N, Rows: s.Rows, Cols: s.Cols, Channels: s.Chans, TargetDim: s.M}, nil).FitBytes()
}

// budgetJob is a budget's training set and run for internal/budgetflow
// (budgetflow.Job); cfg and sel are the global learner's, once chosen.
type budgetJob struct {
	budgetConfigs
	b        Budget
	p        Problem
	progress func(Step)
	cfg      Config
	sel      Selection
}

func (j *budgetJob) Shape() budgetflow.Shape {
	return budgetflow.Shape{N: j.p.X.Len(), Rows: j.p.X.Rows, Cols: j.p.X.Cols, Chans: j.p.X.Chans(), M: j.p.M}
}

func (j *budgetJob) Classify() bool { return j.p.Classes != nil }

func (j *budgetJob) Holdout(idx []int, share float64, seed uint64) ([]int, []int, error) {
	if idx == nil {
		return splitHoldout(j.p, share, seed)
	}
	return splitHoldout(j.p.subset(idx), share, seed)
}

func (j *budgetJob) Sized(c Config, nodes, block int) Config {
	c.MaxNodes, c.BlockSize = nodes, block
	return c
}

func (j *budgetJob) Global() (Config, budgetflow.Global) {
	g := budgetflow.Global{}
	j.cfg, j.sel, g.Why = budgetChoice(j.p.X.Len(), j.p, j.b.Seed)
	g.Validation, g.Points, g.Ridges, g.FitWeights = j.sel.Validation, j.sel.Points, j.sel.Ridges, j.sel.fitWeights
	if g.Ridges == nil {
		g.Ridges = DefaultRidges()
	}
	g.Staged = j.cfg.mode(runOpts{}) == modeOnePass
	return j.cfg, g
}

func (j *budgetJob) Probe(ctx context.Context) (Rates, error) {
	r, _, _, err := probe(ctx, j.cfg, j.sel, j.p)
	return r, err
}

// FitGlobal fits the global learner as the plan says, block by block
// (or in stages), with model selection among its checkpoints.
func (j *budgetJob) FitGlobal(ctx context.Context, pl BudgetPlan, checkpoint func(int, func() (float64, float64, bool)) bool, stage func(int) int) (*Model, int, string, error) {
	cfg, sel := j.cfg, j.sel
	cfg.MaxNodes, cfg.BlockSize = pl.MaxNodes, pl.BlockSize
	sel.Ridges, sel.checkpoints, sel.fitWeights = pl.Ridges, pl.BlockSize, pl.FitWeights
	sel.watch = func(path *Path, ev *evaluator) bool {
		l := path.Nodes()
		return checkpoint(l, func() (float64, float64, bool) {
			s, err := ev.checkpoint(path, l, cfg.Ridge)
			return s.Accuracy, s.RMSE, err == nil
		})
	}
	m, err := cfg.selectWith(ctx, j.p, sel, j.progress, runOpts{blockByBlock: stage == nil, stages: stage})
	if err != nil {
		return m, 0, "", err
	}
	return m, m.Selection.FitNodes, m.Summary.Stop.String(), nil
}

func (j *budgetJob) Sample(idx []int) func(context.Context, Config) error {
	q := j.p.subset(idx)
	return func(ctx context.Context, c Config) error {
		_, err := c.Fit(ctx, q, nil)
		return err
	}
}

func (j *budgetJob) Nodes(m *Model) (int, int) {
	if m.Selection == nil {
		return m.Nodes(), 0
	}
	return m.Nodes(), len(m.Selection.Curve)
}

func (j *budgetJob) Done(m *Model, rec *BudgetRecord, spent bool) {
	m.Budget = rec
	if spent {
		m.Summary.Stop = BudgetSpent
	}
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
	return budgetflow.ProbeInputs(n, flowInputs(ps, nil), func(i int) (Probe, error) {
		cfg, sel, _ := budgetChoice(n, ps[i], b.Seed)
		r, acc, held, err := probe(ctx, cfg, sel, ps[i])
		return Probe{Accuracy: acc, Held: held, Rates: r}, err
	})
}

// flowInputs returns what internal/budgetflow reads of the problems ps,
// labelled (nil: unlabelled).
func flowInputs(ps []Problem, labels []string) []budgetflow.Input {
	in := make([]budgetflow.Input, len(ps))
	for i, p := range ps {
		in[i] = budgetflow.Input{Dim: p.X.Dim(), T: p.T, Err: p.check(),
			Photos: localplan.Photos(p.Classes != nil, p.X.Rows, p.X.Cols, p.X.Chans()),
			Shape:  budgetflow.Shape{N: p.X.Len(), Rows: p.X.Rows, Cols: p.X.Cols, Chans: p.X.Chans(), M: p.M}}
		if labels != nil {
			in[i].Label = labels[i]
		}
	}
	return in
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
	cfg := m.Config
	cfg.Ridge = rec.Plan.FitRidge
	var out *Model
	var err error
	if cfg.Local != nil {
		// The model's configuration (its filters) fitted again, its ridge
		// choice as far as the clock let it go (budgetflow.ReplayLocal).
		curve := 0
		if m.Selection != nil {
			curve = len(m.Selection.Curve)
		}
		out, err = budgetflow.ReplayLocal(ctx, &budgetJob{p: p, progress: progress}, cfg, rec, m.Selection != nil, curve)
	} else {
		cfg.MaxNodes = rec.FitNodes
		cfg.BlockSize = rec.Plan.BlockSize
		sel := Selection{Validation: rec.Plan.Validation, Ridges: rec.Plan.Ridges, checkpoints: rec.Plan.BlockSize, fitWeights: rec.Plan.FitWeights, Uncalibrated: true}
		sel.Points = rec.Plan.Points
		if out, err = cfg.selectWith(ctx, p, sel, progress, runOpts{blockByBlock: true}); err == nil {
			out.Config.MaxNodes = rec.Plan.MaxNodes
		}
	}
	if err != nil {
		return nil, err
	}
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
