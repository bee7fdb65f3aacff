package par

import "runtime"

// Background runs f as Limited(workers, f) does, on threads of a lower
// scheduling priority than the caller's (Linux: backgroundSteps nice
// steps lower, thread by thread), and so do the goroutines this package's
// loops start within it. The operating system then runs any other thread
// of the process that is ready (a prediction) before f's work: f may use
// every core while nothing else needs one, and yields them at once when
// something does, rather than at the Go scheduler's next preemption (10 ms
// or more). For that to work, the process needs more Ps than f takes
// (runtime.GOMAXPROCS above the cores f's workers can hold), so that the
// others' goroutines find a P while f runs.
//
// A thread's priority cannot be raised again without privilege, so f runs
// in a goroutine of its own whose thread ends with it (it stays locked);
// Background returns when f has returned, and a panic in f is raised again
// in the caller. Where lowering a thread's priority is not supported
// (other systems, or a refusal), Background is Limited. The loops' chunks
// are the same: results are the bits they are without it. workers < 1
// means GOMAXPROCS.
func Background(workers int, f func()) {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	done := make(chan any, 1)
	go func() {
		// Never unlocked: the goroutine ends locked, so the runtime
		// ends its thread, and the thread's priority with it.
		runtime.LockOSThread()
		defer func() { done <- recover() }()
		lowerPriority()
		limitedAs(workers, true, f)
	}()
	if p := <-done; p != nil {
		panic(p)
	}
}

// InBackground reports whether the calling goroutine runs within
// Background (in f, or in a chunk of a loop f runs). Code that would hold
// a lock other threads need for a long time (bigmem's mapping of a large
// buffer in one call holds the process's memory-map lock) asks it: a
// thread of low priority holding such a lock stalls every thread that
// waits for it, the very threads Background yields to.
func InBackground() bool {
	l, ok := currentLimit()
	return ok && l.background
}
