package direct

import (
	"github.com/scn2d/scn/internal/linalg"
	"gonum.org/v1/gonum/blas/blas64"
)

// Model selection with direct links (scn's Selection.TryDirect): every
// prefix length of the grid (and L = 0, the ridge model on the features
// alone) is scored with direct links for each ridge term > 0 of the grid.
// Primal systems (features first, then nodes) share one Cholesky factor
// per ridge term over every prefix (PrimalScores); dual systems (few
// images, many pixels) are N x N per prefix and ridge term (DualScores),
// on at most DualPoints prefix lengths (DualGrid). The root forms the
// hidden outputs and scores the outputs these pass it.

// DualPoints bounds the prefix lengths a dual selection scores.
const DualPoints = 16

// Scored receives the held-out outputs pred (N_held x M, reused by the
// next call) of the direct-link model of the first l nodes at ridge
// alpha.
type Scored func(l int, alpha float64, pred []float64)

// PrimalScores passes score the held-out outputs of the direct-link model
// of each prefix length in grid (each at most the nodes g covers) for
// each ridge term > 0 of ridges, whose primal system solves: g (k x k)
// and at (k x mm) are the training part's normal equations of [F H] (d
// features, then the nodes), fv the nv held-out images' features and hv
// their hidden outputs.
func PrimalScores(g, at []float64, k, mm, d, nv int, grid []int, ridges []float64, fv, hv blas64.General, score Scored) {
	pred := make([]float64, nv*mm)
	for _, alpha := range ridges {
		if alpha <= 0 {
			continue
		}
		for i, w := range PrimalBetas(g, at, k, mm, d, grid, alpha) {
			if w == nil {
				continue
			}
			l := grid[i]
			linalg.Dgemm(false, false, nv, mm, d, 1, fv.Data, fv.Stride, w, mm, 0, pred, mm)
			if l > 0 {
				linalg.Dgemm(false, false, nv, mm, l, 1, hv.Data, hv.Stride, w[d*mm:], mm, 1, pred, mm)
			}
			score(l, alpha, pred)
		}
	}
}

// DualGrid returns grid (prefix lengths in increasing order) cut to at
// most DualPoints of them, spread evenly, the first and the last kept.
func DualGrid(grid []int) []int {
	if len(grid) <= DualPoints {
		return grid
	}
	sub := make([]int, 0, DualPoints)
	for i := 0; i < DualPoints; i++ {
		sub = append(sub, grid[i*(len(grid)-1)/(DualPoints-1)])
	}
	return sub
}

// DualKernels returns the feature kernels of a dual selection: F F^T of
// the training images x (n x n) and F_v F^T of the held-out images xv
// against them (nv x n), features pooled by pool (the pixels themselves
// for pool 1, strip by strip).
func DualKernels(x, xv Images, pool int) (kk, kv []float64) {
	n, _, _ := x.shape()
	nv, _, _ := xv.shape()
	kk = make([]float64, n*n)
	kv = make([]float64, nv*n)
	if pool == 1 {
		PixelKernel(x, x, kk)
		PixelKernel(xv, x, kv)
		return kk, kv
	}
	d := Dim(x.Channels, x.Rows, x.Cols, pool)
	f := Rows(x, pool).RawMatrix()
	fvr := Rows(xv, pool).RawMatrix()
	linalg.GemmNT64(n, n, d, 1, f.Data, f.Stride, f.Data, f.Stride, 0, kk, n)
	linalg.GemmNT64(nv, n, d, 1, fvr.Data, fvr.Stride, f.Data, f.Stride, 0, kv, n)
	return kk, kv
}

// DualScores passes score the held-out outputs of the direct-link model
// of each prefix length in grid (increasing) for each ridge term > 0 of
// ridges whose dual system solves: the kernels kk (n x n) and kv (nv x n,
// from DualKernels) grow prefix by prefix by H_l H_l^T of the training
// part's hidden outputs h (n rows) and the held-out part's hv (nv rows),
// and the dual coefficients of the n training targets t (n x mm) give
// the held-out outputs kv C.
func DualScores(kk, kv []float64, n, nv, mm int, t []float64, h, hv blas64.General, grid []int, ridges []float64, score Scored) {
	pred := make([]float64, nv*mm)
	prev := 0
	for _, l := range grid {
		if l > prev {
			linalg.GemmNT64(n, n, l-prev, 1, h.Data[prev:], h.Stride, h.Data[prev:], h.Stride, 1, kk, n)
			linalg.GemmNT64(nv, n, l-prev, 1, hv.Data[prev:], hv.Stride, h.Data[prev:], h.Stride, 1, kv, n)
			prev = l
		}
		for _, alpha := range ridges {
			if alpha <= 0 {
				continue
			}
			coef, err := DualCoef(kk, n, t, mm, alpha)
			if err != nil {
				continue
			}
			linalg.Dgemm(false, false, nv, mm, n, 1, kv, n, coef, mm, 0, pred, mm)
			score(l, alpha, pred)
		}
	}
}
