package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The float64 kernels against plain loops, for lengths around the 8-element
// blocks and a row stride longer than the rows.
func TestRows4MatchLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, 8, 9, 16, 31, 512, 515} {
		lda := n + 5
		a := make([]float64, 3*lda+n+1)
		x := make([]float64, n+1)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		var got [4]float64
		DotRows4(a, lda, x, n, &got)
		for r := 0; r < 4; r++ {
			var want, abs float64
			for i := 0; i < n; i++ {
				want += a[r*lda+i] * x[i]
				abs += math.Abs(a[r*lda+i] * x[i])
			}
			// The Go loop (no AVX2) keeps the plain loop's order: exact.
			if !Available && got[r] != want {
				t.Errorf("DotRows4 n=%d row %d: %v, want %v exactly", n, r, got[r], want)
			}
			if math.Abs(got[r]-want) > 1e-14*(abs+1) {
				t.Errorf("DotRows4 n=%d row %d: %v, want %v", n, r, got[r], want)
			}
		}
		c := [4]float64{0.5, -1.25, 2, -0.75}
		y := append([]float64(nil), x...)
		AxpyRows4(a, lda, &c, y, n)
		for i := 0; i < n; i++ {
			want := x[i]
			for r := 0; r < 4; r++ {
				want += c[r] * a[r*lda+i]
			}
			if !Available && y[i] != want {
				t.Errorf("AxpyRows4 n=%d [%d]: %v, want %v exactly", n, i, y[i], want)
			}
			if math.Abs(y[i]-want) > 1e-14*(math.Abs(want)+4) {
				t.Errorf("AxpyRows4 n=%d [%d]: %v, want %v", n, i, y[i], want)
			}
		}
		if y[n] != x[n] {
			t.Errorf("AxpyRows4 n=%d wrote past n", n)
		}
	}
}
