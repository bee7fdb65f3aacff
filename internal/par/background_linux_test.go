package par

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// threadNice returns the calling thread's nice value (/proc/thread-self/
// stat, field 19); the goroutine must be locked to its thread.
func threadNice(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		t.Skipf("no /proc/thread-self: %v", err)
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	// fields[0] is field 3 (state): nice, field 19, is fields[16].
	n, err := strconv.Atoi(fields[16])
	if err != nil {
		t.Fatalf("stat %q: %v", s, err)
	}
	return n
}

// TestBackgroundNice: f and the chunk goroutines of its loops run on
// threads backgroundSteps nice steps below the caller's (at most 19); the caller's thread, and a later loop's, keep their
// priority (the lowered threads end with their goroutines).
func TestBackgroundNice(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := threadNice(t)
	if before >= 19 {
		t.Skipf("the test runs at nice %d already", before)
	}
	want := min(19, before+backgroundSteps)
	var mu sync.Mutex
	var nices []int
	record := func() {
		n := threadNice(t)
		mu.Lock()
		nices = append(nices, n)
		mu.Unlock()
	}
	Background(2, func() {
		record()
		Chunks(8, 1, func(c, _, _ int) {
			runtime.LockOSThread() // read this chunk's thread, not another's
			defer runtime.UnlockOSThread()
			record()
		})
	})
	if len(nices) != 9 {
		t.Fatalf("%d threads recorded, want 9", len(nices))
	}
	for i, n := range nices {
		if n != want {
			t.Errorf("thread %d of Background runs at nice %d, want %d", i, n, want)
		}
	}
	if n := threadNice(t); n != before {
		t.Errorf("the caller's thread is at nice %d after Background, was %d", n, before)
	}
	// Loops after Background run on threads at the process's priority.
	nices = nil
	Chunks(16, 1, func(c, _, _ int) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		record()
	})
	for i, n := range nices {
		if n != before {
			t.Errorf("chunk %d after Background runs at nice %d, want %d", i, n, before)
		}
	}
}
