package lsq

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// heldFixture is a Gram engine over n images of l columns (spanning two
// row shards) with m outputs, and the same outputs as a dense H.
func heldFixture(t *testing.T, n, l, m int) (*Gram, *mat.Dense, []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, 22))
	hb := make([]float32, l*n) // column-major: column j's n outputs
	h := mat.NewDense(n, l, nil)
	for j := 0; j < l; j++ {
		for i := 0; i < n; i++ {
			v := float32(rng.NormFloat64())
			hb[j*n+i] = v
			h.Set(i, j, float64(v))
		}
	}
	tt := make([]float64, n*m)
	for i := range tt {
		tt[i] = rng.NormFloat64()
	}
	g := NewGram(tt, n, m, 0.01, false, l)
	if ok := g.AddBlock(hb, l); slices.Contains(ok, false) {
		t.Fatalf("columns dropped: %v", ok)
	}
	return g, h, tt
}

// TestHeldRows: both layouts hold the engine's outputs on the images
// asked for, across row shards, and their targets.
func TestHeldRows(t *testing.T) {
	defer func(r int) { ShardRows = r }(ShardRows)
	ShardRows = 16
	const n, l, m = 50, 5, 2
	g, h, tt := heldFixture(t, n, l, m)
	idx := []int{3, 17, 49, 0}
	rows, th := g.HeldRows(tt, m, idx, false)
	cols, th2 := g.HeldRows(tt, m, idx, true)
	if !slices.Equal(th, th2) {
		t.Fatal("the targets differ between the layouts")
	}
	for k, i := range idx {
		for j := 0; j < l; j++ {
			if rows[k*l+j] != h.At(i, j) || cols[j*len(idx)+k] != h.At(i, j) {
				t.Fatalf("image %d column %d: rows %v, columns %v, want %v", i, j, rows[k*l+j], cols[j*len(idx)+k], h.At(i, j))
			}
		}
		if !slices.Equal(th[k*m:(k+1)*m], tt[i*m:(i+1)*m]) {
			t.Fatalf("image %d: targets %v, want %v", i, th[k*m:(k+1)*m], tt[i*m:(i+1)*m])
		}
	}
}

// TestHeldOutputs: the out-of-fold outputs equal a direct ridge solve on
// the other images (gonum's LU), with and without further rows leaving
// the sums with the fold; an error from those rows is returned as it is,
// and a singular system is refused.
func TestHeldOutputs(t *testing.T) {
	defer func(r int) { ShardRows = r }(ShardRows)
	ShardRows = 32
	const n, l, m, r = 90, 6, 3, 0.5
	g, h, tt := heldFixture(t, n, l, m)
	g0, ht0 := g.NormalDense(l)
	work := make([]float64, l*l)
	idx := []int{1, 40, 41, 88}
	// direct solves the ridge system over the images outside drop.
	direct := func(drop map[int]bool) *mat.Dense {
		am := mat.NewDense(l, l, nil)
		bm := mat.NewDense(l, m, nil)
		for i := 0; i < n; i++ {
			if drop[i] {
				continue
			}
			hi := h.RawRowView(i)
			for p := 0; p < l; p++ {
				for q := 0; q < l; q++ {
					am.Set(p, q, am.At(p, q)+hi[p]*hi[q])
				}
				for q := 0; q < m; q++ {
					bm.Set(p, q, bm.At(p, q)+hi[p]*tt[i*m+q])
				}
			}
		}
		for p := 0; p < l; p++ {
			am.Set(p, p, am.At(p, p)+r)
		}
		var beta mat.Dense
		if err := beta.Solve(am, bm); err != nil {
			t.Fatal(err)
		}
		return &beta
	}
	check := func(what string, got []float64, beta *mat.Dense) {
		t.Helper()
		for k, i := range idx {
			for q := 0; q < m; q++ {
				want := mat.Dot(h.RowView(i), beta.ColView(q))
				if d := math.Abs(got[k*m+q] - want); d > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("%s: image %d output %d: %v, direct solve %v", what, i, q, got[k*m+q], want)
				}
			}
		}
	}
	drop := map[int]bool{}
	for _, i := range idx {
		drop[i] = true
	}
	got, err := g.HeldOutputs(tt, m, g0, ht0, work, idx, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("the fold alone", got, direct(drop))

	// Images 10 and 60 as the fold's copies: they leave the sums too.
	copies := func(fold []int, f func(rows int, h, th []float64)) error {
		if !slices.Equal(fold, idx) {
			t.Fatalf("copies asked of %v, want %v", fold, idx)
		}
		hc, tc := g.HeldRows(tt, m, []int{10, 60}, false)
		f(1, hc[:l], tc[:m]) // a chunk at a time
		f(1, hc[l:], tc[m:])
		return nil
	}
	got, err = g.HeldOutputs(tt, m, g0, ht0, work, idx, r, copies)
	if err != nil {
		t.Fatal(err)
	}
	drop[10], drop[60] = true, true
	check("the fold and its copies", got, direct(drop))

	boom := errors.New("boom")
	if _, err := g.HeldOutputs(tt, m, g0, ht0, work, idx, r, func([]int, func(int, []float64, []float64)) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("the copies' error: %v, want %v", err, boom)
	}
	// A system that is not positive definite (a large negative ridge)
	// is refused with the ridge named.
	if _, err := g.HeldOutputs(tt, m, g0, ht0, work, idx, -1e6, nil); err == nil || !strings.Contains(err.Error(), "ridge -1e+06") {
		t.Errorf("a negative definite system: %v, want a ridge error", err)
	}
}
