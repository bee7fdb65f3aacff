package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/serve"
)

// A model fitted on the built-in digits, saved, served, and asked about a
// test digit sent as a JSON batch of one flat image.
func Example() {
	train, test, err := dataset.Default()
	if err != nil {
		panic(err)
	}
	p, err := scn.Classification(scn.Images{Rows: 28, Cols: 28, Pix: train.Pix}, train.Labels, train.Classes)
	if err != nil {
		panic(err)
	}
	cfg := scn.Paper(scn.SCN2D)
	cfg.MaxNodes = 100
	m, err := cfg.Fit(context.Background(), p, nil)
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "serve-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "digits.scn")
	if err := m.Save(path); err != nil {
		panic(err)
	}

	s := serve.New(serve.Options{})
	if err := s.Load("digits", path); err != nil {
		panic(err)
	}
	ts := httptest.NewServer(s) // or s.Serve(ctx, listener)
	defer ts.Close()

	body := []byte(`{"images": [[`)
	for i, v := range test.Image(0) {
		if i > 0 {
			body = append(body, ',')
		}
		body = strconv.AppendFloat(body, float64(v), 'g', -1, 32)
	}
	body = append(body, `]], "top": 1}`...)
	resp, err := http.Post(ts.URL+"/v1/models/digits:predict", "application/json", bytes.NewReader(body))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Model       string
		Predictions []struct{ Class string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		panic(err)
	}
	fmt.Println(resp.Status, answer.Model, "says", answer.Predictions[0].Class, "for a", test.Classes[test.Labels[0]])
	// Output: 200 OK digits says 5 for a 5
}
