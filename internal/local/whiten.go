package local

import (
	"errors"
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/par"
	"gonum.org/v1/gonum/mat"
)

// Whitening is the ZCA whitening of the patches of one filter size,
// estimated from a sample of standardised patches (internal/localnet's
// whiten.go draws the sample and folds the whitening into a bank's
// filters and biases).
type Whitening struct {
	KK      int       // C k^2
	W       []float64 // KK x KK, symmetric: V (D + eps I)^-1/2 V^T
	Mu      []float64 // the standardised patches' mean
	M       []float64 // S^-1 W, KK x KK: the raw weights of a filter f are M f
	C       []float64 // W (S^-1 m + mu): f^T C comes off the bias
	Eig     []float64 // the covariance's eigenvalues, ascending
	Samples int
}

// Whiten returns the whitening estimated from s patches p of side k (one
// row of kk = C k^2 standardised values each, centred in place), the
// planes' means cmean and deviations csd (C each) they were standardised
// by, and eps. The covariance's entries are summed over the patches in
// order, blocks of rows in parallel: the same bits whatever GOMAXPROCS is.
func Whiten(p []float64, s, kk, k int, cmean, csd []float64, eps float64) (*Whitening, error) {
	pw := &Whitening{KK: kk, Mu: make([]float64, kk), Samples: s}
	for i := 0; i < s; i++ {
		for t, v := range p[i*kk : (i+1)*kk] {
			pw.Mu[t] += v
		}
	}
	for t := range pw.Mu {
		pw.Mu[t] /= float64(s)
	}
	for i := 0; i < s; i++ {
		row := p[i*kk : (i+1)*kk]
		for t := range row {
			row[t] -= pw.Mu[t]
		}
	}
	// The covariance, entry (t, u) for u >= t summed over the patches in
	// order, blocks of rows in parallel (one read of the sample per block).
	cov := make([]float64, kk*kk)
	par.Chunks(kk, 8, func(_, lo, hi int) {
		for i := 0; i < s; i++ {
			row := p[i*kk : (i+1)*kk]
			for t := lo; t < hi; t++ {
				a, ct := row[t], cov[t*kk:(t+1)*kk]
				for u := t; u < kk; u++ {
					ct[u] += a * row[u]
				}
			}
		}
	})
	sym := mat.NewSymDense(kk, nil)
	for t := 0; t < kk; t++ {
		for u := t; u < kk; u++ {
			v := cov[t*kk+u] / float64(s)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, errors.New("whitening: the patches' covariance is not finite (images with NaN or infinite pixels?)")
			}
			sym.SetSym(t, u, v)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(sym, true) {
		return nil, fmt.Errorf("whitening: the eigendecomposition of the patches' covariance (%d x %d) failed", kk, kk)
	}
	pw.Eig = es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	scale := make([]float64, kk)
	for j, e := range pw.Eig {
		scale[j] = 1 / math.Sqrt(max(e, 0)+eps)
	}
	pw.W = make([]float64, kk*kk)
	for t := 0; t < kk; t++ {
		for u := t; u < kk; u++ {
			var sum float64
			for j := 0; j < kk; j++ {
				sum += v.At(t, j) * scale[j] * v.At(u, j)
			}
			pw.W[t*kk+u], pw.W[u*kk+t] = sum, sum
		}
	}
	pw.M = make([]float64, kk*kk)
	off := make([]float64, kk) // S^-1 m + mu
	for t := 0; t < kk; t++ {
		c := t / (k * k)
		for u := 0; u < kk; u++ {
			pw.M[t*kk+u] = pw.W[t*kk+u] / csd[c]
		}
		off[t] = cmean[c]/csd[c] + pw.Mu[t]
	}
	pw.C = make([]float64, kk)
	for t := 0; t < kk; t++ {
		var sum float64
		for u, o := range off {
			sum += pw.W[t*kk+u] * o
		}
		pw.C[t] = sum
	}
	return pw, nil
}

// Matrix32 returns M in float32, a bank's whitening matrix.
func (pw *Whitening) Matrix32() []float32 {
	out := make([]float32, len(pw.M))
	for i, v := range pw.M {
		out[i] = float32(v)
	}
	return out
}

// FoldBias returns the bias b of the filter whose whitened-space weights
// are f (C k^2) applied to the patches as read: b - f^T C.
func (pw *Whitening) FoldBias(f []float32, b float64) float64 {
	for t, v := range f {
		b -= float64(v) * pw.C[t]
	}
	return b
}
