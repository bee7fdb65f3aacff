package lsq

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestChunkSums: the sums of images written a few columns at a time
// equal G = H^T H (lower triangle), H^T T and T^T T formed directly,
// whatever the chunk width; kept chunks hold every image's outputs in
// order; without G only H^T T and T^T T are formed.
func TestChunkSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	const n, l, m = 37, 5, 2
	h, tt := make([]float64, n*l), make([]float64, n*m) // image-major
	for i := range h {
		h[i] = rng.NormFloat64()
	}
	for i := range tt {
		tt[i] = rng.NormFloat64()
	}
	for _, cw := range []int{1, 8, 37} {
		g, ht, ttt := make([]float64, l*l), make([]float64, l*m), make([]float64, m*m)
		cs := NewChunkSums(l, m, cw, g, ht, ttt, nil, true)
		for i := 0; i < n; {
			take := min(3, n-i, cs.Room()) // writes of up to 3 images
			for r := 0; r < take; r++ {
				for j := 0; j < l; j++ {
					cs.H[j*cw+cs.Filled+r] = h[(i+r)*l+j]
				}
				for q := 0; q < m; q++ {
					cs.T[q*cw+cs.Filled+r] = tt[(i+r)*m+q]
				}
			}
			i += take
			cs.Added(take)
		}
		cs.Flush()
		for a := 0; a < l; a++ {
			for b := 0; b <= a; b++ {
				var s float64
				for i := 0; i < n; i++ {
					s += h[i*l+a] * h[i*l+b]
				}
				if math.Abs(g[a*l+b]-s) > 1e-12*(1+math.Abs(s)) {
					t.Fatalf("cw %d: G[%d,%d] = %v, want %v", cw, a, b, g[a*l+b], s)
				}
			}
			for q := 0; q < m; q++ {
				var s float64
				for i := 0; i < n; i++ {
					s += h[i*l+a] * tt[i*m+q]
				}
				if math.Abs(ht[a*m+q]-s) > 1e-12*(1+math.Abs(s)) {
					t.Fatalf("cw %d: H^T T[%d,%d] = %v, want %v", cw, a, q, ht[a*m+q], s)
				}
			}
		}
		for p := 0; p < m; p++ {
			for q := 0; q < m; q++ {
				var s float64
				for i := 0; i < n; i++ {
					s += tt[i*m+p] * tt[i*m+q]
				}
				if math.Abs(ttt[p*m+q]-s) > 1e-12*(1+math.Abs(s)) {
					t.Fatalf("cw %d: T^T T[%d,%d] = %v, want %v", cw, p, q, ttt[p*m+q], s)
				}
			}
		}
		// The kept chunks: every image once, in order.
		var got []float64
		rows := 0
		for _, c := range cs.Kept() {
			if c.LD != cw {
				t.Fatalf("cw %d: a chunk of leading dimension %d", cw, c.LD)
			}
			for r := 0; r < c.Rows; r++ {
				for j := 0; j < l; j++ {
					got = append(got, c.H[j*c.LD+r])
				}
			}
			rows += c.Rows
		}
		if rows != n || !slices.Equal(got, h) {
			t.Fatalf("cw %d: kept chunks of %d images, not the %d written", cw, rows, n)
		}
	}
	// Without G, and with a buffer of the caller's: G is not formed and
	// the buffer is used.
	buf := make([]float64, l*8+3)
	ht, ttt := make([]float64, l*m), make([]float64, m*m)
	cs := NewChunkSums(l, m, 8, nil, ht, ttt, buf, false)
	if &cs.H[0] != &buf[0] {
		t.Error("the caller's buffer is not used")
	}
	cs.H[0], cs.T[0] = 2, 3
	cs.Added(1)
	cs.Flush()
	if ht[0] != 6 || ttt[0] != 9 || cs.Kept() != nil {
		t.Errorf("one image: H^T T %v, T^T T %v, kept %v", ht[0], ttt[0], cs.Kept())
	}
}
