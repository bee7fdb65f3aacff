package serve

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn"
)

// TestLocalModel serves a model of local nodes (2DRVFL, 5 x 5 and 3 x 3
// filters pooled over 3 x 3 regions): a batch of grey digits gets the
// library's scores, and an image of the wrong size is refused.
func TestLocalModel(t *testing.T) {
	fixtures(t)
	n, d := 5, 28*28
	x := scn.Images{Rows: 28, Cols: 28, Pix: testSet.Pix[:100*d]}
	p, err := scn.Classification(x, testSet.Labels[:100], testSet.Classes)
	if err != nil {
		t.Fatal(err)
	}
	c := scn.Paper(scn.RVFL2D)
	c.Activation, c.Ridge = scn.ReLU, 10
	c.Local = &scn.Local{Sizes: []int{5, 3}, Filters: 4, Stride: 1, Pad: scn.PadSame, Pool: 3, Pooling: scn.PoolAvg, TwoSided: true, Standardize: true}
	m, err := c.Fit(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "local.scn")
	must(m.Save(path))
	s, ts := newTestServer(t, Options{})
	if err := s.Load("local", path); err != nil {
		t.Fatal(err)
	}
	want, err := m.Predict(scn.Images{Rows: 28, Cols: 28, Pix: testSet.Pix[:n*d]})
	if err != nil {
		t.Fatal(err)
	}
	code, a := post(t, ts.URL+"/v1/models/local:predict", "application/json", batchJSON(testSet, 0, n, func(int) bool { return false }, `"top": 10`))
	if code != http.StatusOK || len(a.Predictions) != n {
		t.Fatalf("status %d, %d predictions: %s", code, len(a.Predictions), a.Error)
	}
	for i := range n {
		if got := scoresOf(t, a, i, testSet.Classes); !slices.Equal(got, want[i*10:(i+1)*10]) {
			t.Errorf("image %d: %v, library %v", i, got, want[i*10:(i+1)*10])
		}
	}
	code, a = post(t, ts.URL+"/v1/models/local:predict", "image/png", pngOf(t, testSet.Image(0)[:20*20], 20, 20))
	if code != http.StatusUnprocessableEntity || !strings.Contains(a.Error, "28 x 28") {
		t.Errorf("a 20 x 20 image: status %d, %q", code, a.Error)
	}
}
