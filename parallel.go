package scn

import (
	"runtime"
	"sync"
)

// forChunks calls f(lo, hi) for consecutive chunks [lo, hi) of [0, n) of
// the given size, on up to GOMAXPROCS goroutines. The chunks do not depend on
// the number of goroutines, so any per-chunk partial results, combined in
// chunk order by the caller, are the same whatever GOMAXPROCS is.
func forChunks(n, chunk int, f func(c, lo, hi int)) {
	chunks := (n + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 {
		for c := 0; c < chunks; c++ {
			f(c, c*chunk, min(n, (c+1)*chunk))
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, chunks)
	for c := 0; c < chunks; c++ {
		next <- c
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				f(c, c*chunk, min(n, (c+1)*chunk))
			}
		}()
	}
	wg.Wait()
}
