package lsq

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSumsRSS: the residual sum of squares from the sums equals
// ||T - H beta||^2 formed from H for any beta (SumsRSS) and for the ridge
// solution (SolvedRSS, which assumes it); a perfect fit gives 0, not a
// rounding error below it.
func TestSumsRSS(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	const n, l, m, ridge = 60, 5, 3, 0.4
	h, tt := mat.NewDense(n, l, nil), mat.NewDense(n, m, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < l; j++ {
			h.Set(i, j, rng.NormFloat64())
		}
		for q := 0; q < m; q++ {
			tt.Set(i, q, rng.NormFloat64())
		}
	}
	var g, ht, ttt mat.Dense
	g.Mul(h.T(), h)
	ht.Mul(h.T(), tt)
	ttt.Mul(tt.T(), tt)
	direct := func(beta []float64) float64 {
		var r mat.Dense
		r.Mul(h, mat.NewDense(l, m, beta))
		r.Sub(tt, &r)
		f := mat.Norm(&r, 2)
		return f * f
	}
	gr, hr, tr := g.RawMatrix().Data, ht.RawMatrix().Data, ttt.RawMatrix().Data
	anyBeta := make([]float64, l*m)
	for i := range anyBeta {
		anyBeta[i] = rng.NormFloat64()
	}
	if got, want := SumsRSS(gr, hr, tr, anyBeta, l, m), direct(anyBeta); math.Abs(got-want) > 1e-10*want {
		t.Errorf("SumsRSS %v, from the residual %v", got, want)
	}
	var a mat.Dense
	a.CloneFrom(&g)
	for j := 0; j < l; j++ {
		a.Set(j, j, a.At(j, j)+ridge)
	}
	var sol mat.Dense
	if err := sol.Solve(&a, &ht); err != nil {
		t.Fatal(err)
	}
	beta := sol.RawMatrix().Data
	want := direct(beta)
	if got := SolvedRSS(hr, tr, beta, m, ridge); math.Abs(got-want) > 1e-9*want {
		t.Errorf("SolvedRSS %v, from the residual %v", got, want)
	}
	if got := SumsRSS(gr, hr, tr, beta, l, m); math.Abs(got-want) > 1e-9*want {
		t.Errorf("SumsRSS of the ridge solution %v, from the residual %v", got, want)
	}
	// T = H B exactly: the sums' rounding must not go below 0.
	b := make([]float64, l*m)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	var exact, hte, tte mat.Dense
	exact.Mul(h, mat.NewDense(l, m, b))
	hte.Mul(h.T(), &exact)
	tte.Mul(exact.T(), &exact)
	if got := SumsRSS(gr, hte.RawMatrix().Data, tte.RawMatrix().Data, b, l, m); got < 0 || got > 1e-9*mat.Trace(&tte) {
		t.Errorf("a perfect fit: SumsRSS %v, want 0 (to rounding, never below)", got)
	}
	if got := SolvedRSS(hte.RawMatrix().Data, tte.RawMatrix().Data, b, m, 0); got < 0 || got > 1e-9*mat.Trace(&tte) {
		t.Errorf("a perfect fit: SolvedRSS %v, want 0 (to rounding, never below)", got)
	}
}
