package selection

import (
	"fmt"

	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/holdout"
	"gonum.org/v1/gonum/blas/blas64"
)

// Model selection with direct links: every prefix length of the grid (and
// L = 0, the ridge model on the features alone) is scored with direct links
// for each ridge term > 0 of the grid, beside the plain prefixes; the best
// pair of either kind wins. Primal systems (features first, then nodes)
// share one Cholesky factor per ridge term over every prefix; dual systems
// (few images, many pixels) are N x N per prefix and ridge term, on at most
// direct.DualPoints prefix lengths (internal/direct's select.go).

// DirectSys is what a hold-out's direct scoring keeps for the final solve.
type DirectSys struct {
	Pool, D int
	Dual    bool
	Lcap    int       // nodes the primal system covers
	G, At   []float64 // primal: G and A^T T of the training part, k = d + lcap
}

// DirectTrain is the training part of a fit as direct-link scoring reads
// it: the hidden outputs of its model's nodes (Nodes of them, M outputs)
// on the N images X, and their targets T.
type DirectTrain struct {
	Hidden direct.Hidden
	X      direct.Images
	T      []float64
	N, M   int
	Nodes  int
}

// DirectScores scores the direct-link models of the prefixes in grid (and
// L = 0) of the fit tr on the held-out images held, whose hidden outputs
// HV holds (ScorePath ran before): internal/direct's PrimalScores or
// DualScores give the held-out outputs.
func (e *Evaluator) DirectScores(tr DirectTrain, held direct.Images, grid []int, pool int) ([]holdout.Point, *DirectSys) {
	x, t := tr.X, tr.T
	n, mm, lmax := tr.N, tr.M, tr.Nodes
	d := direct.Dim(x.Channels, x.Rows, x.Cols, pool)
	ds := &DirectSys{Pool: pool, D: d, Dual: n <= direct.DualN && d+lmax > n}
	nv := e.H.N
	grid0 := []int{0}
	for _, l := range grid {
		if l > 0 && l <= lmax {
			grid0 = append(grid0, l)
		}
	}
	var hv blas64.General
	if e.HV != nil {
		hv = e.HV.RawMatrix()
	}
	var out []holdout.Point
	score := func(l int, alpha float64, pred []float64) { out = append(out, e.H.DirectScore(l, alpha, pred)) }
	if !ds.Dual {
		ds.Lcap = min(lmax, direct.Cap(n, d))
		var gl []int
		for _, l := range grid0 {
			if l <= ds.Lcap {
				gl = append(gl, l)
			}
		}
		ds.G, ds.At = direct.NormalOf(tr.Hidden, ds.Lcap, x, t, mm, pool)
		fv := direct.Rows(held, pool).RawMatrix()
		direct.PrimalScores(ds.G, ds.At, d+ds.Lcap, mm, d, nv, gl, e.Spec.Ridges, fv, hv, score)
		return out, ds
	}
	// Dual: K = F F^T + H_l H_l^T over the training part, and the held-out
	// rows' kernel against it, grown prefix by prefix.
	kk, kv := direct.DualKernels(x, held, pool)
	h := tr.Hidden.Dense(lmax).RawMatrix()
	direct.DualScores(kk, kv, n, nv, mm, t, h, hv, direct.DualGrid(grid0), e.Spec.Ridges, score)
	return out, ds
}

// DirectFit is what Candidates needs to score a fit's prefixes with direct
// links: the training part, the held-out images, the features' pooling,
// and whether only the direct-link models compete (a configuration with
// direct links set).
type DirectFit struct {
	Train DirectTrain
	Held  direct.Images
	Pool  int
	Only  bool
}

// Candidates scores every (l, alpha) of the grid for the path's nodes
// (ScorePath) and, with df, the prefixes' direct-link models
// (DirectScores): the plain scores first, none of them when df.Only.
func (e *Evaluator) Candidates(p Path, grid []int, df *DirectFit) ([]holdout.Point, *DirectSys, error) {
	scores, err := e.ScorePath(p, grid)
	if err != nil {
		return nil, nil, err
	}
	if df == nil {
		return scores, nil, nil
	}
	dsc, ds := e.DirectScores(df.Train, df.Held, grid, df.Pool)
	if df.Only {
		scores = nil
	}
	return append(scores, dsc...), ds, nil
}

// Choose returns the best candidate of a hold-out fit p (Candidates over
// the grid of its nodes; with direct links, the plain model unless a
// direct-link one beats it by more than a standard error,
// holdout.PickDirect), the candidates and the direct-link systems kept
// for the refit.
func (e *Evaluator) Choose(p Path, df *DirectFit) (best holdout.Point, scores []holdout.Point, ds *DirectSys, err error) {
	scores, ds, err = e.Candidates(p, e.Grid(p.Nodes()), df)
	if err != nil {
		return holdout.Point{}, nil, nil, err
	}
	if df != nil && len(scores) == 0 {
		return holdout.Point{}, nil, nil, fmt.Errorf("scn: selection: no (L, ridge) pair with direct links could be solved (they need a ridge term > 0 in the grid)")
	}
	return holdout.PickDirect(scores, e.H.Classify, e.H.N), scores, ds, nil
}

// Refit returns the output weights [W; beta] of the first l nodes with
// direct links at ridge alpha, solved on the training part (the normal
// equations the scoring kept, over Lcap nodes) and a held-out part (g, at:
// its normal equations over the l nodes, k = D + l; g and at are changed)
// together, mm outputs. It needs the primal system to cover the first
// l nodes (Primal); otherwise the caller solves over all the images.
func (ds *DirectSys) Refit(g, at []float64, l, mm int, alpha float64) (w []float64, err error) {
	d := ds.D
	k, kc := d+l, d+ds.Lcap
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			g[i*k+j] += ds.G[i*kc+j]
		}
		for q := 0; q < mm; q++ {
			at[i*mm+q] += ds.At[i*mm+q]
		}
	}
	w = direct.PrimalBetas(g, at, k, mm, d, []int{l}, alpha)[0]
	if w == nil {
		return nil, fmt.Errorf("scn: direct links: the normal equations of %d unknowns are singular at ridge %g", k, alpha)
	}
	return w, nil
}

// Primal reports whether the training part's primal system covers the
// first l nodes (DirectSys.Refit can solve them).
func (ds *DirectSys) Primal(l int) bool { return !ds.Dual && l <= ds.Lcap }
