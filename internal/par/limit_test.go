package par

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// running counts the calls of f running at once, and their peak.
type running struct{ now, peak atomic.Int32 }

func (r *running) enter() {
	n := r.now.Add(1)
	for {
		p := r.peak.Load()
		if n <= p || r.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(200 * time.Microsecond)
	r.now.Add(-1)
}

// TestLimited: within Limited(w), loops (nested ones too) run at most w
// chunks at once and still cover every chunk once; other goroutines and
// the goroutine after the call are not limited; the limit nests.
func TestLimited(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, w := range []int{1, 2, 3} {
		var r running
		hits := make([]atomic.Int32, 40*5)
		Limited(w, func() {
			Chunks(40, 1, func(c, _, _ int) {
				Chunks(5, 1, func(d, _, _ int) {
					hits[c*5+d].Add(1)
					r.enter()
				})
			})
		})
		if p := r.peak.Load(); p > int32(w) {
			t.Errorf("Limited(%d): %d chunks ran at once", w, p)
		}
		for i := range hits {
			if hits[i].Load() != 1 {
				t.Fatalf("Limited(%d): chunk %d ran %d times", w, i, hits[i].Load())
			}
		}
	}
	// Nesting: the smaller limit holds; the outer one is restored after.
	Limited(3, func() {
		Limited(1, func() {
			if w, ok := currentLimit(); !ok || w.workers != 1 {
				t.Errorf("nested limit %d %v, want 1", w.workers, ok)
			}
		})
		if w, ok := currentLimit(); !ok || w.workers != 3 {
			t.Errorf("limit after a nested call %d %v, want 3", w.workers, ok)
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := currentLimit(); ok {
				t.Error("another goroutine is limited")
			}
		}()
		wg.Wait()
	})
	if _, ok := currentLimit(); ok || limitedN.Load() != 0 {
		t.Error("a limit outlives its call")
	}
	var r running
	Chunks(40, 1, func(int, int, int) { r.enter() })
	if r.peak.Load() < 2 {
		t.Log("unlimited loop ran one chunk at a time (a busy machine?)")
	}
}

func BenchmarkGoid(b *testing.B) {
	for i := 0; i < b.N; i++ {
		goid()
	}
}

func BenchmarkSelfID(b *testing.B) {
	for i := 0; i < b.N; i++ {
		selfID()
	}
}

// TestGoid: goid reads distinct ids of distinct goroutines, the same one
// twice in one.
func TestGoid(t *testing.T) {
	a := goid()
	if a == 0 || goid() != a {
		t.Fatalf("goid %d, then %d", a, goid())
	}
	c := make(chan uint64)
	go func() { c <- goid() }()
	if b := <-c; b == a || b == 0 {
		t.Errorf("another goroutine's id %d, this one's %d", b, a)
	}
}
