package scn

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/holdout"
	"github.com/scn2d/scn/internal/memest"
	"github.com/scn2d/scn/internal/selection"
)

// Selection says how Config.Select chooses the number of hidden nodes L and
// the ridge term on data held out from training, in the manner of
// scikit-learn's RidgeCV: one fit gives every candidate model, because the
// model after l nodes with ridge alpha is an l x l problem away (Path).
type Selection struct {
	// Validation is the share of the training data held out to score the
	// candidates, in (0, 1): stratified by class for classification (every
	// class keeps at least one image in both parts). Ignored when Folds > 1.
	Validation float64
	// Folds > 1 selects by k-fold cross-validation instead: Folds fits, each
	// scored on the fold it left out, then one fit on all the data with the
	// chosen L and ridge term. 0 or 1: a single hold-out.
	Folds int
	// Ridges is the grid of ridge terms alpha (each finite and >= 0). Nil
	// means DefaultRidges().
	Ridges []float64
	// Points is how many prefix lengths l are scored, spread over 1..L (half
	// on a geometric, half on a linear grid; L itself always). 0 means 40.
	Points int
	// Patience > 0 stops growing once the best validation score has not
	// improved at this many consecutive prefix lengths of the grid: a fit
	// asked for 20000 nodes does not pay for those that only overfit.
	Patience int
	// TryDirect also scores every prefix (and L = 0) with direct links
	// (Config.DirectLink; see direct_select.go) and keeps whichever kind
	// scores best. A configuration with DirectLink set scores only those.
	TryDirect bool
	// Grow lets selection go past L_max while the held-out score still
	// improves (see select_grow.go): a fit whose best prefix lies in the
	// last quarter of its nodes is followed by a fit of twice the nodes,
	// until the best prefix no longer moves up or gains, or GrowLimit,
	// Afford or Deadline stops it. Choice.Growth records what happened.
	Grow bool
	// GrowLimit bounds the nodes growth may reach (0: 64 x L_max, at most
	// the library's limit).
	GrowLimit int
	// Afford, if set, is asked before each growth fit with its
	// configuration; an error stops growth, its message the reason (scn
	// train checks the memory limit here).
	Afford func(Config) error
	// Deadline, if not zero, stops growth when the next fit, at twice the
	// pace of the last, would end after it.
	Deadline time.Time
	// Growing, if set, is called before each growth fit with its nodes.
	Growing func(nodes int)

	// Uncalibrated leaves a classifier without the calibration map that
	// Select and FitHeldOut otherwise fit of its outputs on the held-out
	// images (Model.Calibration, Model.Probabilities; select_calib.go).
	// Regression problems, SelectStream and a Budget's selection fit none.
	Uncalibrated bool
	// Coverage in (0, 1) records split-conformal intervals of that
	// coverage from a regression model's held-out residuals
	// (Model.Interval); 0: none.
	Coverage float64
	// ClassWeights, if not nil, weighs each class's images (indexed like
	// the problem's classes) in the output weights' least squares
	// (Model.Reweighted); L and the ridge term are chosen unweighted.
	ClassWeights []float64

	// fixed (FitHeldOut): no choice, the fit's L and ridge term are kept.
	fixed bool

	// A Budget's additions: every multiple of checkpoints joins the grid,
	// and watch runs after every block of a hold-out fit and stops growth
	// when it returns true.
	checkpoints int
	watch       func(*Path, *evaluator) bool
	// fitWeights (a Budget on a large set): the checkpoints, scored at the
	// fit's ridge term while fitting, are the only candidates, and the
	// model is the fit's own prefix with the weights the fit solved on
	// the training part; there is no scoring of other (L, ridge) pairs
	// and no re-solve with the held-out images. At L = 7000 on MNIST
	// those took 27 s of a 60 s budget; without them the fit grows.
	fitWeights bool
}

// maxCheckpointsInGrid bounds the checkpoints a Budget adds to the grid.
const maxCheckpointsInGrid = holdout.MaxCheckpoints

// DefaultRidges returns the default ridge grid: 0 (the minimum-norm
// least-squares solution) and the decades 1e-4 ... 1e4. The ridge term is
// absolute: it adds alpha ||beta||^2 to ||H beta - T||^2 summed over the
// training images.
func DefaultRidges() []float64 { return holdout.DefaultRidges() }

// Choice records what a selection chose and the scores it chose from. It is
// saved in the model file.
type Choice struct {
	Method     string  // "holdout" or "kfold"
	Held       int     // images scored (held out, or all of them over the folds)
	Folds      int     // folds (1 for a hold-out)
	Metric     string  // "accuracy" (classification) or "rmse" (regression)
	Nodes      int     // the chosen L
	Ridge      float64 // the chosen ridge term
	Accuracy   float64 // validation accuracy of the choice (classification)
	RMSE       float64 // validation RMSE of the choice
	Refit      string  // how the final output weights were obtained
	StoppedAt  int     // nodes at which Patience stopped growth, 0 if it did not
	Curve      []Score // every (l, alpha) scored
	FitNodes   int     // nodes of the fit(s) the choice was made from
	Candidates int     // (l, alpha) pairs scored
	// Direct is set when the chosen model has direct links (Score.Direct).
	Direct bool
	// Growth says how growth past L_max went (Selection.Grow): the fits'
	// L_max in turn and why growth stopped; empty without growth.
	Growth string
}

func (s Selection) withDefaults() Selection {
	if s.Ridges == nil {
		s.Ridges = DefaultRidges()
	}
	if s.Points == 0 {
		s.Points = 40
	}
	return s
}

// Validate reports the first impossible selection setting, if any.
func (s Selection) Validate() error {
	if err := holdout.CheckSettings(s.Folds, s.Validation, s.Points, s.Patience, s.Ridges); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return nil
}

// Select fits on p and chooses the number of hidden nodes and the ridge term
// that score best on held-out data (Selection), returning the chosen model
// with the choice recorded in Model.Selection.
//
// With a hold-out, the model's nodes are the first L of the one fit on the
// training part, and its output weights are re-solved on all of p (training
// and held-out parts) with the chosen ridge term: one more pass over the
// held-out images and an L x L problem, not a second fit. With k folds, a
// last fit on all of p with the chosen L and ridge gives the model. If ctx
// is cancelled during a hold-out fit, Select returns the model of the nodes
// built so far (without selection) together with ctx's error.
func (c Config) Select(ctx context.Context, p Problem, s Selection, progress func(Step)) (*Model, error) {
	return c.selectWith(ctx, p, s, progress, runOpts{})
}

// selectWith is Select with the fits run with o (o.check is Select's own).
func (c Config) selectWith(ctx context.Context, p Problem, s Selection, progress func(Step), o runOpts) (*Model, error) {
	if c.mode(o) == modeLocal {
		if err := c.Validate(); err != nil {
			return nil, err
		}
		return c.selectLocal(ctx, p, s, progress)
	}
	if err := c.selectable(s); err != nil {
		return nil, err
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	if err := s.checkExtrasProblem(p); err != nil {
		return nil, err
	}
	s = s.withDefaults()
	if s.Grow {
		return c.selectGrow(ctx, p, s, progress, o)
	}
	return c.selectOnce(ctx, p, s, progress, o)
}

// selectOnce is Select without growth past L_max.
func (c Config) selectOnce(ctx context.Context, p Problem, s Selection, progress func(Step), o runOpts) (*Model, error) {
	if s.Folds > 1 {
		return c.selectFolds(ctx, p, s, progress, o)
	}
	train, held, err := splitHoldout(p, s.Validation, c.Seed)
	if err != nil {
		return nil, err
	}
	tp, hp := p.subset(train), p.subset(held)
	ev := newEvaluator(hp, s)
	var watch func(selection.Path) bool
	if s.watch != nil {
		watch = func(sp selection.Path) bool { return s.watch(sp.(heldPath).p, ev) }
	}
	o.check = nil
	if check := ev.Check(c.MaxNodes, s.fitWeights, c.Ridge, watch); check != nil {
		o.check = func(path *Path) bool { return check(ev.on(path)) }
	}
	path, err := c.fitPath(ctx, tp, progress, o)
	if path == nil {
		return nil, err
	}
	if err != nil {
		// Cancelled: no choice can be made; the nodes built so far, fitted
		// on the training part, come back with the error, as Fit does.
		return path.Model(), err
	}
	if s.fitWeights {
		return c.selectCheckpoint(path, ev, p, tp, hp)
	}
	best := Score{Nodes: path.Nodes(), Ridge: c.Ridge}
	var scores []Score
	var ds *directSys
	if !s.fixed {
		bp, pts, dsys, err := ev.Choose(ev.on(path), c.directFit(s, path, hp.X, direct.Plan(p.X.Len(), p.X.Chans(), p.X.Rows, p.X.Cols)))
		if err != nil {
			return nil, err
		}
		best, scores, ds = Score(bp), asScores(pts), dsys
	}
	var m *Model
	if best.Direct {
		m, err = refitDirect(path, ds, best.Nodes, best.Ridge, hp, p)
	} else {
		m, err = refit(path, best.Nodes, best.Ridge, hp)
	}
	if err != nil {
		return nil, err
	}
	m.Summary.Samples = p.X.Len()
	m.Selection = ev.choice("holdout", 1, hp.X.Len(), best, scores, path.Nodes())
	m.Selection.Refit = fmt.Sprintf("nodes of the fit on %d training images; output weights re-solved on all %d with the chosen ridge term", tp.X.Len(), p.X.Len())
	if s.fixed {
		m.Selection = nil
	}
	trainModel := func() (*Model, error) {
		if best.Direct {
			// The chosen model has direct links: its twin on the training
			// part has them too (the same pooling), solved there.
			return withDirect(path.Model(), best.Nodes, tp.X, tp.T, m.Direct.Pool, best.Ridge)
		}
		return path.Solve(best.Nodes, best.Ridge)
	}
	if m, err = s.extras(p).HoldOut(m, trainModel, tp, hp, p); err != nil {
		return nil, err
	}
	return c.robustFinal(m, p)
}

// selectCheckpoint is the end of a hold-out selection with fitWeights: the
// best checkpoint's prefix of path, with the fit's own output weights.
func (c Config) selectCheckpoint(path *Path, ev *evaluator, p, tp, hp Problem) (*Model, error) {
	bp, pts, beta, err := ev.CheckpointChoice(ev.on(path), c.Ridge, gramOf(path))
	if err != nil {
		return nil, err
	}
	best, scores := Score(bp), asScores(pts)
	var m *Model
	if best.Ridge == c.Ridge {
		m, err = path.Prefix(best.Nodes)
	} else {
		// The best pair is a further ridge term's (selection.Evaluator.RidgeCheckpoints).
		m, _ = path.model.truncate(best.Nodes, beta)
		m.Config.Ridge = best.Ridge
		m.Summary.Trace = path.model.Summary.Trace[:min(best.Nodes, len(path.model.Summary.Trace))]
		m.Summary.TrainRMSE, err = path.trainRMSE(m)
	}
	if err != nil {
		return nil, err
	}
	m.Selection = ev.choice("holdout", 1, hp.X.Len(), best, scores, path.Nodes())
	m.Selection.Refit = fmt.Sprintf("the fit's own output weights, solved on its %d training images (the %d held-out images chose L among the checkpoints)", tp.X.Len(), hp.X.Len())
	if best.Ridge != c.Ridge {
		m.Selection.Refit = fmt.Sprintf("output weights of the chosen prefix at ridge %g (the fit's is %g), solved on the fit's %d training images (the %d held-out images chose L and the ridge term among the checkpoints)", best.Ridge, c.Ridge, tp.X.Len(), hp.X.Len())
	}
	own := m
	if m, err = ev.sel.extras(tp).HoldOut(m, func() (*Model, error) { return own, nil }, tp, hp, tp); err != nil {
		return nil, err
	}
	return c.robustFinal(m, p)
}

// robustFinal re-solves a selected model's output weights robustly on all
// of p when the configuration asks (Config.Robust); L and the ridge term
// were chosen on the plain solves.
func (c Config) robustFinal(m *Model, p Problem) (*Model, error) {
	if !c.Robust {
		return m, nil
	}
	r, _, err := m.Robust(p)
	if err != nil {
		return nil, err
	}
	r.Selection.Refit += "; then robustly (Config.Robust: kernel-density-weighted least squares)"
	return r, nil
}

// selectFolds is Select by k-fold cross-validation.
func (c Config) selectFolds(ctx context.Context, p Problem, s Selection, progress func(Step), o runOpts) (*Model, error) {
	o.check = nil
	folds, err := splitFolds(p, s.Folds, c.Seed)
	if err != nil {
		return nil, err
	}
	// The fold loop, the choice and the last fit's solve are
	// internal/selection's KFold; the fits and the models are these.
	pool := direct.Plan(p.X.Len(), p.X.Chans(), p.X.Rows, p.X.Cols)
	var ev *evaluator
	var path *Path
	kf := selection.KFold[*Model]{K: len(folds), MaxNodes: c.MaxNodes, Classify: p.Classes != nil}
	kf.Fold = func(f int) ([]holdout.Point, int, int, error) {
		train := foldTraining(folds, f)
		// The previous fold's fit (its candidates' weights over the image,
		// its factor, its held-out outputs) is garbage now: collected and
		// returned to the system before this fold allocates its own, the
		// peak is one fold's, not two (on 30 photos of 243 x 320, 2DRVFL:
		// 177 MB peak RSS for an estimate of 149 MB without).
		debug.FreeOSMemory()
		hp := p.subset(folds[f])
		ev = newEvaluator(hp, s)
		path, err := c.fitPath(ctx, p.subset(train), progress, o)
		if err != nil {
			return nil, 0, 0, err
		}
		scores, _, err := ev.Candidates(ev.on(path), ev.Grid(c.MaxNodes), c.directFit(s, path, hp.X, pool))
		return scores, hp.X.Len(), path.Nodes(), err
	}
	kf.Final = func(nodes int) error {
		final := c
		final.MaxNodes = nodes
		debug.FreeOSMemory() // the last fold's fit, as above
		path, err = final.fitPath(ctx, p, progress, o)
		return err
	}
	kf.Solve = func(pt holdout.Point) (*Model, error) { return path.Solve(min(pt.Nodes, path.Nodes()), pt.Ridge) }
	kf.Direct = func(pt holdout.Point) (*Model, error) {
		return withDirect(path.Model(), min(pt.Nodes, path.Nodes()), p.X, p.T, pool, pt.Ridge)
	}
	m, bp, pts, held, minNodes, err := kf.Run()
	if err != nil {
		return nil, err
	}
	best := Score(bp)
	m.Config.MaxNodes = c.MaxNodes
	m.Selection = ev.choice("kfold", s.Folds, held, best, asScores(pts), minNodes)
	if best.Direct {
		m.Selection.Refit = fmt.Sprintf("a last fit on all %d training images with the chosen L, then output weights over the nodes and the direct features with the chosen ridge term", p.X.Len())
		return c.foldExtras(ctx, m, p, folds, best, s)
	}
	m.Selection.Refit = fmt.Sprintf("a last fit on all %d training images with the chosen L and ridge term", p.X.Len())
	if m, err = c.foldExtras(ctx, m, p, folds, best, s); err != nil {
		return nil, err
	}
	return c.robustFinal(m, p)
}

// EstimateBytes returns the memory selection needs on top of the fit of c
// on n images of rows x cols with m outputs: the training part's copy of
// the images and targets, the held-out hidden outputs (kept while scoring,
// and twice more for the final weights: a copy and its transpose for
// their Gram matrix), three L x L matrices (the normal equations, their
// factor for one ridge term, and the final solve's), and the nodes'
// weights over the image that scoring expands.
//
// Deprecated: use Config.Estimate with the Selection; its Selection is
// this estimate.
func (s Selection) EstimateBytes(c Config, n, rows, cols, m int) int64 {
	return s.selectionBytes(c, n, rows, cols, 1, m)
}

// EstimateBytesC is EstimateBytes for images of chans planes of rows x cols.
//
// Deprecated: use Config.Estimate with the Selection; its Selection is
// this estimate.
func (s Selection) EstimateBytesC(c Config, n, rows, cols, chans, m int) int64 {
	return s.selectionBytes(c, n, rows, cols, chans, m)
}

// selectionBytes is Estimate's Selection: EstimateBytesC.
func (s Selection) selectionBytes(c Config, n, rows, cols, chans, m int) int64 {
	total := memest.Selection{N: n, Rows: rows, Cols: cols, Chans: chans, M: m, Nodes: c.MaxNodes,
		Folds: s.Folds, Validation: s.Validation, PredictBatch: predictBatch}.Bytes()
	if s.TryDirect || c.DirectLink {
		total += direct.Bytes(n, rows, cols, chans, c.MaxNodes)
	}
	return total
}

// selectable reports a configuration or selection that model selection
// refuses: an invalid one, or a deep network (selection chooses prefixes
// of one layer).
func (c Config) selectable(s Selection) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if c.mode(runOpts{}) == modeDeep {
		return fmt.Errorf("%w: model selection chooses prefixes of one layer; fit a deep network with Fit", ErrDeep)
	}
	if err := s.validateExtras(c); err != nil {
		return err
	}
	return s.Validate()
}
