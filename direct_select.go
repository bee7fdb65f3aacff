package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/selection"
)

// Model selection with direct links (the scoring is internal/selection's
// DirectScores).

// directFinal is the end of Fit with direct links: the output weights of
// all of m's nodes and the features of p with the configuration's ridge.
func (c Config) directFinal(m *Model, p Problem) (*Model, error) {
	pool := direct.Plan(p.X.Len(), p.X.Chans(), p.X.Rows, p.X.Cols)
	out, err := withDirect(m, m.Nodes(), p.X, p.T, pool, c.Ridge)
	if err != nil {
		return nil, err
	}
	out.Config.MaxNodes = c.MaxNodes
	return out, nil
}

// directSys is what a hold-out's direct scoring keeps for the final solve.
type directSys = selection.DirectSys

// tryDirect reports whether a selection scores direct links.
func (c Config) tryDirect(s Selection) bool { return c.DirectLink || s.TryDirect }

// directFit is what the evaluator's Candidates needs to score path's
// prefixes with direct links (pooled by pool) on the held-out images held,
// nil when the selection does not try them.
func (c Config) directFit(s Selection, path *Path, held Images, pool int) *selection.DirectFit {
	if !c.tryDirect(s) {
		return nil
	}
	x, m := path.x, path.Model()
	tr := selection.DirectTrain{Hidden: modelHidden{m, x}, X: direct.Images(x), T: path.t, N: x.Len(), M: m.M, Nodes: path.Nodes()}
	return &selection.DirectFit{Train: tr, Held: direct.Images(held), Pool: pool, Only: c.DirectLink}
}

// refitDirect returns the model of the first l nodes of path with direct
// links and output weights solved with ridge alpha on the training part
// and the held-out part together: the training part's normal equations
// from the scoring when it kept them (primal), else a solve over all of p.
func refitDirect(path *Path, ds *directSys, l int, alpha float64, held, all Problem) (*Model, error) {
	m := path.Model()
	if !ds.Primal(l) {
		return withDirect(m, l, all.X, all.T, ds.Pool, alpha)
	}
	g, at := directNormal(m, l, held.X, held.T, ds.Pool)
	w, err := ds.Refit(g, at, l, m.M, alpha)
	if err != nil {
		return nil, err
	}
	mm, d := m.M, ds.D
	out := directModel(m, l, ds.Pool, alpha, w[d*mm:], w[:d*mm])
	rmse, err := path.bothRMSE(out, held)
	if err != nil {
		return nil, err
	}
	out.Summary.TrainRMSE = rmse
	return out, nil
}

// streamDirect refuses direct links in a streamed fit: its passes sum the
// hidden outputs' statistics only. (A streamed selection ignores
// Selection.TryDirect.)
func (c Config) streamDirect() error {
	if c.DirectLink {
		return fmt.Errorf("%w: direct links in a streamed fit (fit in memory, or drop DirectLink)", ErrConfig)
	}
	return nil
}
