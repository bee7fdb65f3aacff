package node

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestGroupXi: a candidate's projections equal the closed form
// e_q^T H (H^T H)^-1 H^T e_q (gonum's least squares of e_q on H), for a
// candidate of full column rank; a column of zeros adds nothing.
func TestGroupXi(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, per, m = 200, 4, 3
	h := make([]float32, per*n)
	for i := range h {
		h[i] = float32(rng.NormFloat64())
	}
	e := make([]float64, m*n)
	for i := range e {
		e[i] = rng.NormFloat64()
	}
	hd := mat.NewDense(n, per, nil)
	for a := 0; a < per; a++ {
		for i := 0; i < n; i++ {
			hd.Set(i, a, float64(h[a*n+i]))
		}
	}
	want := func(hd *mat.Dense, q int) float64 {
		eq := mat.NewVecDense(n, e[q*n:(q+1)*n])
		var b mat.VecDense
		if err := b.SolveVec(hd, eq); err != nil {
			t.Fatal(err)
		}
		var p mat.VecDense
		p.MulVec(hd, &b)
		return mat.Dot(eq, &p)
	}
	got := GroupXi(h, e, n, per, m)
	for q := 0; q < m; q++ {
		if w := want(hd, q); math.Abs(got[q]-w) > 1e-9*(1+w) {
			t.Errorf("output %d: %v, closed form %v", q, got[q], w)
		}
		if got[q] < 0 || got[q] > mat.Dot(mat.NewVecDense(n, e[q*n:(q+1)*n]), mat.NewVecDense(n, e[q*n:(q+1)*n]))*(1+1e-12) {
			t.Errorf("output %d: projection %v outside [0, e^T e]", q, got[q])
		}
	}
	// A column of zeros (a filter that never fires) changes nothing.
	hz := append(append([]float32(nil), h[:(per-1)*n]...), make([]float32, n)...)
	hd3 := hd.Slice(0, n, 0, per-1).(*mat.Dense)
	gz := GroupXi(hz, e, n, per, m)
	for q := 0; q < m; q++ {
		if w := want(hd3, q); math.Abs(gz[q]-w) > 1e-9*(1+w) {
			t.Errorf("with a zero column, output %d: %v, closed form on the others %v", q, gz[q], w)
		}
	}
	// All zeros: nothing.
	for q, v := range GroupXi(make([]float32, per*n), e, n, per, m) {
		if v != 0 {
			t.Errorf("zero candidate, output %d: %v, want 0", q, v)
		}
	}
}

// TestProjectionsDiagonal: with a diagonal G the projections are
// sum_a p_a^2 / g_a, over the eigenvalues above the tolerance.
func TestProjectionsDiagonal(t *testing.T) {
	g := []float64{
		2, 0, 0,
		0, 4, 0,
		0, 0, 0,
	}
	p := []float64{ // 3 x 2
		1, 2,
		2, 0,
		5, 7, // on the zero eigenvalue: left out
	}
	got := Projections(g, p, 3, 2)
	want := []float64{1.0/2 + 4.0/4, 4.0 / 2}
	for q := range want {
		if math.Abs(got[q]-want[q]) > 1e-14 {
			t.Errorf("output %d: %v, want %v", q, got[q], want[q])
		}
	}
}

// TestAdmissibleGroups: the first ratio that admits b candidates is
// taken, best sum first, ties in order; else the last ratio with what it
// admits; no ratios, nothing.
func TestAdmissibleGroups(t *testing.T) {
	// Three candidates, two outputs: proj[j*m+q].
	proj := []float64{
		1, 1, // j=0
		3, 0.5, // j=1
		2, 2, // j=2
	}
	ee := []float64{2, 2}
	// r = 0.9: xi = proj - 0.2: all admitted; sums 1.6, 3.1, 3.6.
	order, r := AdmissibleGroups(proj, 3, 2, []float64{0.9}, ee, 2)
	if !slices.Equal(order, []int{2, 1}) || r != 0.9 {
		t.Errorf("r 0.9, b 2: %v at %v, want [2 1] at 0.9", order, r)
	}
	// r = 0.5: xi = proj - 1: j=0 (0, 0) and j=2 admitted; j=1 not (-0.5).
	// Asked for 3, the first ratio admits 2, the second (0.9) all 3.
	order, r = AdmissibleGroups(proj, 3, 2, []float64{0.5, 0.9}, ee, 3)
	if !slices.Equal(order, []int{2, 1, 0}) || r != 0.9 {
		t.Errorf("ratios 0.5, 0.9, b 3: %v at %v, want [2 1 0] at 0.9", order, r)
	}
	// Asked for 2, the first ratio suffices.
	order, r = AdmissibleGroups(proj, 3, 2, []float64{0.5, 0.9}, ee, 2)
	if !slices.Equal(order, []int{2, 0}) || r != 0.5 {
		t.Errorf("ratios 0.5, 0.9, b 2: %v at %v, want [2 0] at 0.5", order, r)
	}
	// r = 0.1: xi = proj - 1.8: only j=2; the last ratio gives what it has.
	order, r = AdmissibleGroups(proj, 3, 2, []float64{0.1}, ee, 2)
	if !slices.Equal(order, []int{2}) || r != 0.1 {
		t.Errorf("r 0.1: %v at %v, want [2] at 0.1", order, r)
	}
	// Equal sums keep their order.
	order, _ = AdmissibleGroups([]float64{1, 1, 1, 1}, 2, 2, []float64{1}, ee, 2)
	if !slices.Equal(order, []int{0, 1}) {
		t.Errorf("ties: %v, want [0 1]", order)
	}
	if order, r := AdmissibleGroups(proj, 3, 2, nil, ee, 2); order != nil || r != 0 {
		t.Errorf("no ratios: %v at %v, want nothing", order, r)
	}
}
