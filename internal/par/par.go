// Package par is the project's one goroutine pool: a loop over fixed
// chunks of a range, run on up to GOMAXPROCS goroutines.
//
// Determinism contract: the chunks are fixed by n and the chunk size alone,
// never by the number of goroutines, and f sees each chunk exactly once. A
// caller that keeps one partial result per chunk (indexed by c) and
// combines them in chunk order after Chunks returns gets the same bits
// whatever GOMAXPROCS is; so does one whose chunks write disjoint parts of
// the output. This is what lets a fit give the same model file, byte for
// byte, on any number of cores. Limited bounds the loops one goroutine
// runs to fewer goroutines (a background task beside others), under the
// same contract.
package par

import (
	"runtime"
	"sync"
)

// Chunks calls f(c, lo, hi) for every chunk c of [0, n): lo = c*chunk,
// hi = min(n, lo+chunk), on up to GOMAXPROCS goroutines (in the calling
// goroutine when there is one chunk or one processor). It returns when
// every call has returned. f must be safe to call concurrently for
// different chunks. chunk must be positive.
func Chunks(n, chunk int, f func(c, lo, hi int)) { ChunksOn(0, n, chunk, f) }

// ChunksOn is Chunks on at most workers goroutines; workers < 1 means
// GOMAXPROCS, and 1 runs every chunk in order in the calling goroutine.
// Within Limited, the limit bounds workers too.
func ChunksOn(workers, n, chunk int, f func(c, lo, hi int)) {
	if chunk < 1 {
		panic("par: chunk size must be positive")
	}
	if n <= 0 {
		return
	}
	chunks := (n + chunk - 1) / chunk
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	var lim limit
	limited := false
	if workers > 1 && chunks > 1 { // the look-up costs a microsecond
		if lim, limited = currentLimit(); limited {
			workers = min(workers, lim.workers)
		}
	}
	workers = min(workers, chunks)
	if workers <= 1 {
		for c := 0; c < chunks; c++ {
			f(c, c*chunk, min(n, (c+1)*chunk))
		}
		return
	}
	next := make(chan int, chunks)
	for c := 0; c < chunks; c++ {
		next <- c
	}
	close(next)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if limited {
				if lim.background {
					// Never unlocked: the thread ends with this
					// goroutine, and its lowered priority with it.
					runtime.LockOSThread()
					lowerPriority()
				}
				// The loops f calls run in this goroutine: the
				// limit's workers are all busy already.
				limitedAs(1, lim.background, func() {
					for c := range next {
						f(c, c*chunk, min(n, (c+1)*chunk))
					}
				})
				return
			}
			for c := range next {
				f(c, c*chunk, min(n, (c+1)*chunk))
			}
		}()
	}
	wg.Wait()
}
