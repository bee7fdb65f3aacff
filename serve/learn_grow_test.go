package serve

import (
	"context"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

// newGrowServer serves the digits fixture to learn and grow by k nodes,
// with its training images (the first 300 of the set).
func newGrowServer(t *testing.T, lo LearnOptions, model, stats, versions string, train *dataset.Set) (*Server, *learner) {
	t.Helper()
	s := New(Options{})
	lo.Token = []byte(testToken)
	if err := s.EnableLearning(lo); err != nil {
		t.Fatal(err)
	}
	if err := s.LoadLearningImages("digits", model, stats, versions, ProblemImages(problemOf(t, train, 0, 300), 64)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.CloseLearning() })
	return s, s.learnerOf("digits")
}

// inOrder returns p with its targets in the order of classes.
func inOrder(t *testing.T, p scn.Problem, classes []string) scn.Problem {
	q, err := inClasses(p, classes)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// closeStats checks that two statistics agree to 1e-9 relative (G, H^T T,
// T^T T) with the same counts.
func closeStats(t *testing.T, got, want *scn.Stats) {
	t.Helper()
	if got.N != want.N || !slices.Equal(got.Classes, want.Classes) || !slices.Equal(got.ClassCounts, want.ClassCounts) {
		t.Fatalf("statistics of %d images %v %v, want %d %v %v", got.N, got.Classes, got.ClassCounts, want.N, want.Classes, want.ClassCounts)
	}
	for name, p := range map[string][2][]float64{"G": {got.G, want.G}, "HT": {got.HT, want.HT}, "TT": {got.TT, want.TT}} {
		if len(p[0]) != len(p[1]) {
			t.Fatalf("%s: %d values, want %d", name, len(p[0]), len(p[1]))
		}
		scale := 0.0
		for _, v := range p[1] {
			scale = max(scale, math.Abs(v))
		}
		for i := range p[0] {
			if math.Abs(p[0][i]-p[1][i]) > 1e-9*scale {
				t.Fatalf("%s[%d] = %v, from scratch %v", name, i, p[0][i], p[1][i])
			}
		}
	}
}

func currentStats(l *learner) (*scn.Model, *scn.Stats) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.on.Snapshot()
}

// TestGrowEqualsGrowUpdate: a growth on :grow gives the bits of
// GrowUpdate with the model served, the training images as the old
// images and those learnt as the new; the images learnt after it give
// the statistics a from-scratch Model.Stats gives over all the images;
// /versions and the metrics show the nodes; a restart from the snapshot
// and the journal restores the model.
func TestGrowEqualsGrowUpdate(t *testing.T) {
	model, stats, train := learnFixture(t)
	dir := t.TempDir()
	s, l := newGrowServer(t, LearnOptions{Grow: 6, SolveEvery: -1, SnapshotImages: 1 << 20, SnapshotEvery: time.Hour}, model, stats, dir, train)
	if code, a, _ := do(s, "POST", "/v1/models/digits:grow", testToken, nil); code != 409 {
		t.Fatalf("a growth with no image learnt: %d %v", code, a)
	}
	for _, r := range [][2]int{{300, 340}, {340, 400}} {
		if code, a, _ := do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, r[0], r[1])); code != 200 {
			t.Fatalf("learn: %d %v", code, a)
		}
	}
	m := l.on.Model()
	if code, _, _ := do(s, "POST", "/v1/models/digits:grow", "", nil); code != 401 {
		t.Fatalf("a growth without the token: %d", code)
	}
	if code, _, _ := do(s, "POST", "/v1/models/digits:grow", "wrong-token-wrong-token", nil); code != 403 {
		t.Fatalf("a growth with a wrong token: %d", code)
	}
	code, a, _ := do(s, "POST", "/v1/models/digits:grow?wait=true", testToken, nil)
	if code != 200 {
		t.Fatalf("grow: %d %v", code, a)
	}
	old := inOrder(t, problemOf(t, train, 0, 300), m.Classes)
	fresh := inOrder(t, problemOf(t, train, 300, 400), m.Classes)
	st0, err := m.Stats(old)
	if err != nil {
		t.Fatal(err)
	}
	want, merged, err := m.GrowUpdate(context.Background(), st0, old, fresh, 6)
	if err != nil {
		t.Fatal(err)
	}
	got, gst := currentStats(l)
	if got.Nodes() != want.Nodes() || got.Nodes() <= m.Nodes() || !slices.Equal(got.Params, want.Params) || !slices.Equal(got.Beta, want.Beta) {
		t.Fatalf("grown to %d nodes (from %d), GrowUpdate %d; same weights: %v", got.Nodes(), m.Nodes(), want.Nodes(), slices.Equal(got.Beta, want.Beta))
	}
	if a["added_nodes"] != float64(want.Nodes()-m.Nodes()) || a["recent_images"] != 100.0 || a["nodes"] != float64(want.Nodes()) {
		t.Errorf("answer %v", a)
	}
	if !slices.Equal(gst.G, merged.G) || !slices.Equal(gst.HT, merged.HT) {
		t.Error("the grown statistics are not GrowUpdate's")
	}
	wb, _ := modelBytes(want)
	if servedSHA(s) != hashOf(wb)+servedSHA(s)[12:] {
		t.Error("the model served is not the grown one")
	}
	// More images after the growth: the statistics are Model.Stats's
	// over all of them.
	if code, a, _ := do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 400, 430)); code != 200 {
		t.Fatalf("learn: %d %v", code, a)
	}
	_, fin := currentStats(l)
	scratch, err := want.Stats(inOrder(t, problemOf(t, train, 0, 430), m.Classes))
	if err != nil {
		t.Fatal(err)
	}
	closeStats(t, fin, scratch)
	_, v, _ := do(s, "GET", "/v1/models/digits/versions", "", nil)
	if v["nodes"] != float64(want.Nodes()) || v["growth"].(map[string]any)["growths"] != 1.0 {
		t.Errorf("versions: nodes %v growth %v", v["nodes"], v["growth"])
	}
	met := metricsText(t, s)
	for _, w := range []string{`scn_learn_growths_total{model="digits",result="grown"} 1`, `scn_learn_nodes{model="digits"} ` + strconv.Itoa(want.Nodes()), `scn_learn_nodes_grown_total{model="digits"} ` + strconv.Itoa(want.Nodes()-m.Nodes())} {
		if !strings.Contains(met, w) {
			t.Errorf("metrics lack %s", w)
		}
	}
	// Stop (a last snapshot), then restart from the snapshot and the
	// journal: the same model and statistics, and a growth goes on.
	if err := s.CloseLearning(); err != nil {
		t.Fatal(err)
	}
	servedBefore := servedSHA(s)
	vs, _ := listVersions(dir, false)
	vi, _ := readVersionInfo(dir, vs[0])
	if vi.Nodes != want.Nodes() || vi.Journal == "" || vi.JournalRecords != 3 || vi.GrowMark != 2 || vi.Learnt != 130 {
		t.Fatalf("the last snapshot: %+v", vi)
	}
	s2, l2 := newGrowServer(t, LearnOptions{Grow: 6, SolveEvery: -1}, model, stats, dir, train)
	if servedSHA(s2) != servedBefore {
		t.Fatal("the restart serves another model")
	}
	_, st2 := currentStats(l2)
	closeStats(t, st2, scratch)
	if l2.gr.j.records() != 3 || l2.gr.mark != 2 {
		t.Fatalf("restart: journal of %d records, mark %d", l2.gr.j.records(), l2.gr.mark)
	}
	if code, a, _ := do(s2, "POST", "/v1/models/digits:grow?wait=true", testToken, nil); code != 200 || a["recent_images"] != 30.0 {
		t.Fatalf("grow after the restart: %d %v", code, a)
	}
}

// metricsText is the server's /metrics page.
func metricsText(t *testing.T, s *Server) string {
	r := httptest.NewRequest("GET", "/metrics", nil)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w.Body.String()
}

// concat is the images of a then b.
func concat(t *testing.T, a, b scn.Problem) scn.Problem {
	x := a.X
	x.Pix = slices.Concat(a.X.Pix, b.X.Pix)
	labels := slices.Concat(scn.ArgMax(a.T, a.M), scn.ArgMax(b.T, b.M))
	p, err := scn.Classification(x, labels, a.Classes)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGrowKeepsImagesLearntMeanwhile: images learnt while a growth runs
// (automatic, every 50 images) are in the grown statistics after the
// swap: they equal Model.Stats's over every image; a rollback to version
// 0 starts an empty journal, and growing goes on from it.
func TestGrowKeepsImagesLearntMeanwhile(t *testing.T) {
	model, stats, train := learnFixture(t)
	dir := t.TempDir()
	s, l := newGrowServer(t, LearnOptions{Grow: 4, GrowEvery: 50, SolveEvery: -1, SnapshotImages: 1 << 20, SnapshotEvery: time.Hour}, model, stats, dir, train)
	gate, entered := make(chan struct{}), make(chan struct{}, 4)
	l.growHook = func() { entered <- struct{}{}; <-gate }
	if code, a, _ := do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 300, 360)); code != 200 {
		t.Fatalf("learn: %d %v", code, a)
	}
	<-entered // the growth runs (held), the images go on being learnt
	if code, a, _ := do(s, "POST", "/v1/models/digits:grow", testToken, nil); code != 409 || !strings.Contains(a["error"].(string), "under way") {
		t.Fatalf("a growth while one runs: %d %v", code, a)
	}
	for _, r := range [][2]int{{360, 370}, {370, 371}, {371, 390}} {
		if code, a, _ := do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, r[0], r[1])); code != 200 {
			t.Fatalf("learn: %d %v", code, a)
		}
	}
	l.mu.Lock()
	done := l.gr.done
	l.mu.Unlock()
	close(gate)
	<-done
	l.mu.Lock()
	l.waitIdle()
	grown, last := l.on.Model(), l.gr.last
	l.mu.Unlock()
	if last["error"] != nil || grown.Nodes() <= 60 {
		t.Fatalf("growth: %v", last)
	}
	_, fin := currentStats(l)
	scratch, err := grown.Stats(inOrder(t, problemOf(t, train, 0, 390), grown.Classes))
	if err != nil {
		t.Fatal(err)
	}
	closeStats(t, fin, scratch)
	if l.learnt0+l.on.Learnt() != 90 || l.gr.j.images != 90 {
		t.Fatalf("learnt %d + %d, journal %d", l.learnt0, l.on.Learnt(), l.gr.j.images)
	}
	// Rollback to the base files: an empty journal; images learnt after
	// it grow the base model.
	code, a, _ := do(s, "POST", "/v1/models/digits:rollback?version=0", testToken, nil)
	if code != 200 {
		t.Fatalf("rollback: %d %v", code, a)
	}
	if l.gr.j.records() != 0 || l.on.Model().Nodes() != 60 {
		t.Fatalf("after the rollback: %d records, %d nodes", l.gr.j.records(), l.on.Model().Nodes())
	}
	l.growHook = nil
	if code, a, _ := do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 400, 420)); code != 200 {
		t.Fatalf("learn: %d %v", code, a)
	}
	if code, a, _ := do(s, "POST", "/v1/models/digits:grow?wait=true", testToken, nil); code != 200 || a["recent_images"] != 20.0 {
		t.Fatalf("grow after the rollback: %d %v", code, a)
	}
	_, fin = currentStats(l)
	g := l.on.Model()
	if g.Nodes() <= 60 {
		t.Fatalf("%d nodes after the growth", g.Nodes())
	}
	scratch, err = g.Stats(inOrder(t, concat(t, problemOf(t, train, 0, 300), problemOf(t, train, 400, 420)), g.Classes))
	if err != nil {
		t.Fatal(err)
	}
	closeStats(t, fin, scratch)
}

// TestGrowRefusals: --grow with forgetting, a random learner, no
// training images, training images that are not the statistics', a
// damaged journal a snapshot needs; :grow on a model that does not grow.
func TestGrowRefusals(t *testing.T) {
	model, stats, train := learnFixture(t)
	s := New(Options{})
	if err := s.EnableLearning(LearnOptions{Token: []byte(testToken), Grow: 5, Forget: 0.99}); err == nil || !strings.Contains(err.Error(), "--forget") {
		t.Fatalf("grow with forgetting: %v", err)
	}
	if err := s.EnableLearning(LearnOptions{Token: []byte(testToken), GrowEvery: 5}); err == nil {
		t.Fatal("--grow-every without --grow")
	}
	if err := s.EnableLearning(LearnOptions{Token: []byte(testToken), Grow: 5}); err != nil {
		t.Fatal(err)
	}
	if err := s.LoadLearningImages("digits", model, stats, t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "training images") {
		t.Fatalf("no training images: %v", err)
	}
	if err := s.LoadLearningImages("digits", model, stats, t.TempDir(), ProblemImages(problemOf(t, train, 0, 299), 64)); err == nil || !strings.Contains(err.Error(), "299") {
		t.Fatalf("299 training images: %v", err)
	}
	if err := s.LoadLearningImages("digits", model, stats, t.TempDir(), ProblemImages(problemOf(t, train, 1, 301), 64)); err == nil || !strings.Contains(err.Error(), "class") {
		t.Fatalf("other training images: %v", err)
	}
	_, _, _, other := fixtures(t)
	om, _ := scn.Load(other)
	ost, err := om.Stats(problemOf(t, train, 0, 300))
	if err != nil {
		t.Fatal(err)
	}
	ostats := filepath.Join(t.TempDir(), "other.scnstats")
	if err := ost.Save(ostats); err != nil {
		t.Fatal(err)
	}
	if err := s.LoadLearningImages("other", other, ostats, t.TempDir(), ProblemImages(problemOf(t, train, 0, 300), 64)); err == nil || !strings.Contains(err.Error(), "random") {
		t.Fatalf("a random learner: %v", err)
	}
	s.CloseLearning()
	// A server without --grow: :grow is refused, no journal written.
	dir := t.TempDir()
	s2 := newLearnServer(t, Options{}, LearnOptions{SolveEvery: -1}, model, stats, dir)
	do(s2, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 300, 310))
	if code, _, _ := do(s2, "POST", "/v1/models/digits:grow", testToken, nil); code != 409 {
		t.Fatalf(":grow without --grow: %d", code)
	}
	s2.CloseLearning()
	if js, _ := filepath.Glob(filepath.Join(dir, "journal-*")); len(js) != 0 {
		t.Fatalf("a journal without --grow: %v", js)
	}
	// Its snapshot learnt images without a journal: --grow refuses it.
	s3 := New(Options{})
	s3.EnableLearning(LearnOptions{Token: []byte(testToken), Grow: 5})
	if err := s3.LoadLearningImages("digits", model, stats, dir, ProblemImages(problemOf(t, train, 0, 300), 64)); err == nil || !strings.Contains(err.Error(), "without a journal") {
		t.Fatalf("a snapshot learnt without a journal: %v", err)
	}
	// A torn journal tail is cut; a journal damaged within the records a
	// snapshot covers is refused.
	dir = t.TempDir()
	s4, _ := newGrowServer(t, LearnOptions{Grow: 5, SolveEvery: -1}, model, stats, dir, train)
	do(s4, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 300, 310))
	do(s4, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 310, 320))
	s4.CloseLearning()
	js, _ := filepath.Glob(filepath.Join(dir, "journal-*"))
	if len(js) != 1 {
		t.Fatalf("journals %v", js)
	}
	b, _ := os.ReadFile(js[0])
	os.WriteFile(js[0], append(slices.Clone(b), 1, 2, 3, 4, 5, 6, 7, 8, 9), 0o644)
	_, l5 := newGrowServer(t, LearnOptions{Grow: 5, SolveEvery: -1}, model, stats, dir, train)
	if l5.gr.j.records() != 2 || l5.gr.j.images != 20 {
		t.Fatalf("torn tail: %d records", l5.gr.j.records())
	}
	l5.s.CloseLearning()
	if nb, _ := os.ReadFile(js[0]); !slices.Equal(nb, b) {
		t.Fatal("the torn tail was not cut")
	}
	b[len(b)-3] ^= 0xff
	os.WriteFile(js[0], b, 0o644)
	s6 := New(Options{})
	s6.EnableLearning(LearnOptions{Token: []byte(testToken), Grow: 5})
	if err := s6.LoadLearningImages("digits", model, stats, dir, ProblemImages(problemOf(t, train, 0, 300), 64)); err == nil || !strings.Contains(err.Error(), "journal") {
		t.Fatalf("a damaged journal: %v", err)
	}
}

// TestGrowRollbackToGrown: a rollback to the snapshot of a growth starts
// a journal of that version's records (a copy), the statistics are the
// version's, and a growth after more images sums exactly the training
// images, the version's images and the new ones.
func TestGrowRollbackToGrown(t *testing.T) {
	model, stats, train := learnFixture(t)
	dir := t.TempDir()
	s, l := newGrowServer(t, LearnOptions{Grow: 4, SolveEvery: -1, SnapshotImages: 1 << 20, SnapshotEvery: time.Hour}, model, stats, dir, train)
	do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 300, 340))
	if code, a, _ := do(s, "POST", "/v1/models/digits:grow?wait=true", testToken, nil); code != 200 {
		t.Fatalf("grow: %d %v", code, a)
	}
	l.mu.Lock()
	l.waitIdle()
	grown := l.on.Model()
	v := l.version
	l.mu.Unlock()
	vi, err := readVersionInfo(dir, v)
	if err != nil || vi.Nodes != grown.Nodes() || vi.JournalRecords != 1 || vi.Learnt != 40 {
		t.Fatalf("the growth's snapshot %d: %+v %v", v, vi, err)
	}
	do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 340, 360))
	code, a, _ := do(s, "POST", "/v1/models/digits:rollback?version="+strconv.Itoa(v), testToken, nil)
	if code != 200 {
		t.Fatalf("rollback: %d %v", code, a)
	}
	if l.gr.j.records() != 1 || l.gr.j.images != 40 || l.gr.jname == vi.Journal || l.on.Model().Nodes() != grown.Nodes() {
		t.Fatalf("after the rollback: journal %s of %d records, %d nodes", l.gr.jname, l.gr.j.records(), l.on.Model().Nodes())
	}
	do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 400, 430))
	if code, a, _ := do(s, "POST", "/v1/models/digits:grow?wait=true", testToken, nil); code != 200 || a["recent_images"] != 30.0 {
		t.Fatalf("grow after the rollback: %d %v", code, a)
	}
	_, fin := currentStats(l)
	g := l.on.Model()
	all := concat(t, problemOf(t, train, 0, 340), problemOf(t, train, 400, 430))
	scratch, err := g.Stats(inOrder(t, all, g.Classes))
	if err != nil {
		t.Fatal(err)
	}
	closeStats(t, fin, scratch)
	// The old journal is still named by the snapshots kept; a restart
	// loads the newest, with its journal.
	if err := s.CloseLearning(); err != nil {
		t.Fatal(err)
	}
	_, l2 := newGrowServer(t, LearnOptions{Grow: 4, SolveEvery: -1}, model, stats, dir, train)
	if l2.gr.jname != l.gr.jname || l2.gr.j.images != 70 {
		t.Fatalf("restart: journal %s of %d images", l2.gr.jname, l2.gr.j.images)
	}
	_, st2 := currentStats(l2)
	closeStats(t, st2, scratch)
}
