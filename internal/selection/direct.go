package selection

import (
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
