package par

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestBackground: within Background the loops run at most workers chunks
// at once, cover every chunk once and give the bits an unlimited loop
// gives; a panic in f reaches the caller; nothing stays limited after.
func TestBackground(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	sums := func(run func(func())) []float64 {
		out := make([]float64, 64)
		run(func() {
			Chunks(64, 1, func(c, _, _ int) {
				// The inner chunks may run at once: each sums its own
				// part, and the parts are added in chunk order.
				parts := make([]float64, (100+6)/7)
				Chunks(100, 7, func(d, lo, hi int) {
					for i := lo; i < hi; i++ {
						parts[d] += 1 / float64(c*100+i+1)
					}
				})
				s := 0.0
				for _, v := range parts {
					s += v
				}
				out[c] = s
			})
		})
		return out
	}
	want := sums(func(f func()) { f() })
	for _, w := range []int{1, 2, 0} {
		var r running
		hits := make([]atomic.Int32, 40)
		Background(w, func() {
			Chunks(40, 1, func(c, _, _ int) {
				hits[c].Add(1)
				r.enter()
			})
		})
		limit := int32(w)
		if w == 0 {
			limit = 4
		}
		if p := r.peak.Load(); p > limit {
			t.Errorf("Background(%d): %d chunks ran at once", w, p)
		}
		for i := range hits {
			if hits[i].Load() != 1 {
				t.Fatalf("Background(%d): chunk %d ran %d times", w, i, hits[i].Load())
			}
		}
		got := sums(func(f func()) { Background(w, f) })
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("Background(%d): chunk %d sums %v, unlimited %v", w, i, got[i], want[i])
			}
		}
	}
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want the panic of f", r)
			}
		}()
		Background(1, func() { panic("boom") })
		t.Error("Background returned after a panic in f")
	}()
	if _, ok := currentLimit(); ok || limitedN.Load() != 0 {
		t.Error("a limit outlives Background")
	}
}

// TestInBackground: true in f and in the chunks of its loops, false
// outside, in Limited and after.
func TestInBackground(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	if InBackground() {
		t.Error("InBackground outside Background")
	}
	Limited(2, func() {
		if InBackground() {
			t.Error("InBackground within Limited")
		}
	})
	var outside atomic.Int32
	Background(2, func() {
		if !InBackground() {
			outside.Add(1)
		}
		Chunks(16, 1, func(c, _, _ int) {
			if !InBackground() {
				outside.Add(1)
			}
		})
	})
	if n := outside.Load(); n != 0 {
		t.Errorf("%d calls within Background not in the background", n)
	}
	if InBackground() {
		t.Error("InBackground after Background")
	}
}
