package lsq

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestStackedRidge: the weights over two parts from the first part's
// normal equations and the second part's rows equal the ridge solve over
// the stacked rows (gonum's LU), and the residual sum of squares from the
// normal equations equals ||T - H beta||^2 over both parts.
func TestStackedRidge(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const n1, n2, l, m, alpha = 70, 25, 7, 2, 0.3
	fill := func(r, c int) *mat.Dense {
		d := mat.NewDense(r, c, nil)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				d.Set(i, j, rng.NormFloat64())
			}
		}
		return d
	}
	h1, t1, hv, tv := fill(n1, l), fill(n1, m), fill(n2, l), fill(n2, m)
	var g mat.SymDense
	g.SymOuterK(1, h1.T())
	var ht mat.Dense
	ht.Mul(h1.T(), t1)
	beta, rss, err := StackedRidge(&g, &ht, hv, tv, alpha, t1.RawMatrix().Data, tv.RawMatrix().Data)
	if err != nil {
		t.Fatal(err)
	}
	h := mat.NewDense(n1+n2, l, nil)
	h.Stack(h1, hv)
	tt := mat.NewDense(n1+n2, m, nil)
	tt.Stack(t1, tv)
	var a mat.Dense
	a.Mul(h.T(), h)
	for j := 0; j < l; j++ {
		a.Set(j, j, a.At(j, j)+alpha)
	}
	var b, want mat.Dense
	b.Mul(h.T(), tt)
	if err := want.Solve(&a, &b); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < l; i++ {
		for q := 0; q < m; q++ {
			if w := want.At(i, q); math.Abs(beta[i*m+q]-w) > 1e-10*(1+math.Abs(w)) {
				t.Fatalf("beta[%d,%d] = %v, stacked solve %v", i, q, beta[i*m+q], w)
			}
		}
	}
	var r mat.Dense
	r.Mul(h, mat.NewDense(l, m, beta))
	r.Sub(tt, &r)
	wantRSS := mat.Norm(&r, 2)
	wantRSS *= wantRSS
	if math.Abs(rss-wantRSS) > 1e-9*wantRSS {
		t.Errorf("rss %v, from the residual %v", rss, wantRSS)
	}
	// g now holds G + alpha I of both parts.
	if d := math.Abs(g.At(2, 2) - a.At(2, 2)); d > 1e-12*a.At(2, 2) {
		t.Errorf("g[2,2] = %v, want G + alpha I's %v", g.At(2, 2), a.At(2, 2))
	}
}
