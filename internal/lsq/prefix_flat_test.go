package lsq

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestPrefixRidgeFlat: the row-major prefix solve gives PrefixRidgeBetas'
// bits on the same system, solves (G + alpha I) w = A^T T for every
// prefix, and reports a system it cannot factor.
func TestPrefixRidgeFlat(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, k, m = 40, 9, 2
	h := mat.NewDense(n, k, nil)
	tt := mat.NewDense(n, m, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			h.Set(i, j, rng.NormFloat64())
		}
		for q := 0; q < m; q++ {
			tt.Set(i, q, rng.NormFloat64())
		}
	}
	var g mat.SymDense
	g.SymOuterK(1, h.T())
	var ht mat.Dense
	ht.Mul(h.T(), tt)
	gf := make([]float64, k*k)
	atf := make([]float64, k*m)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			gf[i*k+j] = g.At(i, j)
		}
		for q := 0; q < m; q++ {
			atf[i*m+q] = ht.At(i, q)
		}
	}
	sizes := []int{1, 4, k}
	const alpha = 0.5
	want := make([][]float64, len(sizes))
	PrefixRidgeBetas(&g, &ht, k, sizes, alpha, m, want)
	got := make([][]float64, len(sizes))
	g0, at0 := slices.Clone(gf), slices.Clone(atf)
	if !PrefixRidgeFlat(gf, atf, k, m, sizes, alpha, got) {
		t.Fatal("a positive definite system reported singular")
	}
	if !slices.Equal(gf, g0) || !slices.Equal(atf, at0) {
		t.Error("PrefixRidgeFlat changed its inputs")
	}
	for i, l := range sizes {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("prefix %d: %v, PrefixRidgeBetas gives %v", l, got[i], want[i])
		}
		// Residual of (G_l + alpha I) w = (A^T T)_l.
		for r := 0; r < l; r++ {
			for q := 0; q < m; q++ {
				s := alpha * got[i][r*m+q]
				for c := 0; c < l; c++ {
					s += gf[r*k+c] * got[i][c*m+q]
				}
				if d := s - atf[r*m+q]; d > 1e-9 || d < -1e-9 {
					t.Fatalf("prefix %d: residual %g at (%d, %d)", l, d, r, q)
				}
			}
		}
	}
	// A negative definite system cannot be factored.
	neg := make([]float64, k*k)
	for i := 0; i < k; i++ {
		neg[i*k+i] = -1
	}
	out := make([][]float64, 1)
	if PrefixRidgeFlat(neg, atf, k, m, []int{k}, 0.5, out) || out[0] != nil {
		t.Error("a system with no Cholesky factor was solved")
	}
}
