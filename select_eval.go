package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/holdout"
	"gonum.org/v1/gonum/mat"
)

// Score is the validation score of one candidate (l, alpha).
type Score struct {
	Nodes    int
	Ridge    float64
	Accuracy float64 // share of held-out images classified right (0 for regression)
	RMSE     float64 // RMSE of the held-out outputs
	Direct   bool    // scored with direct links (Config.DirectLink)
}

// better reports whether s beats t: higher accuracy (classification), then
// lower RMSE, then fewer nodes, then the larger ridge term
// (holdout.Point.Better).
func (s Score) better(t Score, classify bool) bool {
	return holdout.Point(s).Better(holdout.Point(t), classify)
}

// pick returns the best score.
func pick(scores []Score, classify bool) Score {
	return Score(holdout.Pick(points(scores), classify))
}

// points returns scores as internal/holdout's Points.
func points(scores []Score) []holdout.Point {
	out := make([]holdout.Point, len(scores))
	for i, s := range scores {
		out[i] = holdout.Point(s)
	}
	return out
}

// scores returns internal/holdout's Points as Scores.
func scores(pts []holdout.Point) []Score {
	out := make([]Score, len(pts))
	for i, p := range pts {
		out[i] = Score(p)
	}
	return out
}

// evaluator scores the prefixes of a path on held-out data (the scores'
// arithmetic is internal/holdout's Held).
type evaluator struct {
	held     Problem
	h        *holdout.Held
	sel      Selection
	classify bool
	// Monitoring during a fit (Patience): the held-out hidden outputs of
	// the nodes so far, the checkpoints passed and the patience's state.
	hv  *mat.Dense
	due holdout.Schedule
	pat holdout.Patience
	// checkpoints are the scores of a Budget's checkpoints, in order.
	checkpoints []Score
}

func newEvaluator(held Problem, s Selection) *evaluator {
	e := &evaluator{held: held, sel: s, classify: held.Classes != nil, pat: holdout.Patience{N: s.Patience}}
	e.h = holdout.NewHeld(held.X.Len(), held.M, held.T, e.classify)
	return e
}

// grid returns the prefix lengths scored for a fit of l nodes: about
// Points values, half spread geometrically (small L matters on small data)
// and half linearly, always including l (holdout.Grid).
func (e *evaluator) grid(l int) []int {
	return holdout.Grid(l, e.sel.Points, e.sel.checkpoints, maxCheckpointsInGrid)
}

// heldHidden returns the hidden outputs of nodes [from, to) of m on the
// held-out images appended to prev (rows: images), as float64.
func (e *evaluator) heldHidden(m *Model, prev *mat.Dense, to int) *mat.Dense {
	n := e.held.X.Len()
	from := 0
	if prev != nil {
		_, from = prev.Dims()
	}
	h := mat.NewDense(n, to, nil)
	if prev != nil {
		h.Slice(0, n, 0, from).(*mat.Dense).Copy(prev)
	}
	part := &Model{Kind: m.Kind, Activation: m.Activation, Rows: m.Rows, Cols: m.Cols, Channels: m.Channels, M: m.M}
	np := m.ParamsPerNode()
	part.Params = m.Params[from*np : to*np]
	part.Bias = m.Bias[from:to]
	part.hidden(e.held.X, func(lo, rows int, hb []float32) {
		for j := 0; j < to-from; j++ {
			for i, v := range hb[j*rows : (j+1)*rows] {
				h.Set(lo+i, from+j, float64(v))
			}
		}
	})
	return h
}

// scorePath scores every (l, alpha) of the grid for the path's model.
func (e *evaluator) scorePath(path *Path, grid []int) ([]Score, error) {
	hv := e.hv
	if nodes := path.Nodes(); hv == nil || func() bool { _, c := hv.Dims(); return c < nodes }() {
		hv = e.heldHidden(path.Model(), hv, path.Nodes())
	}
	e.hv = hv
	return e.scoreAt(path, grid, path.Nodes())
}

// scoreAt scores the prefixes in grid (each at most l, the nodes whose
// held-out outputs e.hv holds) for every ridge term of the selection.
func (e *evaluator) scoreAt(path *Path, grid []int, l int) ([]Score, error) {
	var out []Score
	gridL := holdout.Upto(grid, l)
	// A prefix left out: alpha too small for its nodes' normal equations.
	err := path.prefixSolves(l, gridL, e.sel.Ridges, func(k int, alpha float64, beta []float64) {
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
func (e *evaluator) score(l int, alpha float64, beta []float64) Score {
	hv := e.hv.RawMatrix()
	return Score(e.h.Score(l, alpha, beta, hv.Data, hv.Stride))
}

// monitor returns the check Patience runs during a fit (nil without
// Patience): at each prefix length of the grid it scores the nodes so far
// and asks to stop once the best score has not improved for Patience
// checkpoints in a row.
func (e *evaluator) monitor(maxNodes int) func(*Path) bool {
	if e.sel.Patience <= 0 {
		return nil
	}
	e.due.Grid = e.grid(maxNodes)
	return func(path *Path) bool {
		l := path.Nodes()
		if !e.due.Due(l) {
			return false
		}
		e.hv = e.heldHidden(path.Model(), e.hv, l)
		scores, err := e.scoreAt(path, []int{l}, l)
		if err != nil {
			return false
		}
		return e.pat.Observe(holdout.Point(pick(scores, e.classify)), l, e.classify)
	}
}

// choice assembles the record of a selection.
func (e *evaluator) choice(method string, folds, held int, best Score, scores []Score, fitNodes int) *Choice {
	metric := "rmse"
	if e.classify {
		metric = "accuracy"
	}
	return &Choice{
		Method: method, Held: held, Folds: folds, Metric: metric, Direct: best.Direct,
		Nodes: best.Nodes, Ridge: best.Ridge, Accuracy: best.Accuracy, RMSE: best.RMSE,
		StoppedAt: e.pat.Stopped, Curve: scores, FitNodes: fitNodes, Candidates: len(scores),
	}
}
