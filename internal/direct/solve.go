package direct

import (
	"github.com/scn2d/scn/internal/linalg"
	"gonum.org/v1/gonum/blas/blas64"
)

// Normal accumulates the normal equations of the unknowns [W; beta] of
// direct links beside l hidden outputs: G = A^T A (k x k, k = D + l,
// full, row-major) and A^T T (k x M), A = [F H], over batches of images
// added in order.
type Normal struct {
	// G and AT are the sums so far.
	G, AT    []float64
	d, l, mm int
	pool     int
	abuf     []float64
}

// NewNormal returns empty sums for d direct features (pooled by pool)
// beside l hidden outputs and mm targets.
func NewNormal(d, l, mm, pool int) *Normal {
	k := d + l
	return &Normal{G: make([]float64, k*k), AT: make([]float64, k*mm), d: d, l: l, mm: mm, pool: pool}
}

// Add adds images lo .. lo+rows-1 of x: their hidden outputs hb (node-major,
// l x rows, nil for l = 0) and targets t (all images' targets, N x M).
func (s *Normal) Add(x Images, lo, rows int, hb []float32, t []float64) {
	d, l, mm := s.d, s.l, s.mm
	k := d + l
	if cap(s.abuf) < k*rows {
		s.abuf = make([]float64, k*rows)
	}
	a := s.abuf[:k*rows]
	Features(x, s.pool, lo, rows, a[:d*rows])
	for i, v := range hb[:l*rows] {
		a[d*rows+i] = float64(v)
	}
	linalg.GemmNT64(k, k, rows, 1, a, rows, a, rows, 1, s.G, k)
	linalg.Dgemm(false, false, k, mm, rows, 1, a, rows, t[lo*mm:], mm, 1, s.AT, mm)
}

// Dual returns [W; beta] = A^T (A A^T + alpha I)^-1 T from A (N x k, the
// features and the hidden outputs side by side) and the targets t (N x
// mm): the dual ridge solve, for more unknowns than images.
func Dual(a blas64.General, t []float64, mm int, alpha float64) ([]float64, error) {
	n, k := a.Rows, a.Cols
	kk := make([]float64, n*n)
	linalg.GemmNT64(n, n, k, 1, a.Data, a.Stride, a.Data, a.Stride, 0, kk, n)
	coef, err := DualCoef(kk, n, t, mm, alpha)
	if err != nil {
		return nil, err
	}
	sol := make([]float64, k*mm)
	linalg.Dgemm(true, false, k, mm, n, 1, a.Data, a.Stride, coef, mm, 0, sol, mm)
	return sol, nil
}

// PixelDual is Dual on the pixels themselves (pool 1) beside the hidden
// outputs h (N x l; l = 0 without nodes): A = [F H] is never formed, F F^T
// and F^T C go strip by strip over the images' float32 pixels.
func PixelDual(x Images, h blas64.General, t []float64, mm int, alpha float64) ([]float64, error) {
	n, _, _ := x.shape()
	l := h.Cols
	kk := make([]float64, n*n)
	PixelKernel(x, x, kk)
	if l > 0 {
		linalg.GemmNT64(n, n, l, 1, h.Data, h.Stride, h.Data, h.Stride, 1, kk, n)
	}
	coef, err := DualCoef(kk, n, t, mm, alpha)
	if err != nil {
		return nil, err
	}
	sol := PixelT(x, coef, mm)
	if l > 0 {
		hb := make([]float64, l*mm)
		linalg.Dgemm(true, false, l, mm, n, 1, h.Data, h.Stride, coef, mm, 0, hb, mm)
		sol = append(sol, hb...)
	}
	return sol, nil
}
