package direct

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// TestPrimalDualScoresAgree: the primal and the dual ridge solutions of
// the same system give the same held-out outputs, prefix by prefix.
func TestPrimalDualScoresAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, nv, rows, cols, L, mm = 12, 5, 2, 3, 4, 2
	img := func(k int) Images {
		x := Images{Rows: rows, Cols: cols, Pix: make([]float32, k*rows*cols)}
		for i := range x.Pix {
			x.Pix[i] = rng.Float32()
		}
		return x
	}
	x, xv := img(n), img(nv)
	d := Dim(0, rows, cols, 1)
	rnd := func(r, c int) blas64.General {
		g := blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
		for i := range g.Data {
			g.Data[i] = rng.NormFloat64()
		}
		return g
	}
	h, hv := rnd(n, L), rnd(nv, L)
	tt := make([]float64, n*mm)
	for i := range tt {
		tt[i] = rng.NormFloat64()
	}
	// The normal equations of [F H] over the training part.
	f := Rows(x, 1).RawMatrix()
	k := d + L
	a := make([]float64, n*k)
	for i := 0; i < n; i++ {
		copy(a[i*k:], f.Data[i*f.Stride:i*f.Stride+d])
		copy(a[i*k+d:], h.Data[i*h.Stride:i*h.Stride+L])
	}
	g := make([]float64, k*k)
	at := make([]float64, k*mm)
	for i := 0; i < n; i++ {
		for p := 0; p < k; p++ {
			for q := 0; q < k; q++ {
				g[p*k+q] += a[i*k+p] * a[i*k+q]
			}
			for q := 0; q < mm; q++ {
				at[p*mm+q] += a[i*k+p] * tt[i*mm+q]
			}
		}
	}
	type key struct {
		l     int
		alpha float64
	}
	collect := func(into map[key][]float64) Scored {
		return func(l int, alpha float64, pred []float64) { into[key{l, alpha}] = append([]float64(nil), pred...) }
	}
	grid, ridges := []int{0, 2, 4}, []float64{0, 0.5, 3}
	primal, dual := map[key][]float64{}, map[key][]float64{}
	PrimalScores(g, at, k, mm, d, nv, grid, ridges, Rows(xv, 1).RawMatrix(), hv, collect(primal))
	kk, kv := DualKernels(x, xv, 1)
	DualScores(kk, kv, n, nv, mm, tt, h, hv, grid, ridges, collect(dual))
	if len(primal) != 6 || len(dual) != 6 {
		t.Fatalf("scored %d primal and %d dual pairs, want 6 each (ridge 0 left out)", len(primal), len(dual))
	}
	for kk, p := range primal {
		q := dual[kk]
		for i := range p {
			if math.Abs(p[i]-q[i]) > 1e-8*(1+math.Abs(p[i])) {
				t.Fatalf("%+v: primal %v, dual %v", kk, p, q)
			}
		}
	}
	// Pooled features: the kernels are the pooled rows' products.
	kp, kvp := DualKernels(x, xv, 2)
	fp, fvp := Rows(x, 2).RawMatrix(), Rows(xv, 2).RawMatrix()
	dp := Dim(0, rows, cols, 2)
	for i := 0; i < nv; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for c := 0; c < dp; c++ {
				s += fvp.Data[i*fvp.Stride+c] * fp.Data[j*fp.Stride+c]
			}
			if math.Abs(kvp[i*n+j]-s) > 1e-9 {
				t.Fatalf("pooled kernel (%d, %d) = %v, want %v", i, j, kvp[i*n+j], s)
			}
		}
	}
	if len(kp) != n*n {
		t.Fatalf("pooled training kernel of %d values", len(kp))
	}
}

func TestDualGrid(t *testing.T) {
	short := []int{0, 1, 2}
	if got := DualGrid(short); len(got) != 3 {
		t.Fatalf("DualGrid(%v) = %v", short, got)
	}
	var long []int
	for l := 0; l <= 100; l++ {
		long = append(long, l)
	}
	got := DualGrid(long)
	if len(got) != DualPoints || got[0] != 0 || got[DualPoints-1] != 100 {
		t.Fatalf("DualGrid of 101 lengths = %v", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("not increasing: %v", got)
		}
	}
}
