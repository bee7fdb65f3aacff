package selection

import (
	"fmt"

	"github.com/scn2d/scn/internal/holdout"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/timing"
	"gonum.org/v1/gonum/mat"
)

// Spec is what the evaluator reads of a selection: the prefix lengths
// scored (Points, plus a Budget's Checkpoints), the ridge terms and the
// Patience of a monitored fit.
type Spec struct {
	Points      int
	Ridges      []float64
	Patience    int
	Checkpoints int
}

// Path is the fit whose prefixes an evaluator scores, seen from its
// held-out images (the root package's *scn.Path with the held-out part).
type Path interface {
	// Nodes is the number of hidden nodes fitted so far.
	Nodes() int
	// Hidden calls f with the hidden outputs of nodes [from, to) on the
	// held-out images, batch by batch: rows images from image lo, node j
	// of the batch at hb[j*rows:(j+1)*rows].
	Hidden(from, to int, f func(lo, rows int, hb []float32))
	// PrefixSolves passes each the output weights of every prefix length
	// in grid (each at most maxL) for each ridge term of ridges in turn,
	// where they can be solved.
	PrefixSolves(maxL int, grid []int, ridges []float64, each func(l int, alpha float64, beta []float64)) error
	// Beta returns the output weights of the first l nodes at ridge alpha.
	Beta(l int, alpha float64) ([]float64, error)
}

// Evaluator scores the prefixes of a path on held-out data (the scores'
// arithmetic is internal/holdout's Held).
type Evaluator struct {
	H    *holdout.Held
	Spec Spec
	// HV holds the held-out hidden outputs of the nodes scored so far
	// (rows: images), as float64; nil before the first scoring.
	HV *mat.Dense
	// Monitoring during a fit (Patience): the checkpoints passed and the
	// patience's state.
	due holdout.Schedule
	pat holdout.Patience
	// Checkpoints are the scores of a Budget's checkpoints, in order.
	Checkpoints []holdout.Point
}

// New returns the evaluator of the held-out part h.
func New(h *holdout.Held, s Spec) *Evaluator {
	return &Evaluator{H: h, Spec: s, pat: holdout.Patience{N: s.Patience}}
}

// Grid returns the prefix lengths scored for a fit of l nodes: about
// Points values, half spread geometrically (small L matters on small data)
// and half linearly, always including l (holdout.Grid).
func (e *Evaluator) Grid(l int) []int {
	return holdout.Grid(l, e.Spec.Points, e.Spec.Checkpoints, holdout.MaxCheckpoints)
}

// extend extends HV with the held-out hidden outputs of nodes up to to of
// p (HV's columns are the nodes it held).
func (e *Evaluator) extend(p Path, to int) {
	prev := e.HV
	n := e.H.N
	from := 0
	if prev != nil {
		_, from = prev.Dims()
	}
	h := mat.NewDense(n, to, nil)
	if prev != nil {
		h.Slice(0, n, 0, from).(*mat.Dense).Copy(prev)
	}
	p.Hidden(from, to, func(lo, rows int, hb []float32) {
		for j := 0; j < to-from; j++ {
			for i, v := range hb[j*rows : (j+1)*rows] {
				h.Set(lo+i, from+j, float64(v))
			}
		}
	})
	e.HV = h
}

// ScorePath scores every (l, alpha) of the grid for the path's nodes.
func (e *Evaluator) ScorePath(p Path, grid []int) ([]holdout.Point, error) {
	if nodes := p.Nodes(); e.HV == nil || func() bool { _, c := e.HV.Dims(); return c < nodes }() {
		e.extend(p, p.Nodes())
	}
	return e.scoreAt(p, grid, p.Nodes())
}

// scoreAt scores the prefixes in grid (each at most l, the nodes whose
// held-out outputs HV holds) for every ridge term of the selection.
func (e *Evaluator) scoreAt(p Path, grid []int, l int) ([]holdout.Point, error) {
	var out []holdout.Point
	gridL := holdout.Upto(grid, l)
	// A prefix left out: alpha too small for its nodes' normal equations.
	err := p.PrefixSolves(l, gridL, e.Spec.Ridges, func(k int, alpha float64, beta []float64) {
		out = append(out, e.score(k, alpha, beta))
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("scn: selection: no (L, ridge) pair could be solved")
	}
	return out, nil
}

// score returns the held-out score of the first l nodes with weights beta
// (holdout.Held.Score).
func (e *Evaluator) score(l int, alpha float64, beta []float64) holdout.Point {
	hv := e.HV.RawMatrix()
	return e.H.Score(l, alpha, beta, hv.Data, hv.Stride)
}

// Monitor returns the check Patience runs during a fit (nil without
// Patience): at each prefix length of the grid it scores the nodes so far
// and asks to stop once the best score has not improved for Patience
// checkpoints in a row.
func (e *Evaluator) Monitor(maxNodes int) func(Path) bool {
	if e.Spec.Patience <= 0 {
		return nil
	}
	e.due.Grid = e.Grid(maxNodes)
	return func(p Path) bool {
		l := p.Nodes()
		if !e.due.Due(l) {
			return false
		}
		e.extend(p, l)
		scores, err := e.scoreAt(p, []int{l}, l)
		if err != nil {
			return false
		}
		return e.pat.Observe(holdout.Pick(scores, e.H.Classify), l, e.H.Classify)
	}
}

// Checkpoint scores the first l nodes of a path in the middle of a fit at
// ridge alpha on the held-out images (extending the held-out outputs that
// selection reuses afterwards) and records the score in Checkpoints.
func (e *Evaluator) Checkpoint(p Path, l int, alpha float64) (holdout.Point, error) {
	if k := len(e.Checkpoints); k > 0 && e.Checkpoints[k-1].Nodes == l && e.Checkpoints[k-1].Ridge == alpha {
		return e.Checkpoints[k-1], nil // scored already at this step
	}
	e.extend(p, l)
	beta, err := p.Beta(l, alpha)
	if err != nil {
		return holdout.Point{}, err
	}
	s := e.score(l, alpha, beta)
	e.Checkpoints = append(e.Checkpoints, s)
	return s, nil
}

// RidgeCheckpoints scores every checkpoint of a fit of l nodes at each
// ridge term of the selection other than fit, and returns the scores and
// the output weights of the best of them (nil if none;
// holdout.Held.CheckpointRidges). ge is the block engine holding every
// node of the fit; without it (nil) it scores nothing.
//
// This is the ridge term of a budget's fit on a large set
// (budget.Plan.FitWeights). The checkpoints are scored at the fit's own
// ridge term while the fit goes; at the end, each further ridge term of
// the plan's grid (budget.RidgeSteps, multiples of the fit's) is scored at
// every checkpoint too, from one Cholesky factor of G + alpha I of all the
// fit's nodes (G the engine's H^T H of the training part: the leading
// block of the factor is the factor of each prefix's;
// lsq.Gram.RidgePrefixes), and the best (L, ridge) pair wins. With the
// fit's own ridge the model keeps the fit's weights; with another, the
// prefix's weights at that ridge, solved on the same training part. Each
// further ridge term costs a factor of L^3/3 and one L x L buffer (the
// plan counts both: budget.Plan.FinishSeconds with
// timing.ExtraRidgeSeconds, and the memory cap), and keeps a budget that
// fitted many nodes from having to choose a short prefix because the
// fixed ridge overfits past it (natural-images, issue 31: held-out
// accuracy fell past 2000 of 12500 nodes at ridge 1).
func (e *Evaluator) RidgeCheckpoints(l int, fit float64, ge *lsq.Gram) ([]holdout.Point, []float64) {
	alphas := timing.ExtraRidges(e.Spec.Ridges, fit)
	if len(alphas) == 0 || ge == nil || l > ge.L || len(e.Checkpoints) == 0 {
		return nil, nil
	}
	buf := make([]float64, l*l)
	hv := e.HV.RawMatrix()
	return e.H.CheckpointRidges(e.Checkpoints, l, alphas, hv.Data, hv.Stride, func(alpha float64, grid []int) ([][]float64, bool) {
		return ge.RidgePrefixes(l, alpha, grid, buf)
	})
}

// Check returns the check a hold-out fit of at most maxNodes nodes runs
// after every block (nil when there is none): Patience's monitor; with
// fitWeights (a Budget on a large set), a checkpoint at the fit's ridge
// alpha at every multiple of Spec.Checkpoints nodes; and watch (a
// Budget's, if not nil), which runs every time and may stop the fit too.
func (e *Evaluator) Check(maxNodes int, fitWeights bool, alpha float64, watch func(Path) bool) func(Path) bool {
	check := e.Monitor(maxNodes)
	if fitWeights {
		// Every block's prefix is a candidate: scored as the fit goes
		// (a Budget's watch reads the same score).
		patience := check
		check = func(p Path) bool {
			if l := p.Nodes(); e.Spec.Checkpoints > 0 && l%e.Spec.Checkpoints == 0 {
				_, _ = e.Checkpoint(p, l, alpha)
			}
			return patience != nil && patience(p)
		}
	}
	if watch != nil {
		patience := check
		check = func(p Path) bool {
			// Both run: the watch records a checkpoint either way.
			w := watch(p)
			return (patience != nil && patience(p)) || w
		}
	}
	return check
}

// CheckpointChoice returns the best of a fitWeights selection's
// candidates, the checkpoints of the fit p (its last nodes scored too at
// the fit's ridge term fit, if the fit stopped between checkpoints) and
// the further ridge terms' scores at them (RidgeCheckpoints, ge as there),
// with those candidates and the output weights of the best further ridge
// term's pair (nil if none).
func (e *Evaluator) CheckpointChoice(p Path, fit float64, ge *lsq.Gram) (best holdout.Point, scores []holdout.Point, beta []float64, err error) {
	if l := p.Nodes(); len(e.Checkpoints) == 0 || e.Checkpoints[len(e.Checkpoints)-1].Nodes != l {
		// The fit's last nodes were not scored (a fit that stopped by
		// itself between checkpoints).
		if _, err := e.Checkpoint(p, l, fit); err != nil {
			return holdout.Point{}, nil, nil, err
		}
	}
	scores = e.Checkpoints
	extra, beta := e.RidgeCheckpoints(p.Nodes(), fit, ge)
	if len(extra) > 0 {
		scores = append(append([]holdout.Point(nil), scores...), extra...)
	}
	return holdout.Pick(scores, e.H.Classify), scores, beta, nil
}

// Metric is the name of the score a choice is made by: "accuracy"
// (classification) or "rmse" (regression).
func (e *Evaluator) Metric() string { return MetricOf(e.H.Classify) }

// MetricOf is the name of the score a choice is made by: "accuracy" if
// classify, else "rmse".
func MetricOf(classify bool) string {
	if classify {
		return "accuracy"
	}
	return "rmse"
}

// Stopped is the nodes at which Patience stopped the fit, 0 if it did not.
func (e *Evaluator) Stopped() int { return e.pat.Stopped }
