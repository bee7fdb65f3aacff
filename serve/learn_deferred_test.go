package serve

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/scn2d/scn"
)

// TestLearnDeferredSolve: a pass only adds its images' sums and answers
// that they take effect at the next solve (the model served unchanged);
// a request with ?wait=true is answered once the model that has learnt
// them (and every image before) is served; a snapshot due while images
// are unsolved solves first, so that its model is the solve of its
// statistics; the weights equal scn update's with the same images.
func TestLearnDeferredSolve(t *testing.T) {
	model, stats, train := learnFixture(t)
	dir := t.TempDir()
	s := newLearnServer(t, Options{}, LearnOptions{SnapshotImages: 150, SnapshotEvery: time.Hour, SolveEvery: time.Hour}, model, stats, dir)
	base := servedSHA(s)
	code, a, _ := do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 300, 340))
	if code != 200 || a["applied"] != false || a["version"] != nil || a["solve"] != 1.0 || a["learnt"] != 40.0 || a["snapshot"] != 1.0 {
		t.Fatalf("learn, solve deferred: %d %v", code, a)
	}
	if due, _ := a["solve_due_ms"].(float64); due <= 0 || due > 3600e3 {
		t.Errorf("solve due in %v ms, want within the hour", a["solve_due_ms"])
	}
	if servedSHA(s) != base {
		t.Error("a pass without a solve changed the model served")
	}
	if _, v, _ := do(s, "GET", "/v1/models/digits/versions", "", nil); v["unsolved_images"] != 40.0 || v["solves"] != 0.0 || v["served"] != base[:12] {
		t.Errorf("versions while unsolved: %v", v)
	}
	code, a, _ = do(s, "POST", "/v1/models/digits:learn?wait=true", testToken, learnBody(train, 340, 400))
	if code != 200 || a["applied"] != true || a["version"] != servedSHA(s)[:12] || a["solve"] != 1.0 || a["images"] != 400.0 {
		t.Fatalf("learn, waiting for the solve: %d %v", code, a)
	}
	if code, a, _ := do(s, "POST", "/v1/models/digits:learn?wait=maybe", testToken, learnBody(train, 0, 1)); code != 400 {
		t.Errorf("wait=maybe: %d %v", code, a)
	}
	m, err := scn.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	old, err := scn.LoadStats(stats)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := m.Update(old, problemOf(t, train, 300, 400), false)
	if err != nil {
		t.Fatal(err)
	}
	if d := relBeta(s.lookup("digits").m.Beta, want.Beta); d > 1e-9 {
		t.Errorf("beta after a deferred solve differs from scn update's by %.3g", d)
	}
	// 60 more: a snapshot is due (160 since the start): the pass starts
	// a solve of the frozen sums, which holds these images, and the
	// snapshot of them after it; the answer (before the solve ends) says
	// the images are in solve 2 and snapshot 1.
	code, a, _ = do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 400, 460))
	if code != 200 || a["applied"] != false || a["snapshot"] != 1.0 || a["solve"] != 2.0 || a["solve_due_ms"] != nil {
		t.Fatalf("learn starting a snapshot: %d %v", code, a)
	}
	s.learnerOf("digits").wg.Wait()
	if _, v, _ := do(s, "GET", "/v1/models/digits/versions", "", nil); v["unsolved_images"] != 0.0 || v["solves"] != 2.0 || v["images_since_snapshot"] != 0.0 || v["current"] != 1.0 {
		t.Errorf("versions after the snapshot: %v", v)
	}
	b, err := os.ReadFile(filepath.Join(dir, "v000001", snapModel))
	if err != nil {
		t.Fatal(err)
	}
	if sha256Hex(b) != servedSHA(s) {
		t.Error("snapshot 1 is not the model served")
	}
	sm, err := scn.Load(filepath.Join(dir, "v000001", snapModel))
	if err != nil {
		t.Fatal(err)
	}
	sst, err := scn.LoadStats(filepath.Join(dir, "v000001", snapStats))
	if err != nil {
		t.Fatal(err)
	}
	want2, _, err := m.Update(old, problemOf(t, train, 300, 460), false)
	if err != nil {
		t.Fatal(err)
	}
	if d := relBeta(sm.Beta, want2.Beta); d > 1e-9 || sst.N != 460 {
		t.Errorf("snapshot 1: beta differs from scn update's by %.3g; statistics of %d images, want 460", d, sst.N)
	}
	// Images unsolved at the stop are solved into the last snapshot.
	if code, a, _ := do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 460, 470)); code != 200 || a["applied"] != false {
		t.Fatalf("learn: %d %v", code, a)
	}
	if err := s.CloseLearning(); err != nil {
		t.Fatal(err)
	}
	last, err := scn.LoadStats(filepath.Join(dir, "v000002", snapStats))
	if err != nil || last.N != 470 {
		t.Fatalf("last snapshot: %v", err)
	}
	b, err = os.ReadFile(filepath.Join(dir, "v000002", snapModel))
	if err != nil || sha256Hex(b) != servedSHA(s) {
		t.Errorf("the last snapshot is not the model served at the stop (%v)", err)
	}
}

// relBeta is the relative distance of got from want.
func relBeta(got, want []float64) float64 {
	var d, n float64
	for i := range want {
		d += (got[i] - want[i]) * (got[i] - want[i])
		n += want[i] * want[i]
	}
	return math.Sqrt(d / max(n, 1e-300))
}
