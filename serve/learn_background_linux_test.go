package serve

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// threadNice returns the nice value of the calling goroutine's thread
// (field 19 of /proc/thread-self/stat), locking the goroutine to it for
// the read.
func threadNice(t *testing.T) int {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		t.Skipf("no /proc/thread-self: %v", err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	n, err := strconv.Atoi(f[16])
	if err != nil {
		t.Fatalf("stat %q: %v", s, err)
	}
	return n
}

// TestLearnSolvesInBackground: a served model's solve runs on a thread of
// a lower priority than the server's (par.Background), and the solve's
// model is served as before.
func TestLearnSolvesInBackground(t *testing.T) {
	before := threadNice(t)
	if before >= 19 {
		t.Skipf("the test runs at nice %d already", before)
	}
	model, stats, train := learnFixture(t)
	s := newLearnServer(t, Options{}, LearnOptions{SnapshotImages: 1 << 20, SnapshotEvery: time.Hour, SolveEvery: time.Hour}, model, stats, t.TempDir())
	l := s.learnerOf("digits")
	nice := make(chan int, 4)
	l.solveHook = func() { nice <- threadNice(t) }
	code, a, _ := do(s, "POST", "/v1/models/digits:learn?wait=true", testToken, learnBody(train, 300, 340))
	if code != 200 || a["applied"] != true {
		t.Fatalf("learn: %d %v", code, a)
	}
	select {
	case n := <-nice:
		if n <= before {
			t.Errorf("the solve ran at nice %d, the server's threads at %d", n, before)
		}
	default:
		t.Fatal("no solve ran for a waiting request")
	}
	if n := threadNice(t); n != before {
		t.Errorf("a server thread is at nice %d after learning, was %d", n, before)
	}
}
