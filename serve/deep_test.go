package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

// TestDeepModel serves a deep 2DSCN (scn.Config.Layers): its answers are
// the library's predictions of the loaded file, and its listing counts
// every layer's nodes and parameters.
func TestDeepModel(t *testing.T) {
	fixtures(t) // testSet
	train, _, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	p, err := scn.Classification(scn.Images{Rows: train.Rows, Cols: train.Cols, Pix: train.Pix}, train.Labels, train.Classes)
	if err != nil {
		t.Fatal(err)
	}
	c := scn.Fast(scn.SCN2D)
	c.MaxNodes, c.BlockSize, c.BF16Gram, c.Layers = 40, 20, false, []int{20}
	m, err := c.Fit(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "deep.scn")
	must(m.Save(path))
	s := New(Options{})
	if err := s.Load("deep", path); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	for i := 0; i < 3; i++ {
		file := pngOf(t, testSet.Image(i), 28, 28)
		want := libraryPredict(t, path, file)
		code, a := post(t, ts.URL+"/v1/models/deep:predict", "image/png", file)
		if code != http.StatusOK || len(a.Predictions) != 1 || len(a.Predictions[0].Scores) == 0 {
			t.Fatalf("image %d: status %d: %+v", i, code, a)
		}
		best := scn.ArgMax(want, m.M)[0]
		if top := a.Predictions[0].Scores[0]; top.Class != m.Classes[best] || top.Score != slices.Max(want) {
			t.Fatalf("image %d: top score %+v, the library's %s %v", i, top, m.Classes[best], slices.Max(want))
		}
	}
	s.mu.RLock()
	got := s.models["deep"]
	s.mu.RUnlock()
	if got == nil || got.m.Nodes() != m.Nodes() || got.m.ParamCount() != m.ParamCount() {
		t.Fatalf("loaded model: %+v", got)
	}
}
