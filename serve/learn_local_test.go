package serve

import (
	"context"
	"encoding/json"
	"math"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

// TestLearnLocalModel: a served model of local nodes (2DRVFL, 5 x 5 and
// 3 x 3 filters) learns a batch through :learn: the weights served are
// those Online's solve gives with the same images (1e-9 relative), its
// filters stay the model's, and :predict answers with the new model's
// scores, which differ from the old ones.
func TestLearnLocalModel(t *testing.T) {
	fixtures(t)
	train, _, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	c := scn.Paper(scn.RVFL2D)
	c.Activation, c.Ridge = scn.ReLU, 10
	c.Local = &scn.Local{Sizes: []int{5, 3}, Filters: 4, Stride: 1, Pad: scn.PadSame, Pool: 3, Pooling: scn.PoolAvg, TwoSided: true, Standardize: true}
	m, err := c.Fit(context.Background(), problemOf(t, train, 0, 200), nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := m.Stats(problemOf(t, train, 0, 200))
	if err != nil {
		t.Fatal(err)
	}
	must(st.Factorize(c.Ridge))
	dir := t.TempDir()
	model, stats := filepath.Join(dir, "local.scn"), filepath.Join(dir, "local.scnstats")
	must(m.Save(model))
	must(st.Save(stats))
	versions := t.TempDir()
	s := newLearnServer(t, Options{}, LearnOptions{SnapshotImages: 1000, SnapshotEvery: time.Hour, SolveEvery: -1}, model, stats, versions)

	const n = 5
	predict := func() answer {
		r := httptest.NewRequest("POST", "/v1/models/digits:predict", bytesReader(batchJSON(testSet, 0, n, func(int) bool { return false }, `"top": 10`)))
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		var a answer
		if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil || w.Code != 200 || len(a.Predictions) != n {
			t.Fatalf("predict: %d %v %s", w.Code, err, w.Body.Bytes())
		}
		return a
	}
	before := predict()
	code, a, _ := do(s, "POST", "/v1/models/digits:learn", testToken, learnBody(train, 200, 290))
	if code != 200 || a["learnt"] != 90.0 {
		t.Fatalf("learn: %d %v", code, a)
	}
	// Online's solve with the same statistics and images.
	st2, err := scn.LoadStats(stats)
	if err != nil {
		t.Fatal(err)
	}
	o, err := scn.NewOnline(m, st2, 1)
	if err != nil {
		t.Fatal(err)
	}
	want, err := o.Learn(problemOf(t, train, 200, 290))
	if err != nil {
		t.Fatal(err)
	}
	got := s.lookup("digits").m
	if got.Local == nil || !slices.Equal(got.Local.Banks[0].Params, m.Local.Banks[0].Params) || !slices.Equal(got.Local.Mean, m.Local.Mean) {
		t.Fatal("the learnt model's filters or standardisation are not the model's")
	}
	var d, nb float64
	for i := range want.Beta {
		d += (got.Beta[i] - want.Beta[i]) * (got.Beta[i] - want.Beta[i])
		nb += want.Beta[i] * want.Beta[i]
	}
	if r := math.Sqrt(d / nb); !(r <= 1e-9) {
		t.Errorf("learnt output weights differ from Online's solve by %.3g", r)
	}
	after := predict()
	y, err := got.Predict(scn.Images{Rows: 28, Cols: 28, Pix: testSet.Pix[:n*28*28]})
	if err != nil {
		t.Fatal(err)
	}
	changed := false
	for i := range n {
		sa, sb := scoresOf(t, after, i, testSet.Classes), scoresOf(t, before, i, testSet.Classes)
		if !slices.Equal(sa, y[i*10:(i+1)*10]) {
			t.Errorf("image %d: served %v, the learnt model's %v", i, sa, y[i*10:(i+1)*10])
		}
		changed = changed || !slices.Equal(sa, sb)
	}
	if !changed {
		t.Error("learning left every answer as it was")
	}
	// The last snapshot holds the local model and its statistics.
	must(s.CloseLearning())
	sm, err := scn.Load(filepath.Join(versions, "v000001", snapModel))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := scn.LoadStats(filepath.Join(versions, "v000001", snapStats))
	if err != nil {
		t.Fatal(err)
	}
	if sm.Local == nil || ss.Recipe.Local == nil || ss.N != 290 || !slices.Equal(sm.Beta, got.Beta) {
		t.Errorf("snapshot: local %v, statistics of %d images, same weights %v", sm.Local != nil, ss.N, slices.Equal(sm.Beta, got.Beta))
	}
}
