package lsq

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRidgePrefixes: each prefix's weights from the engine's one factor at
// another ridge term equal the closed form (H_k^T H_k + alpha I)^-1
// H_k^T T of that prefix's columns (gonum's LU solve).
func TestRidgePrefixes(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, l, m, alpha = 300, 24, 3, 0.7
	hb := make([]float32, l*n) // node-major
	h := mat.NewDense(n, l, nil)
	tt := make([]float64, n*m)
	for j := 0; j < l; j++ {
		for i := 0; i < n; i++ {
			v := float32(rng.NormFloat64())
			hb[j*n+i] = v
			h.Set(i, j, float64(v))
		}
	}
	for i := range tt {
		tt[i] = rng.NormFloat64()
	}
	g := NewGram(tt, n, m, 0.01, false, l)
	for j0 := 0; j0 < l; j0 += 8 {
		g.AddBlock(hb[j0*n:(j0+8)*n], 8)
	}
	ks := []int{1, 8, 17, 24}
	betas, ok := g.RidgePrefixes(l, alpha, ks, make([]float64, l*l))
	if !ok {
		t.Fatal("the factor of G + alpha I failed")
	}
	for i, k := range ks {
		hk := h.Slice(0, n, 0, k)
		var a, rhs, want mat.Dense
		a.Mul(hk.T(), hk)
		for d := 0; d < k; d++ {
			a.Set(d, d, a.At(d, d)+alpha)
		}
		rhs.Mul(hk.T(), mat.NewDense(n, m, tt))
		if err := want.Solve(&a, &rhs); err != nil {
			t.Fatal(err)
		}
		var num, den float64
		for j, w := range want.RawMatrix().Data {
			num += (betas[i][j] - w) * (betas[i][j] - w)
			den += w * w
		}
		if r := math.Sqrt(num / den); !(r < 1e-10) {
			t.Errorf("prefix %d: weights differ from the closed form by %.3g", k, r)
		}
	}
}

// TestSolveFlat: the in-place solve of (G + alpha I) x = b agrees with
// RidgeSolve (gonum's Cholesky) on the same system, and refuses a
// singular one.
func TestSolveFlat(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const n, k, m, alpha = 40, 6, 2, 0.3
	h := mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			h.Set(i, j, rng.NormFloat64())
		}
	}
	tt := mat.NewDense(n, m, nil)
	for i := 0; i < n; i++ {
		for q := 0; q < m; q++ {
			tt.Set(i, q, rng.NormFloat64())
		}
	}
	var g mat.SymDense
	g.SymOuterK(1, h.T())
	var ht mat.Dense
	ht.Mul(h.T(), tt)
	a := make([]float64, k*k)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			a[i*k+j] = g.At(i, j)
		}
		a[i*k+i] += alpha
	}
	x := append([]float64(nil), ht.RawMatrix().Data...)
	if err := SolveFlat(a, k, x, m, alpha); err != nil {
		t.Fatal(err)
	}
	gc := mat.NewSymDense(k, nil)
	gc.CopySym(&g)
	want, err := RidgeSolve(gc, &ht, alpha)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(x[i]-want[i]) > 1e-10*(1+math.Abs(want[i])) {
			t.Fatalf("x[%d] = %v, want %v", i, x[i], want[i])
		}
	}
	if err := SolveFlat(make([]float64, 4), 2, make([]float64, 2), 1, 0); err == nil {
		t.Error("a zero system solved")
	}
}
