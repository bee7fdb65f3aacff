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
	limitedAs(workers, false, f)
}

// limitedAs is Limited with the background mark: a goroutine within
// Background keeps it through nested calls, and the loops it runs start
// their goroutines on threads of the lowest priority.
func limitedAs(workers int, background bool, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	id := selfID()
	cur, had := limitOf(id)
	background = background || (had && cur.background)
	if had && cur.workers <= workers && cur.background == background {
		f()
		return
	}
	if had {
		workers = min(workers, cur.workers)
	}
	limits.Store(id, limit{workers: workers, background: background})
	limitedN.Add(1)
	defer func() {
		limitedN.Add(-1)
		if had {
			limits.Store(id, cur)
		} else {
			limits.Delete(id)
		}
	}()
	f()
}

// limit is a limited goroutine's bound: its workers, and whether it runs
// within Background.
type limit struct {
	workers    int
	background bool
}

var (
	limits   sync.Map     // goroutine id -> limit
	limitedN atomic.Int32 // Limited calls running: 0 skips the look-up
)

// limitOf returns the limit of goroutine id, if it has one.
func limitOf(id uint64) (limit, bool) {
	w, ok := limits.Load(id)
	if !ok {
		return limit{}, false
	}
	return w.(limit), true
}

// currentLimit returns the calling goroutine's limit, if any.
func currentLimit() (limit, bool) {
	if limitedN.Load() == 0 {
		return limit{}, false
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
