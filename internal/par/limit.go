package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Limited runs f with every loop of this package that f's goroutine calls
// (directly or through the goroutines those loops start) on at most
// workers goroutines: the calls still see the same fixed chunks, so their
// results are the bits they would be unlimited. It is how a background
// task (a served model's online learning) keeps its kernels off some of
// the cores while other goroutines (predictions) run unlimited. workers < 1
// means no limit. Calls nest: the smaller limit holds.
//
// The limit is per goroutine: a goroutine that f starts itself (other than
// through this package's loops) is not limited. The goroutine is locked to
// its thread while f runs (runtime.LockOSThread): on Linux the thread's id
// names it, a cheap look-up for the loops of every other goroutine.
func Limited(workers int, f func()) {
	if workers < 1 {
		f()
		return
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	id := selfID()
	if w, ok := limitOf(id); ok && w <= workers {
		f()
		return
	}
	prev, had := limits.Load(id)
	limits.Store(id, workers)
	limitedN.Add(1)
	defer func() {
		limitedN.Add(-1)
		if had {
			limits.Store(id, prev)
		} else {
			limits.Delete(id)
		}
	}()
	f()
}

var (
	limits   sync.Map     // goroutine id -> worker limit
	limitedN atomic.Int32 // Limited calls running: 0 skips the look-up
)

// limitOf returns the worker limit of goroutine id, if it has one.
func limitOf(id uint64) (int, bool) {
	w, ok := limits.Load(id)
	if !ok {
		return 0, false
	}
	return w.(int), true
}

// currentLimit returns the calling goroutine's worker limit, if any.
func currentLimit() (int, bool) {
	if limitedN.Load() == 0 {
		return 0, false
	}
	return limitOf(selfID())
}

// goid returns the calling goroutine's id, read from its stack trace's
// first line ("goroutine 123 [running]:"): microseconds (selfID where
// there is no thread id).
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		return 0
	}
	var id uint64
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
