package serve

import (
	"testing"
	"time"

	"github.com/scn2d/scn"
)

// TestLearnPassesDuringSolve: while a solve runs (held in its goroutine
// by the test), passes go on: a :learn request is answered, its images in
// the next solve; a ?wait=true request is answered only by a solve that
// holds its images: the first waiter by the solve of the images before
// the freeze (scn update's weights with those images alone, 1e-9
// relative), the one sent during the solve by the next solve, which holds
// every image.
func TestLearnPassesDuringSolve(t *testing.T) {
	model, stats, train := learnFixture(t)
	s := newLearnServer(t, Options{}, LearnOptions{SnapshotImages: 1 << 20, SnapshotEvery: time.Hour, SolveEvery: time.Hour}, model, stats, t.TempDir())
	l := s.learnerOf("digits")
	entered, release := make(chan struct{}), make(chan struct{})
	first := true
	l.solveHook = func() {
		if first { // the first solve waits for the test; the later ones run
			first = false
			close(entered)
			<-release
		}
	}
	var served []*scn.Model // each solve's model (l.onSwap: l.mu held)
	l.onSwap = func(string) { served = append(served, s.lookup("digits").m) }
	type answer struct {
		code int
		a    map[string]any
		sha  string
	}
	send := func(target string, lo, hi int) chan answer {
		ch := make(chan answer, 1)
		go func() {
			code, a, _ := do(s, "POST", target, testToken, learnBody(train, lo, hi))
			ch <- answer{code, a, servedSHA(s)}
		}()
		return ch
	}
	recv := func(ch chan answer, what string) answer {
		select {
		case r := <-ch:
			return r
		case <-time.After(time.Minute):
			t.Fatalf("%s: no answer", what)
			return answer{}
		}
	}
	w1 := send("/v1/models/digits:learn?wait=true", 300, 340)
	select {
	case <-entered: // the solve of the first 40 images is under way
	case <-time.After(time.Minute):
		t.Fatal("no solve began for a waiting request")
	}
	base := servedSHA(s)
	r := recv(send("/v1/models/digits:learn", 340, 400), "a pass during a solve")
	if r.code != 200 || r.a["applied"] != false || r.a["solve"] != 2.0 || r.a["images"] != 400.0 || r.sha != base {
		t.Fatalf("learn during a solve: %d %v", r.code, r.a)
	}
	w2 := send("/v1/models/digits:learn?wait=true", 400, 420)
	// The pass of w2 is done once the statistics hold its images.
	for {
		_, v, _ := do(s, "GET", "/v1/models/digits/versions", "", nil)
		if v["solving"] != true || v["solves"] != 0.0 {
			t.Fatalf("versions during the solve: %v", v)
		}
		if v["unsolved_images"] == 120.0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case r := <-w1:
		t.Fatalf("a waiting request answered before its solve ended: %v", r.a)
	case r := <-w2:
		t.Fatalf("a waiting request answered before its solve ended: %v", r.a)
	default:
	}
	close(release)
	r1 := recv(w1, "the first waiting request")
	if r1.code != 200 || r1.a["applied"] != true || r1.a["solve"] != 1.0 || r1.a["images"] != 340.0 {
		t.Fatalf("first waiting request: %d %v", r1.code, r1.a)
	}
	r2 := recv(w2, "the second waiting request")
	if r2.code != 200 || r2.a["applied"] != true || r2.a["solve"] != 2.0 || r2.a["images"] != 420.0 || r2.a["version"] != servedSHA(s)[:12] {
		t.Fatalf("second waiting request: %d %v", r2.code, r2.a)
	}
	m, err := scn.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	old, err := scn.LoadStats(stats)
	if err != nil {
		t.Fatal(err)
	}
	if len(served) != 2 || r1.a["version"] == r2.a["version"] {
		t.Fatalf("%d models served, versions %v %v; want 2 solves", len(served), r1.a["version"], r2.a["version"])
	}
	for k, hi := range []int{340, 420} {
		want, _, err := m.Update(old, problemOf(t, train, 300, hi), false)
		if err != nil {
			t.Fatal(err)
		}
		if d := relBeta(served[k].Beta, want.Beta); d > 1e-9 {
			t.Errorf("solve %d differs from scn update with images 300-%d by %.3g", k+1, hi, d)
		}
	}
}
