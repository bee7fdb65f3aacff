package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

const testToken = "0123456789abcdef-test-token"

// learnFixture writes, into a new folder, the digits fixture model and the
// statistics of its training images, and returns their paths with the
// training set.
func learnFixture(t *testing.T) (model, stats string, train *dataset.Set) {
	t.Helper()
	digits, _, _, _ := fixtures(t)
	train, _, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	m, err := scn.Load(digits)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	model, stats = filepath.Join(dir, "digits.scn"), filepath.Join(dir, "digits.scnstats")
	copyFile(t, digits, model)
	st, err := m.Stats(problemOf(t, train, 0, 300))
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.Ridge > 0 {
		if err := st.Factorize(m.Config.Ridge); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Save(stats); err != nil {
		t.Fatal(err)
	}
	return model, stats, train
}

// problemOf returns images [lo, hi) of s as a classification.
func problemOf(t testing.TB, s *dataset.Set, lo, hi int) scn.Problem {
	d := s.Rows * s.Cols
	p, err := scn.Classification(scn.Images{Rows: s.Rows, Cols: s.Cols, Pix: s.Pix[lo*d : hi*d]}, s.Labels[lo:hi], s.Classes)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// learnBody is a :learn JSON batch of images [lo, hi) of s.
func learnBody(s *dataset.Set, lo, hi int) []byte {
	var b strings.Builder
	b.WriteString(`{"images": [`)
	d := s.Rows * s.Cols
	for i := lo; i < hi; i++ {
		if i > lo {
			b.WriteByte(',')
		}
		b.WriteString(imageJSON(s.Pix[i*d:(i+1)*d], s.Rows, s.Cols, false))
	}
	b.WriteString(`], "labels": [`)
	for i := lo; i < hi; i++ {
		if i > lo {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q", s.Classes[s.Labels[i]])
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// newLearnServer serves model (with stats) to learn as "digits", its
// snapshots in versions.
func newLearnServer(t testing.TB, opts Options, lo LearnOptions, model, stats, versions string) *Server {
	t.Helper()
	s := New(opts)
	if lo.Token == nil {
		lo.Token = []byte(testToken)
	}
	if err := s.EnableLearning(lo); err != nil {
		t.Fatal(err)
	}
	if err := s.LoadLearning("digits", model, stats, versions); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.CloseLearning() })
	return s
}

// do answers one request in process.
func do(s *Server, method, target, token string, body []byte) (int, map[string]any, http.Header) {
	r := httptest.NewRequest(method, target, bytes.NewReader(body))
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	var a map[string]any
	json.Unmarshal(w.Body.Bytes(), &a)
	return w.Code, a, w.Header()
}

func servedSHA(s *Server) string { return s.lookup("digits").sha256 }

// TestLearnEqualsUpdate: images learnt through :learn, in several
// requests, give the output weights scn update gives with the same images
// (1e-9 relative); the answers say the version served and the snapshot
// the images will be in, and the snapshot written holds the model served.
func TestLearnEqualsUpdate(t *testing.T) {
	model, stats, train := learnFixture(t)
	dir := t.TempDir()
	s := newLearnServer(t, Options{}, LearnOptions{SnapshotImages: 250, SnapshotEvery: time.Hour, SolveEvery: -1}, model, stats, dir)
	for _, r := range [][2]int{{300, 301}, {301, 400}, {400, 560}} {
		code, a, _ := do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, r[0], r[1]))
		if code != 200 {
			t.Fatalf("learn %v: %d %v", r, code, a)
		}
		if a["learnt"] != float64(r[1]-r[0]) || a["version"] != servedSHA(s)[:12] {
			t.Errorf("answer %v (served %s)", a, servedSHA(s)[:12])
		}
		want := 1.0
		if r[1] == 560 { // 260 images since the start: this pass began snapshot 1
			if a["images_since_snapshot"] != 0.0 {
				t.Errorf("answer %v: want a snapshot begun", a)
			}
		}
		if a["snapshot"] != want {
			t.Errorf("answer %v: want the images in snapshot %v", a, want)
		}
	}
	m, err := scn.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	old, err := scn.LoadStats(stats)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := m.Update(old, problemOf(t, train, 300, 560), false)
	if err != nil {
		t.Fatal(err)
	}
	got := s.lookup("digits").m
	var d, n float64
	for i := range want.Beta {
		d += (got.Beta[i] - want.Beta[i]) * (got.Beta[i] - want.Beta[i])
		n += want.Beta[i] * want.Beta[i]
	}
	if r := math.Sqrt(d / n); r > 1e-9 {
		t.Errorf("learnt beta differs from scn update's by %.3g", r)
	}
	if err := s.CloseLearning(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "v000001", snapModel))
	if err != nil {
		t.Fatal(err)
	}
	if sha256Hex(b) != servedSHA(s) {
		t.Error("snapshot 1 is not the model served")
	}
}

func sha256Hex(b []byte) string { s := sha256Sum(b); return fmt.Sprintf("%x", s[:]) }

// TestLearnRefusals: no token, a wrong token, an unknown class, an image
// of another shape, targets that are not finite, an oversized batch or
// body, learning off: 401/403/422/413/404 with clear messages, and the
// model unchanged.
func TestLearnRefusals(t *testing.T) {
	model, stats, train := learnFixture(t)
	s := newLearnServer(t, Options{MaxBatchImages: 8, MaxBodyBytes: 1 << 20}, LearnOptions{}, model, stats, t.TempDir())
	before := servedSHA(s)
	good := learnBody(train, 0, 2)
	d := train.Rows * train.Cols
	shape := fmt.Sprintf(`{"images": [%s], "labels": ["1"]}`, imageJSON(train.Pix[:d-train.Cols], train.Rows-1, train.Cols, true))
	for _, tc := range []struct {
		name, target, token string
		body                []byte
		code                int
		msg                 string
	}{
		{"no token", ":learn", "", good, 401, "Authorization: Bearer"},
		{"wrong token", ":learn", "0123456789abcdef-test-tokeN", good, 403, "wrong token"},
		{"label count", ":learn", testToken, []byte(strings.Replace(string(good), `"labels": [`, `"labels": ["1", `, 1)), 422, "3 labels for 2 images"},
		{"shape", ":learn", testToken, []byte(shape), 422, "model digits takes"},
		{"oversized batch", ":learn", testToken, learnBody(train, 0, 9), 413, "limit is 8"},
		{"oversized body", ":learn", testToken, bytes.Repeat([]byte(" "), 1<<20+1), 413, "limit"},
		{"targets for a classifier", ":learn", testToken, []byte(fmt.Sprintf(`{"images": [%s], "targets": [[1]]}`, imageJSON(train.Pix[:d], train.Rows, train.Cols, false))), 422, "give labels"},
		{"no labels", ":learn", testToken, []byte(fmt.Sprintf(`{"images": [%s]}`, imageJSON(train.Pix[:d], train.Rows, train.Cols, false))), 422, "no labels"},
		{"rollback without token", ":rollback?version=0", "", nil, 401, "Bearer"},
		{"rollback to a missing version", ":rollback?version=7", testToken, nil, 404, "no version 7"},
		{"rollback bad version", ":rollback?version=x", testToken, nil, 400, "version="},
	} {
		code, a, h := do(s, "POST", "/v1/models/digits"+tc.target, tc.token, tc.body)
		msg, _ := a["error"].(string)
		if code != tc.code || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s: %d %q, want %d with %q", tc.name, code, msg, tc.code, tc.msg)
		}
		if code == 401 && h.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", tc.name)
		}
	}
	// An unknown class.
	bad := learnBody(train, 0, 2)
	bad = bytes.Replace(bad, []byte(fmt.Sprintf(`%q]}`, train.Classes[train.Labels[1]])), []byte(`"cat"]}`), 1)
	code, a, _ := do(s, "POST", "/v1/models/digits:learn", testToken, bad)
	if msg, _ := a["error"].(string); code != 422 || !strings.Contains(msg, `"cat" is no class`) || !strings.Contains(msg, "--allow-new-classes") {
		t.Errorf("unknown class: %d %v", code, a)
	}
	// A prediction batch does not take labels.
	if code, a, _ := do(s, "POST", "/v1/models/digits:predict", "", good); code != 400 || !strings.Contains(a["error"].(string), "labels and targets go to :learn") {
		t.Errorf("labels to :predict: %d %v", code, a)
	}
	if servedSHA(s) != before {
		t.Error("a refused request changed the model")
	}
	// Metrics count the refusals.
	code, _, _ = do(s, "GET", "/metrics", "", nil)
	r := httptest.NewRequest("GET", "/metrics", nil)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if !strings.Contains(w.Body.String(), `scn_learn_rejections_total{code="401",model="digits"} 2`) {
		t.Errorf("metrics: no count of the 401s (%d)", code)
	}
	// Learning off: 404 saying how to turn it on.
	off := New(Options{})
	if err := off.Load("digits", model); err != nil {
		t.Fatal(err)
	}
	if code, a, _ := do(off, "POST", "/v1/models/digits:learn", testToken, good); code != 404 || !strings.Contains(a["error"].(string), "--learn") {
		t.Errorf("learning off: %d %v", code, a)
	}
	if code, _, _ := do(off, "GET", "/v1/models/digits/versions", "", nil); code != 404 {
		t.Errorf("versions with learning off: %d", code)
	}
}

// TestLearnRegressionTargets: a regression model learns from targets
// (query of an image file, JSON batch); NaN and infinite targets and
// targets of another width are refused (422), the model unchanged.
func TestLearnRegressionTargets(t *testing.T) {
	_, _, regress, _ := fixtures(t)
	train, _, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	m, err := scn.Load(regress)
	if err != nil {
		t.Fatal(err)
	}
	d := train.Rows * train.Cols
	tg := make([]float64, 200)
	for i := range tg {
		tg[i] = float64(train.Labels[i]) / 9
	}
	p, err := scn.Regression(scn.Images{Rows: train.Rows, Cols: train.Cols, Pix: train.Pix[:200*d]}, tg, 1)
	if err != nil {
		t.Fatal(err)
	}
	st, err := m.Stats(p)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sp := filepath.Join(dir, "r.scnstats")
	if err := st.Save(sp); err != nil {
		t.Fatal(err)
	}
	s := New(Options{})
	if err := s.EnableLearning(LearnOptions{Token: []byte(testToken)}); err != nil {
		t.Fatal(err)
	}
	if err := s.LoadLearning("digits", regress, sp, filepath.Join(dir, "v")); err != nil {
		t.Fatal(err)
	}
	defer s.CloseLearning()
	before := servedSHA(s)
	png := pngOf(t, train.Pix[:d], train.Rows, train.Cols)
	for _, q := range []string{"target=NaN", "target=Inf", "target=1,2", "label=3", ""} {
		code, a, _ := do(s, "POST", "/v1/models/digits:learn?"+q, testToken, png)
		if code != 422 {
			t.Errorf("%q: %d %v, want 422", q, code, a)
		}
	}
	img := imageJSON(train.Pix[:d], train.Rows, train.Cols, false)
	if code, a, _ := do(s, "POST", "/v1/models/digits:learn", testToken, []byte(`{"images": [`+img+`], "targets": [1e999]}`)); code != 422 || !strings.Contains(a["error"].(string), "finite") {
		t.Errorf("infinite JSON target: %d %v", code, a)
	}
	if servedSHA(s) != before {
		t.Error("a refused request changed the model")
	}
	if code, a, _ := do(s, "POST", "/v1/models/digits:learn?target=0.5", testToken, png); code != 200 || a["learnt"] != 1.0 {
		t.Errorf("image file with a target: %d %v", code, a)
	}
	if code, a, _ := do(s, "POST", "/v1/models/digits:learn?wait=true", testToken, []byte(`{"images": [`+img+`,`+img+`], "targets": [0.1, [0.2]]}`)); code != 200 || a["learnt"] != 2.0 || a["applied"] != true {
		t.Errorf("JSON targets: %d %v", code, a)
	}
	if servedSHA(s) == before {
		t.Error("learning did not change the model")
	}
}

// TestLearnRollbackAndRestart: snapshots are written every K images;
// rolling back to a version serves its bytes again, as a new snapshot
// whose files are the old one's bytes; a restart loads the newest
// snapshot; version 0 is the files the server started with.
func TestLearnRollbackAndRestart(t *testing.T) {
	model, stats, train := learnFixture(t)
	dir := t.TempDir()
	lo := LearnOptions{SnapshotImages: 100, SnapshotEvery: time.Hour, SolveEvery: -1}
	s := newLearnServer(t, Options{}, lo, model, stats, dir)
	base := servedSHA(s)
	var shas []string
	for k := 0; k < 3; k++ {
		code, a, _ := do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 300+100*k, 400+100*k))
		if code != 200 || a["snapshot"] != float64(k+1) {
			t.Fatalf("learn %d: %d %v", k, code, a)
		}
		s.learnerOf("digits").wg.Wait()
		shas = append(shas, servedSHA(s))
	}
	code, a, _ := do(s, "GET", "/v1/models/digits/versions", "", nil)
	if vs, _ := a["versions"].([]any); code != 200 || len(vs) != 4 || a["current"] != 3.0 {
		t.Fatalf("versions: %d %v", code, a)
	}
	v1, err := os.ReadFile(filepath.Join(dir, "v000001", snapModel))
	if err != nil {
		t.Fatal(err)
	}
	s1, err := os.ReadFile(filepath.Join(dir, "v000001", snapStats))
	if err != nil {
		t.Fatal(err)
	}
	// Images learnt after the last snapshot are dropped by a rollback.
	if code, a, _ := do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 0, 10)); code != 200 || a["snapshot"] != 4.0 {
		t.Fatalf("learn: %d %v", code, a)
	}
	code, a, _ = do(s, "POST", "/v1/models/digits:rollback?version=1", testToken, nil)
	if code != 200 || a["snapshot"] != 4.0 || a["dropped_images"] != 10.0 {
		t.Fatalf("rollback: %d %v", code, a)
	}
	if servedSHA(s) != shas[0] || sha256Hex(v1) != shas[0] {
		t.Error("rollback does not serve version 1's bytes")
	}
	for name, want := range map[string][]byte{snapModel: v1, snapStats: s1} {
		got, err := os.ReadFile(filepath.Join(dir, "v000004", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("snapshot 4's %s is not version 1's bytes (%v)", name, err)
		}
	}
	// Predictions see the rolled-back model.
	img := imageJSON(train.Pix[:train.Rows*train.Cols], train.Rows, train.Cols, false)
	if code, a, _ := do(s, "POST", "/v1/models/digits:predict", "", []byte(`{"images": [`+img+`]}`)); code != 200 || a["version"] != shas[0][:12] {
		t.Errorf("prediction after the rollback: %d %v", code, a["version"])
	}
	// A restart loads the newest snapshot (4, version 1's bytes); learning
	// goes on from it as it would have.
	if err := s.CloseLearning(); err != nil {
		t.Fatal(err)
	}
	s2 := newLearnServer(t, Options{}, lo, model, stats, dir)
	if servedSHA(s2) != shas[0] {
		t.Error("the restart did not load the newest snapshot")
	}
	_, a2, _ := do(s2, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 0, 20))
	if a2["version"] == nil || a2["snapshot"] != 5.0 {
		t.Errorf("learning after the restart: %v", a2)
	}
	// Version 0: the files given at the start.
	if code, a, _ := do(s2, "POST", "/v1/models/digits:rollback?version=0", testToken, nil); code != 200 || servedSHA(s2) != base {
		t.Errorf("rollback to 0: %d %v", code, a)
	}
	// Snapshots of another model are refused.
	other := New(Options{})
	other.EnableLearning(LearnOptions{Token: []byte(testToken)})
	_, _, _, o := fixtures(t)
	if err := other.LoadLearning("digits", o, stats, dir); err == nil || !strings.Contains(err.Error(), "another model") {
		t.Errorf("snapshots of another model: %v", err)
	}
}

// TestLearnWhilePredicting: predictions and learning at once (run with
// -race): every prediction is answered by a whole model, one of those the
// learning passes served.
func TestLearnWhilePredicting(t *testing.T) {
	model, stats, train := learnFixture(t)
	s := newLearnServer(t, Options{}, LearnOptions{SnapshotImages: 60, SnapshotEvery: time.Hour, Batch: 16, SolveEvery: 3 * time.Millisecond}, model, stats, t.TempDir())
	ts := httptest.NewServer(s) // 127.0.0.1
	defer ts.Close()
	img := imageJSON(train.Pix[:train.Rows*train.Cols], train.Rows, train.Cols, false)
	var mu sync.Mutex
	served := map[string]bool{servedSHA(s)[:12]: true}
	l := s.learnerOf("digits")
	l.mu.Lock()
	l.onSwap = func(v string) { // every model a solve served
		mu.Lock()
		served[v] = true
		mu.Unlock()
	}
	l.mu.Unlock()
	seen := map[string]bool{}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				code, a := post(t, ts.URL+"/v1/models/digits:predict", "application/json", []byte(`{"images": [`+img+`,`+img+`]}`))
				if code != 200 || len(a.Predictions) != 2 {
					t.Errorf("prediction: %d", code)
					return
				}
				mu.Lock()
				seen[a.Version] = true
				mu.Unlock()
			}
		}()
	}
	var lw sync.WaitGroup
	for g := 0; g < 2; g++ {
		lw.Add(1)
		go func(g int) {
			defer lw.Done()
			for k := 0; k < 6; k++ {
				lo := 300 + 10*(6*g+k)
				req, _ := http.NewRequest("POST", ts.URL+"/v1/models/digits:learn?wait="+strconv.FormatBool(k%2 == 0), bytes.NewReader(learnBody(train, lo, lo+10)))
				req.Header.Set("Authorization", "Bearer "+testToken)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				var a map[string]any
				json.NewDecoder(resp.Body).Decode(&a)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Errorf("learn: %d %v", resp.StatusCode, a)
					return
				}
				// A waiting request is answered once applied; one that
				// does not wait may be too (a solve was due).
				if v, _ := a["version"].(string); (k%2 == 0 && a["applied"] != true) || (a["applied"] == true) != (v != "") {
					t.Errorf("learn (wait %v): %v", k%2 == 0, a)
				}
			}
		}(g)
	}
	lw.Wait()
	close(stop)
	wg.Wait()
	for v := range seen {
		if !served[v] {
			t.Errorf("a prediction by version %s, which no solve served", v)
		}
	}
	if got := s.learnerOf("digits").on.Learnt(); got != 120 {
		t.Errorf("learnt %d images, want 120", got)
	}
}

// TestReadTokenFile: a token file others can read is refused, as is a
// short one; white space around the token is dropped.
func TestReadTokenFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "token")
	if err := os.WriteFile(p, []byte("  "+testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tok, err := ReadTokenFile(p); err != nil || string(tok) != testToken {
		t.Errorf("ReadTokenFile = %q, %v", tok, err)
	}
	for _, mode := range []os.FileMode{0o640, 0o604, 0o644} {
		os.Chmod(p, mode)
		if _, err := ReadTokenFile(p); err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("mode %o: %v", mode, err)
		}
	}
	os.WriteFile(p, []byte("short"), 0o600)
	os.Chmod(p, 0o600)
	if _, err := ReadTokenFile(p); err == nil {
		t.Error("a short token taken")
	}
	if _, err := ReadTokenFile(filepath.Join(dir, "none")); err == nil {
		t.Error("a missing file taken")
	}
}

// TestLearnCrashDuringSnapshot: a process killed (SIGKILL) while it writes
// a snapshot, at the moment its files are written but not yet renamed,
// and at random moments of a stream of snapshots, leaves the versions
// folder loadable: the newest complete snapshot loads, the half-written
// one is gone.
func TestLearnCrashDuringSnapshot(t *testing.T) {
	if os.Getenv("SCN_LEARN_CHILD") != "" {
		learnChild(t)
		return
	}
	if testing.Short() {
		t.Skip("child processes")
	}
	model, stats, _ := learnFixture(t)
	for _, mode := range []string{"hook", "stream"} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestLearnCrashDuringSnapshot$")
		cmd.Env = append(os.Environ(), "SCN_LEARN_CHILD="+mode, "SCN_LEARN_MODEL="+model, "SCN_LEARN_STATS="+stats, "SCN_LEARN_DIR="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			if strings.Contains(err.Error(), "exec format error") {
				// A test binary of another architecture run under
				// user-mode emulation (qemu-aarch64-static in CI)
				// cannot start itself again; the host build runs this.
				t.Skipf("cannot re-run the test binary as a child here: %v", err)
			}
			t.Fatal(err)
		}
		// The child says "ready" when killing it is the test.
		buf := make([]byte, 0, 64)
		tmp := make([]byte, 64)
		deadline := time.Now().Add(60 * time.Second)
		for !bytes.Contains(buf, []byte("ready")) && time.Now().Before(deadline) {
			n, err := out.Read(tmp)
			buf = append(buf, tmp[:n]...)
			if err != nil {
				break
			}
		}
		if mode == "stream" {
			time.Sleep(time.Duration(50+time.Now().UnixNano()%200) * time.Millisecond)
		}
		cmd.Process.Kill()
		cmd.Wait()
		if !bytes.Contains(buf, []byte("ready")) {
			t.Fatalf("%s: the child never got ready: %q", mode, buf)
		}
		vs, err := listVersions(dir, false)
		if err != nil || len(vs) == 0 {
			t.Fatalf("%s: no complete snapshot (%v)", mode, err)
		}
		if mode == "hook" && vs[0] != 1 {
			t.Errorf("hook: versions %v, want 1 (2 was being written)", vs)
		}
		s := newLearnServer(t, Options{}, LearnOptions{}, model, stats, dir)
		vi, err := readVersionInfo(dir, vs[0])
		if err != nil {
			t.Fatal(err)
		}
		if servedSHA(s) != vi.ModelSHA256 {
			t.Errorf("%s: the restart did not load version %d", mode, vs[0])
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				t.Errorf("%s: %s left after the restart", mode, e.Name())
			}
		}
		s.CloseLearning()
	}
}

// learnChild is the child process of TestLearnCrashDuringSnapshot.
func learnChild(t *testing.T) {
	mode := os.Getenv("SCN_LEARN_CHILD")
	train, _, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{})
	if err := s.EnableLearning(LearnOptions{Token: []byte(testToken), SnapshotImages: 20, SnapshotEvery: time.Hour}); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	if mode == "hook" {
		n := 0
		snapshotHook = func(string) {
			if n++; n == 2 {
				once.Do(func() { fmt.Println("ready") })
				select {} // killed here, snapshot 2 written but not renamed
			}
		}
	}
	if err := s.LoadLearning("digits", os.Getenv("SCN_LEARN_MODEL"), os.Getenv("SCN_LEARN_STATS"), os.Getenv("SCN_LEARN_DIR")); err != nil {
		t.Fatal(err)
	}
	for k := 0; ; k++ {
		lo := 300 + 20*(k%20)
		code, a, _ := do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, lo, lo+20))
		if code != 200 {
			t.Fatalf("learn: %d %v", code, a)
		}
		if mode == "stream" && k == 1 {
			s.learnerOf("digits").wg.Wait()
			once.Do(func() { fmt.Println("ready") })
		}
		if mode == "hook" && k > 3 {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestLearnNewClass: with AllowNewClasses a label that is no class of
// the model adds one (the answer says so, the model served has it and
// predicts with it); without, it is refused (TestLearnRefusals).
func TestLearnNewClass(t *testing.T) {
	model, stats, train := learnFixture(t)
	s := newLearnServer(t, Options{}, LearnOptions{AllowNewClasses: true}, model, stats, t.TempDir())
	n := len(s.lookup("digits").m.Classes)
	body := learnBody(train, 300, 340)
	body = bytes.Replace(body, []byte(`"labels": ["`), []byte(`"labels": ["new`), 1)
	code, a, _ := do(s, "POST", "/v1/models/digits:learn?wait=true", testToken, body)
	if added, _ := a["added_classes"].([]any); code != 200 || len(added) != 1 || a["version"] != servedSHA(s)[:12] {
		t.Fatalf("learn with a new class: %d %v", code, a)
	}
	m := s.lookup("digits").m
	if len(m.Classes) != n+1 || m.M != n+1 {
		t.Fatalf("classes after learning a new one: %q", m.Classes)
	}
	img := imageJSON(train.Pix[:train.Rows*train.Cols], train.Rows, train.Cols, false)
	if code, a, _ := do(s, "POST", "/v1/models/digits:predict?top=20", "", []byte(`{"images": [`+img+`]}`)); code != 200 {
		t.Errorf("prediction after a new class: %d %v", code, a)
	} else if p := a["predictions"].([]any)[0].(map[string]any); len(p["scores"].([]any)) != n+1 {
		t.Errorf("prediction scores %v, want %d classes", p["scores"], n+1)
	}
}

// TestLearnRateLimit: beyond the images per second of LearnOptions.Rate
// (over a burst of the batch limit), 429 with Retry-After, the model
// unchanged.
func TestLearnRateLimit(t *testing.T) {
	model, stats, train := learnFixture(t)
	s := newLearnServer(t, Options{MaxBatchImages: 4}, LearnOptions{Rate: 0.5}, model, stats, t.TempDir())
	if code, a, _ := do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 0, 4)); code != 200 {
		t.Fatalf("first batch: %d %v", code, a)
	}
	before := servedSHA(s)
	code, a, h := do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 4, 6))
	if code != 429 || h.Get("Retry-After") == "" || !strings.Contains(a["error"].(string), "rate limit") {
		t.Errorf("beyond the rate: %d %v (Retry-After %q)", code, a, h.Get("Retry-After"))
	}
	if servedSHA(s) != before {
		t.Error("a refused batch changed the model")
	}
}
