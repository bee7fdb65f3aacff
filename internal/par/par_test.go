package par

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
)

func TestChunksCoverTheRangeOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 64, 1000, 1001} {
		for _, chunk := range []int{1, 3, 64, 5000} {
			for _, workers := range []int{0, 1, 2, 5, 100} {
				hits := make([]atomic.Int32, n)
				var calls atomic.Int32
				ChunksOn(workers, n, chunk, func(c, lo, hi int) {
					calls.Add(1)
					if lo != c*chunk || hi != min(n, lo+chunk) || lo >= hi {
						t.Errorf("n=%d chunk=%d: chunk %d is [%d, %d)", n, chunk, c, lo, hi)
					}
					for i := lo; i < hi; i++ {
						hits[i].Add(1)
					}
				})
				if want := (n + chunk - 1) / chunk; int(calls.Load()) != want {
					t.Errorf("n=%d chunk=%d workers=%d: %d calls, want %d", n, chunk, workers, calls.Load(), want)
				}
				for i := range hits {
					if hits[i].Load() != 1 {
						t.Fatalf("n=%d chunk=%d workers=%d: index %d seen %d times", n, chunk, workers, i, hits[i].Load())
					}
				}
			}
		}
	}
}

// TestChunkSumsAreDeterministic checks the contract: partial sums per
// chunk, added in chunk order, give the same bits on any number of
// goroutines (a plain sum in arrival order would not).
func TestChunkSumsAreDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, 100003)
	for i := range x {
		x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)))
	}
	sum := func(workers int) float64 {
		const chunk = 997
		parts := make([]float64, (len(x)+chunk-1)/chunk)
		ChunksOn(workers, len(x), chunk, func(c, lo, hi int) {
			for _, v := range x[lo:hi] {
				parts[c] += v
			}
		})
		var s float64
		for _, p := range parts {
			s += p
		}
		return s
	}
	want := sum(1)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 3, 8} {
		runtime.GOMAXPROCS(procs)
		for _, w := range []int{0, 2, 7, 64} {
			if got := sum(w); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("GOMAXPROCS %d, %d workers: %v, want %v", procs, w, got, want)
			}
		}
	}
}

func TestBadChunkPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("chunk 0 accepted")
		}
	}()
	Chunks(10, 0, func(int, int, int) {})
}
