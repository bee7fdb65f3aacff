package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

// calibFixtures saves a calibrated digit classifier and a regression
// model with conformal intervals.
func calibFixtures(t *testing.T) (classifier, regress string) {
	t.Helper()
	fixtures(t)
	train, _, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	x := scn.Images{Rows: train.Rows, Cols: train.Cols, Pix: train.Pix}
	p, err := scn.Classification(x, train.Labels, train.Classes)
	if err != nil {
		t.Fatal(err)
	}
	c := scn.Paper(scn.RVFL2D)
	c.MaxNodes, c.Ridge = 60, 0.1
	m, err := c.FitHeldOut(context.Background(), p, scn.Selection{Validation: 0.2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	classifier = filepath.Join(t.TempDir(), "cal.scn")
	must(m.Save(classifier))
	d := train.Rows * train.Cols
	targets := make([]float64, train.Len())
	for i := range targets {
		for k, v := range train.Image(i) {
			if k < d/2 {
				targets[i] += float64(v)
			}
		}
	}
	rp, err := scn.Regression(x, targets, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.FitHeldOut(context.Background(), rp, scn.Selection{Validation: 0.2, Coverage: 0.9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	regress = filepath.Join(t.TempDir(), "iv.scn")
	must(r.Save(regress))
	return classifier, regress
}

type calibAnswer struct {
	Predictions []struct {
		Class       string   `json:"class"`
		Index       *int     `json:"index"`
		Probability *float64 `json:"probability"`
		Unsure      bool     `json:"unsure"`
		Scores      []struct {
			Class       string   `json:"class"`
			Score       float64  `json:"score"`
			Probability *float64 `json:"probability"`
		} `json:"scores"`
		Outputs []float64 `json:"outputs"`
		Lower   []float64 `json:"lower"`
		Upper   []float64 `json:"upper"`
	} `json:"predictions"`
	Error string `json:"error"`
}

// TestCalibratedAnswers: a calibrated model's answer has the library's
// probabilities beside the scores (all classes: they sum to 1), "unsure"
// under the threshold; a regression model's answer its interval; a
// threshold for an uncalibrated model or outside [0, 1] is refused.
func TestCalibratedAnswers(t *testing.T) {
	cal, iv := calibFixtures(t)
	digits, _, _, _ := fixtures(t)
	s := New(Options{RejectBelow: 0.5})
	for name, path := range map[string]string{"cal": cal, "iv": iv, "digits": digits} {
		if err := s.Load(name, path); err != nil {
			t.Fatal(err)
		}
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	m, err := scn.Load(cal)
	if err != nil {
		t.Fatal(err)
	}
	body := batchJSON(testSet, 0, 8, func(int) bool { return false }, "")
	x := scn.Images{Rows: 28, Cols: 28, Pix: testSet.Pix[:8*784]}
	want, err := m.Probabilities(x)
	if err != nil {
		t.Fatal(err)
	}
	postCalib := func(url string) (int, calibAnswer) {
		t.Helper()
		resp, err := http.Post(url, "application/json", bytesReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var a calibAnswer
		if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, a
	}
	code, a := postCalib(ts.URL + "/v1/models/cal:predict?top=10")
	if code != http.StatusOK || len(a.Predictions) != 8 {
		t.Fatalf("status %d: %+v", code, a)
	}
	unsure := 0
	for i, p := range a.Predictions {
		var sum float64
		for _, sc := range p.Scores {
			k := -1
			for c, name := range m.Classes {
				if name == sc.Class {
					k = c
				}
			}
			if sc.Probability == nil || k < 0 || *sc.Probability != want[i*m.M+k] {
				t.Fatalf("image %d class %s: probability %v, want %v", i, sc.Class, sc.Probability, want[i*m.M+k])
			}
			sum += *sc.Probability
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("image %d: probabilities sum to %v", i, sum)
		}
		top := *p.Scores[0].Probability
		if p.Probability == nil || *p.Probability != top || (top < 0.5) != p.Unsure || (p.Unsure && p.Class != "unsure") || (!p.Unsure && p.Class != p.Scores[0].Class) {
			t.Errorf("image %d: class %q probability %v unsure %v, top %s %v", i, p.Class, p.Probability, p.Unsure, p.Scores[0].Class, top)
		}
		if p.Unsure {
			unsure++
		}
	}
	code, a = postCalib(ts.URL + "/v1/models/cal:predict?reject_below=1")
	for _, p := range a.Predictions {
		if code != http.StatusOK || !p.Unsure || p.Class != "unsure" || p.Index != nil {
			t.Fatalf("reject_below=1: status %d %+v", code, p)
		}
	}
	code, a = postCalib(ts.URL + "/v1/models/iv:predict")
	r, err := scn.Load(iv)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range a.Predictions {
		if code != http.StatusOK || len(p.Lower) != 1 || math.Abs(p.Outputs[0]-p.Lower[0]-r.Interval.Radius[0]) > 1e-12 || math.Abs(p.Upper[0]-p.Outputs[0]-r.Interval.Radius[0]) > 1e-12 {
			t.Fatalf("interval answer: status %d %+v", code, p)
		}
	}
	for _, tc := range []struct {
		url  string
		code int
	}{
		{"/v1/models/cal:predict?reject_below=1.5", http.StatusBadRequest},
		{"/v1/models/cal:predict?reject_below=x", http.StatusBadRequest},
		{"/v1/models/digits:predict?reject_below=0.5", http.StatusUnprocessableEntity},
	} {
		if code, a := postCalib(ts.URL + tc.url); code != tc.code || a.Error == "" {
			t.Errorf("%s: status %d (%q), want %d", tc.url, code, a.Error, tc.code)
		}
	}
	// The uncalibrated model answers as before, without probabilities.
	code, a = postCalib(ts.URL + "/v1/models/digits:predict")
	if code != http.StatusOK || a.Predictions[0].Probability != nil || a.Predictions[0].Scores[0].Probability != nil {
		t.Errorf("uncalibrated answer: %d %+v", code, a.Predictions[0])
	}
	_, info := get(t, ts.URL+"/v1/models")
	if !json.Valid(info) || !contains(string(info), `"calibration":"`) {
		t.Errorf("models list: %s", info)
	}
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }
