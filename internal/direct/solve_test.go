package direct

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// solveFixture returns n images of 6 x 5 pixels, l hidden outputs per
// image (N x l, and node-major float32 as the root package's batches
// give them), the matrix A = [F H] of the pixels beside them, and mm
// targets.
func solveFixture(n, l, mm int) (Images, *mat.Dense, []float32, *mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(61, 62))
	x := Images{Rows: 6, Cols: 5, Pix: make([]float32, n*30)}
	for i := range x.Pix {
		x.Pix[i] = float32(rng.Float64())
	}
	h := mat.NewDense(n, max(l, 1), nil)
	hb := make([]float32, l*n)
	for j := 0; j < l; j++ {
		for i := 0; i < n; i++ {
			v := float32(rng.NormFloat64())
			hb[j*n+i] = v
			h.Set(i, j, float64(v))
		}
	}
	h = h.Slice(0, n, 0, l).(*mat.Dense)
	f := Rows(x, 1)
	a := mat.NewDense(n, 30+l, nil)
	a.Slice(0, n, 0, 30).(*mat.Dense).Copy(f)
	if l > 0 {
		a.Slice(0, n, 30, 30+l).(*mat.Dense).Copy(h)
	}
	t := make([]float64, n*mm)
	for i := range t {
		t[i] = rng.NormFloat64()
	}
	return x, h, hb, a, t
}

// TestNormalBatches: the normal equations summed batch by batch are A^T A
// and A^T T of A = [F H].
func TestNormalBatches(t *testing.T) {
	const n, l, mm = 23, 4, 2
	x, _, hb, a, tt := solveFixture(n, l, mm)
	s := NewNormal(30, l, mm, 1)
	for lo := 0; lo < n; lo += 10 {
		rows := min(10, n-lo)
		b := make([]float32, l*rows) // this batch's outputs, node-major
		for j := 0; j < l; j++ {
			copy(b[j*rows:(j+1)*rows], hb[j*n+lo:j*n+lo+rows])
		}
		s.Add(x, lo, rows, b, tt)
	}
	var g, at mat.Dense
	g.Mul(a.T(), a)
	at.Mul(a.T(), mat.NewDense(n, mm, tt))
	k := 30 + l
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			if w := g.At(i, j); math.Abs(s.G[i*k+j]-w) > 1e-12*(1+math.Abs(w)) {
				t.Fatalf("G[%d,%d] = %v, want %v", i, j, s.G[i*k+j], w)
			}
		}
		for q := 0; q < mm; q++ {
			if w := at.At(i, q); math.Abs(s.AT[i*mm+q]-w) > 1e-12*(1+math.Abs(w)) {
				t.Fatalf("A^T T[%d,%d] = %v, want %v", i, q, s.AT[i*mm+q], w)
			}
		}
	}
}

// TestDualSolves: the dual solve equals the primal ridge solve
// (A^T A + alpha I)^-1 A^T T (gonum's LU) with more unknowns than images;
// on the pixels, PixelDual equals Dual on [F H] formed whole, with and
// without hidden outputs.
func TestDualSolves(t *testing.T) {
	const n, mm, alpha = 12, 2, 0.3
	for _, l := range []int{0, 5} {
		x, h, _, a, tt := solveFixture(n, l, mm)
		k := 30 + l
		var g, at mat.Dense
		g.Mul(a.T(), a)
		for j := 0; j < k; j++ {
			g.Set(j, j, g.At(j, j)+alpha)
		}
		at.Mul(a.T(), mat.NewDense(n, mm, tt))
		var want mat.Dense
		if err := want.Solve(&g, &at); err != nil {
			t.Fatal(err)
		}
		dual, err := Dual(a.RawMatrix(), tt, mm, alpha)
		if err != nil {
			t.Fatal(err)
		}
		var hr blas64.General
		if l > 0 {
			hr = h.RawMatrix()
		}
		pix, err := PixelDual(x, hr, tt, mm, alpha)
		if err != nil {
			t.Fatal(err)
		}
		if len(dual) != k*mm || len(pix) != k*mm {
			t.Fatalf("l = %d: %d and %d weights, want %d", l, len(dual), len(pix), k*mm)
		}
		for i := 0; i < k; i++ {
			for q := 0; q < mm; q++ {
				w := want.At(i, q)
				if math.Abs(dual[i*mm+q]-w) > 1e-8*(1+math.Abs(w)) || math.Abs(pix[i*mm+q]-w) > 1e-8*(1+math.Abs(w)) {
					t.Fatalf("l = %d, weight [%d,%d]: dual %v, pixel dual %v, primal %v", l, i, q, dual[i*mm+q], pix[i*mm+q], w)
				}
			}
		}
	}
	// A system that is not positive definite (a large negative ridge
	// term) is an error, not weights.
	x, _, _, a, tt := solveFixture(4, 0, 1)
	if _, err := Dual(a.RawMatrix(), tt, 1, -1e6); err == nil {
		t.Error("Dual at ridge -1e6: no error")
	}
	if _, err := PixelDual(x, blas64.General{}, tt, 1, -1e6); err == nil {
		t.Error("PixelDual at ridge -1e6: no error")
	}
}
