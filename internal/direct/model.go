package direct

import (
	"fmt"

	"github.com/scn2d/scn/internal/lsq"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Hidden gives the outputs of a model's first l nodes on the images a
// solve reads (the root package's model and images).
type Hidden interface {
	// Each calls f with the outputs of the first l nodes on
	// consecutive batches of the images (node-major, hb nil for l = 0).
	Each(l int, f func(lo, rows int, hb []float32))
	// Dense returns the outputs of the first l > 0 nodes, N x l.
	Dense(l int) *mat.Dense
}

// ConfigError is the refusal of a configuration direct links cannot
// solve; the root package wraps its message in scn.ErrConfig.
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return e.Msg }

// NormalOf returns the normal equations of the unknowns [W; beta] of the
// first l nodes (h) with the direct features (pool) on x and targets t (N
// x mm): G = A^T A (k x k, k = D + l, full) and A^T T (k x mm), A = [F H],
// summed over h's batches of images in order.
func NormalOf(h Hidden, l int, x Images, t []float64, mm, pool int) (g, at []float64) {
	s := NewNormal(Dim(x.Channels, x.Rows, x.Cols, pool), l, mm, pool)
	h.Each(l, func(lo, rows int, hb []float32) { s.Add(x, lo, rows, hb, t) })
	return s.G, s.AT
}

// Solve returns the output weights of the first l nodes (h; beta, l x mm)
// and of the direct features (w, D x mm) over x and t with ridge alpha:
// the primal system when L + D <= N, else its dual; with alpha = 0, the
// minimum-norm least squares (MATLAB's pinv tolerance) over [F H].
func Solve(h Hidden, l int, x Images, t []float64, mm, pool int, alpha float64) (beta, w []float64, err error) {
	n, _, _ := x.shape()
	d := Dim(x.Channels, x.Rows, x.Cols, pool)
	if d < 1 {
		return nil, nil, &ConfigError{fmt.Sprintf("no direct features for %d x %d images pooled by %d", x.Rows, x.Cols, pool)}
	}
	k := d + l
	var sol []float64 // [W; beta], k x M
	switch {
	case alpha == 0:
		if float64(n)*float64(k) > 1<<26 {
			return nil, nil, &ConfigError{fmt.Sprintf("direct links without a ridge term on %d images x %d unknowns (the minimum-norm solve is an SVD): give a ridge term", n, k)}
		}
		a := Dense(h, l, x, pool)
		sol, err = lsq.MinNorm(a, t, mm, 0)
	case k <= n:
		g, at := NormalOf(h, l, x, t, mm, pool)
		sol = PrimalBetas(g, at, k, mm, d, []int{l}, alpha)[0]
		if sol == nil {
			err = fmt.Errorf("scn: direct links: the normal equations of %d unknowns are singular at ridge %g", k, alpha)
		}
	default:
		sol, err = dual(h, l, x, t, mm, pool, alpha)
	}
	if err != nil {
		return nil, nil, err
	}
	return sol[d*mm:], sol[:d*mm], nil
}

// Dense returns [F H] over x, N x (D + l), the features written in
// place (no second copy of them).
func Dense(h Hidden, l int, x Images, pool int) *mat.Dense {
	n, _, _ := x.shape()
	d := Dim(x.Channels, x.Rows, x.Cols, pool)
	a := mat.NewDense(n, d+l, nil)
	Into(x, pool, a.RawMatrix())
	if l > 0 {
		a.Slice(0, n, d, d+l).(*mat.Dense).Copy(h.Dense(l))
	}
	return a
}

// dual returns [W; beta] = A^T (A A^T + alpha I)^-1 T, A = [F H] (Dual).
// On the pixels themselves (pool 1, the dual's case) A is never formed
// (PixelDual).
func dual(h Hidden, l int, x Images, t []float64, mm, pool int, alpha float64) ([]float64, error) {
	if pool == 1 {
		var hg blas64.General
		if l > 0 {
			hg = h.Dense(l).RawMatrix()
		}
		return PixelDual(x, hg, t, mm, alpha)
	}
	return Dual(Dense(h, l, x, pool).RawMatrix(), t, mm, alpha)
}
