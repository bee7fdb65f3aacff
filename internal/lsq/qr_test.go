package lsq

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/scn2d/scn/internal/reference"
	"gonum.org/v1/gonum/mat"
)

// randomLS fills a fresh factorisation with l random columns and returns it
// with H (n x l) and T (n x m).
func randomLS(t *testing.T, n, l, m int, seed uint64) (*QR, *mat.Dense, *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 1))
	h := mat.NewDense(n, l, nil)
	tt := mat.NewDense(n, m, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < l; j++ {
			h.Set(i, j, rng.NormFloat64())
		}
		for j := 0; j < m; j++ {
			tt.Set(i, j, rng.NormFloat64())
		}
	}
	s := NewQR(append([]float64(nil), tt.RawMatrix().Data...), n, m)
	for j := 0; j < l; j++ {
		col := mat.Col(nil, j, h)
		if !s.Add(col) {
			t.Fatalf("column %d of a random Gaussian matrix refused as dependent", j)
		}
	}
	return s, h, tt
}

func relDiff(a, b []float64) float64 {
	var d, n float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
		n += b[i] * b[i]
	}
	return math.Sqrt(d / n)
}

func TestIncrementalLeastSquaresMatchesPinv(t *testing.T) {
	for _, sz := range []struct{ n, l, m int }{{50, 10, 1}, {200, 70, 3}, {500, 100, 10}} {
		s, h, tt := randomLS(t, sz.n, sz.l, sz.m, uint64(sz.n))
		beta, err := s.Solve(sz.l, 0)
		if err != nil {
			t.Fatal(err)
		}
		var want mat.Dense
		want.Mul(reference.Pinv(h), tt)
		if d := relDiff(beta, want.RawMatrix().Data); d > 1e-8 {
			t.Errorf("%+v: incremental beta differs from reference.Pinv(H)T by %.3g relative", sz, d)
		}
		// The kept residual is T - H beta.
		var o, e mat.Dense
		o.Mul(h, mat.NewDense(sz.l, sz.m, beta))
		e.Sub(tt, &o)
		var eT mat.Dense
		eT.CloneFrom(e.T()) // the kept residual is stored by output
		if d := relDiff(s.E, eT.RawMatrix().Data); d > 1e-10 {
			t.Errorf("%+v: incremental residual differs from T - H beta by %.3g relative", sz, d)
		}
		// Every prefix solves its own least-squares problem.
		l := sz.l / 2
		pb, _ := s.Solve(l, 0)
		var wantP mat.Dense
		wantP.Mul(reference.Pinv(mat.DenseCopyOf(h.Slice(0, sz.n, 0, l))), tt)
		if d := relDiff(pb, wantP.RawMatrix().Data); d > 1e-8 {
			t.Errorf("%+v: prefix %d beta differs from pinv by %.3g", sz, l, d)
		}
	}
}

func TestRidgeMatchesNormalEquations(t *testing.T) {
	const n, l, m, ridge = 120, 30, 2, 0.7
	s, h, tt := randomLS(t, n, l, m, 9)
	beta, err := s.Solve(l, ridge)
	if err != nil {
		t.Fatal(err)
	}
	var a mat.Dense
	a.Mul(h.T(), h)
	for i := 0; i < l; i++ {
		a.Set(i, i, a.At(i, i)+ridge)
	}
	var rhs, want mat.Dense
	rhs.Mul(h.T(), tt)
	if err := want.Solve(&a, &rhs); err != nil {
		t.Fatal(err)
	}
	if d := relDiff(beta, want.RawMatrix().Data); d > 1e-9 {
		t.Errorf("ridge beta differs from (H^T H + cI)^-1 H^T T by %.3g", d)
	}
}

func TestDependentColumnRefused(t *testing.T) {
	s, h, _ := randomLS(t, 100, 5, 2, 3)
	before := s.ResidualNorm2()
	// A combination of the columns already there is refused...
	dep := make([]float64, 100)
	for i := range dep {
		dep[i] = 2*h.At(i, 0) - 0.5*h.At(i, 3)
	}
	if s.Add(dep) {
		t.Fatal("a linear combination of chosen columns was accepted")
	}
	// ...so is an exact copy and a zero column, and nothing changes.
	if s.Add(mat.Col(nil, 2, h)) || s.Add(make([]float64, 100)) {
		t.Fatal("a copy or a zero column was accepted")
	}
	if s.L != 5 || s.ResidualNorm2() != before {
		t.Fatalf("refused columns changed the factorisation: l=%d", s.L)
	}
	beta, _ := s.Solve(5, 0)
	for i, v := range beta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("beta %d is %v", i, v)
		}
	}
}
