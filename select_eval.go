package scn

import (
	"github.com/scn2d/scn/internal/holdout"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/selection"
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

// asScores returns internal/holdout's Points as Scores.
func asScores(pts []holdout.Point) []Score {
	out := make([]Score, len(pts))
	for i, p := range pts {
		out[i] = Score(p)
	}
	return out
}

// evaluator is internal/selection's Evaluator of the held-out part held
// (the grid, the scoring, the monitor and the checkpoints live there).
type evaluator struct {
	*selection.Evaluator
	held Problem
	sel  Selection
}

func newEvaluator(held Problem, s Selection) *evaluator {
	h := holdout.NewHeld(held.X.Len(), held.M, held.T, held.Classes != nil)
	spec := selection.Spec{Points: s.Points, Ridges: s.Ridges, Patience: s.Patience, Checkpoints: s.checkpoints}
	return &evaluator{Evaluator: selection.New(h, spec), held: held, sel: s}
}

// on is path seen from the evaluator's held-out images.
func (e *evaluator) on(path *Path) heldPath { return heldPath{path, e.held.X} }

// heldPath is a path with held-out images: internal/selection's Path.
type heldPath struct {
	p    *Path
	held Images
}

func (h heldPath) Nodes() int { return h.p.Nodes() }

func (h heldPath) Beta(l int, alpha float64) ([]float64, error) {
	return h.p.beta(h.p.Model(), l, alpha)
}

func (h heldPath) PrefixSolves(maxL int, grid []int, ridges []float64, each func(l int, alpha float64, beta []float64)) error {
	return h.p.prefixSolves(maxL, grid, ridges, each)
}

// Hidden runs the hidden outputs of nodes [from, to) of the path's model
// on the held-out images.
func (h heldPath) Hidden(from, to int, f func(lo, rows int, hb []float32)) {
	m := h.p.Model()
	part := &Model{Kind: m.Kind, Activation: m.Activation, Rows: m.Rows, Cols: m.Cols, Channels: m.Channels, M: m.M}
	np := m.ParamsPerNode()
	part.Params = m.Params[from*np : to*np]
	part.Bias = m.Bias[from:to]
	part.hidden(h.held, f)
}

// gramOf returns the block engine of path when it holds every node of the
// path (the further ridge terms of a Budget's checkpoints need it), else
// nil.
func gramOf(path *Path) *lsq.Gram {
	ge, _ := path.eng.(*lsq.Gram)
	if path.Nodes() > path.independent {
		return nil
	}
	return ge
}

// choice assembles the record of a selection.
func (e *evaluator) choice(method string, folds, held int, best Score, scores []Score, fitNodes int) *Choice {
	return &Choice{
		Method: method, Held: held, Folds: folds, Metric: e.Metric(), Direct: best.Direct,
		Nodes: best.Nodes, Ridge: best.Ridge, Accuracy: best.Accuracy, RMSE: best.RMSE,
		StoppedAt: e.Stopped(), Curve: scores, FitNodes: fitNodes, Candidates: len(scores),
	}
}
