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

// directScores scores the direct-link models of the prefixes in grid (and
// L = 0) of path on the evaluator's held-out images
// (selection.Evaluator.DirectScores; scorePath ran before).
func (e *evaluator) directScores(path *Path, grid []int, pool int) ([]Score, *directSys, error) {
	x, m := path.x, path.Model()
	tr := selection.DirectTrain{Hidden: modelHidden{m, x}, X: direct.Images(x), T: path.t, N: x.Len(), M: m.M, Nodes: path.Nodes()}
	out, ds := e.DirectScores(tr, direct.Images(e.held.X), grid, pool)
	return scores(out), ds, nil
}

// refitDirect returns the model of the first l nodes of path with direct
// links and output weights solved with ridge alpha on the training part
// and the held-out part together: the training part's normal equations
// from the scoring when it kept them (primal), else a solve over all of p.
func refitDirect(path *Path, ds *directSys, l int, alpha float64, held, all Problem) (*Model, error) {
	m := path.Model()
	if ds.Dual || l > ds.Lcap {
		return withDirect(m, l, all.X, all.T, ds.Pool, alpha)
	}
	mm, d := m.M, ds.D
	k, kc := d+l, d+ds.Lcap
	g, at := directNormal(m, l, held.X, held.T, ds.Pool)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			g[i*k+j] += ds.G[i*kc+j]
		}
		for q := 0; q < mm; q++ {
			at[i*mm+q] += ds.At[i*mm+q]
		}
	}
	w := direct.PrimalBetas(g, at, k, mm, d, []int{l}, alpha)[0]
	if w == nil {
		return nil, fmt.Errorf("scn: direct links: the normal equations of %d unknowns are singular at ridge %g", k, alpha)
	}
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
