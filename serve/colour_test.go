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

// TestColourModel serves a 2DSCN of 3 channels (tinted digits): flat JSON
// images of 3 x 28 x 28 values get the library's scores; an image sent as
// rows of values, a flat grey image, or an image file (read as grey) is
// refused with a message naming the channels, never scored mis-shaped.
func TestColourModel(t *testing.T) {
	fixtures(t)
	n, d := 6, 28*28
	tint := func(s []float32, label int) []float32 {
		hue := [][3]float32{{0.6, 0.2, 0.2}, {0.03, 0.42, 0.55}}[label%2]
		out := make([]float32, 3*d)
		for k := range 3 {
			for j, v := range s {
				out[k*d+j] = hue[k] * v
			}
		}
		return out
	}
	var pix []float32
	for i := range 100 {
		pix = append(pix, tint(testSet.Image(i), testSet.Labels[i])...)
	}
	x := scn.Images{Rows: 28, Cols: 28, Channels: 3, Pix: pix}
	p, err := scn.Classification(x, testSet.Labels[:100], testSet.Classes)
	if err != nil {
		t.Fatal(err)
	}
	c := scn.Paper(scn.SCN2D)
	c.MaxNodes = 20
	m, err := c.Fit(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "colour.scn")
	must(m.Save(path))
	s, ts := newTestServer(t, Options{})
	if err := s.Load("colour", path); err != nil {
		t.Fatal(err)
	}
	want, err := m.Predict(scn.Images{Rows: 28, Cols: 28, Channels: 3, Pix: pix[:n*3*d]})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`{"top": 10, "images": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(imageJSON(pix[i*3*d:(i+1)*3*d], 1, 3*d, false))
	}
	b.WriteString("]}")
	code, a := post(t, ts.URL+"/v1/models/colour:predict", "application/json", []byte(b.String()))
	if code != http.StatusOK || len(a.Predictions) != n {
		t.Fatalf("status %d, %d predictions: %s", code, len(a.Predictions), a.Error)
	}
	for i := range n {
		if got := scoresOf(t, a, i, testSet.Classes); !slices.Equal(got, want[i*10:(i+1)*10]) {
			t.Errorf("image %d: %v, library %v", i, got, want[i*10:(i+1)*10])
		}
	}
	for name, body := range map[string][]byte{
		"rows of values": batchJSON(testSet, 0, 1, func(int) bool { return true }, ""),
		"flat grey":      batchJSON(testSet, 0, 1, func(int) bool { return false }, ""),
	} {
		code, a := post(t, ts.URL+"/v1/models/colour:predict", "application/json", body)
		if code != http.StatusUnprocessableEntity || !strings.Contains(a.Error, "3 channels") {
			t.Errorf("%s: status %d, %q: want 422 naming 3 channels", name, code, a.Error)
		}
	}
	code, a = post(t, ts.URL+"/v1/models/colour:predict", "image/png", pngOf(t, testSet.Image(0), 28, 28))
	if code != http.StatusUnprocessableEntity || !strings.Contains(a.Error, "3 channels") {
		t.Errorf("image file: status %d, %q: want 422 naming 3 channels", code, a.Error)
	}
	code, body := get(t, ts.URL+"/v1/models")
	if code != http.StatusOK || !strings.Contains(string(body), `"channels":3`) {
		t.Errorf("model listing: %d %s", code, body)
	}
}
