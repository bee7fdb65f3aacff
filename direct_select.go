package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/direct"
	"gonum.org/v1/gonum/blas/blas64"
)

// Model selection with direct links: every prefix length of the grid (and
// L = 0, the ridge model on the features alone) is scored with direct links
// for each ridge term > 0 of the grid, beside the plain prefixes; the best
// pair of either kind wins. Primal systems (features first, then nodes)
// share one Cholesky factor per ridge term over every prefix; dual systems
// (few images, many pixels) are N x N per prefix and ridge term, on at most
// direct.DualPoints prefix lengths (internal/direct's select.go).

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
type directSys struct {
	pool, d int
	dual    bool
	lcap    int       // nodes the primal system covers
	g, at   []float64 // primal: G and A^T T of the training part, k = d + lcap
}

// tryDirect reports whether a selection scores direct links.
func (c Config) tryDirect(s Selection) bool { return c.DirectLink || s.TryDirect }

// directScores scores the direct-link models of the prefixes in grid (and
// L = 0) of path on the evaluator's held-out images, whose hidden outputs
// e.hv holds (scorePath ran before): internal/direct's PrimalScores or
// DualScores give the held-out outputs.
func (e *evaluator) directScores(path *Path, grid []int, pool int) ([]Score, *directSys, error) {
	x, t, m := path.x, path.t, path.Model()
	n, mm, lmax := x.Len(), m.M, path.Nodes()
	d := direct.Dim(x.Channels, x.Rows, x.Cols, pool)
	ds := &directSys{pool: pool, d: d, dual: n <= direct.DualN && d+lmax > n}
	nv := e.held.X.Len()
	grid0 := []int{0}
	for _, l := range grid {
		if l > 0 && l <= lmax {
			grid0 = append(grid0, l)
		}
	}
	var hv blas64.General
	if e.hv != nil {
		hv = e.hv.RawMatrix()
	}
	var out []Score
	score := func(l int, alpha float64, pred []float64) { out = append(out, e.directScore(l, alpha, pred)) }
	if !ds.dual {
		ds.lcap = min(lmax, direct.Cap(n, d))
		var gl []int
		for _, l := range grid0 {
			if l <= ds.lcap {
				gl = append(gl, l)
			}
		}
		ds.g, ds.at = directNormal(m, ds.lcap, x, t, pool)
		fv := direct.Rows(direct.Images(e.held.X), pool).RawMatrix()
		direct.PrimalScores(ds.g, ds.at, d+ds.lcap, mm, d, nv, gl, e.sel.Ridges, fv, hv, score)
		return out, ds, nil
	}
	// Dual: K = F F^T + H_l H_l^T over the training part, and the held-out
	// rows' kernel against it, grown prefix by prefix.
	kk, kv := direct.DualKernels(direct.Images(x), direct.Images(e.held.X), pool)
	h := hiddenDense(m, x).RawMatrix()
	direct.DualScores(kk, kv, n, nv, mm, t, h, hv, direct.DualGrid(grid0), e.sel.Ridges, score)
	return out, ds, nil
}

// directScore is the held-out score of predictions pred (N_held x M).
// (holdout.Held.DirectScore).
func (e *evaluator) directScore(l int, alpha float64, pred []float64) Score {
	return Score(e.h.DirectScore(l, alpha, pred))
}

// refitDirect returns the model of the first l nodes of path with direct
// links and output weights solved with ridge alpha on the training part
// and the held-out part together: the training part's normal equations
// from the scoring when it kept them (primal), else a solve over all of p.
func refitDirect(path *Path, ds *directSys, l int, alpha float64, held, all Problem) (*Model, error) {
	m := path.Model()
	if ds.dual || l > ds.lcap {
		return withDirect(m, l, all.X, all.T, ds.pool, alpha)
	}
	mm, d := m.M, ds.d
	k, kc := d+l, d+ds.lcap
	g, at := directNormal(m, l, held.X, held.T, ds.pool)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			g[i*k+j] += ds.g[i*kc+j]
		}
		for q := 0; q < mm; q++ {
			at[i*mm+q] += ds.at[i*mm+q]
		}
	}
	w := direct.PrimalBetas(g, at, k, mm, d, []int{l}, alpha)[0]
	if w == nil {
		return nil, fmt.Errorf("scn: direct links: the normal equations of %d unknowns are singular at ridge %g", k, alpha)
	}
	out := directModel(m, l, ds.pool, alpha, w[d*mm:], w[:d*mm])
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
