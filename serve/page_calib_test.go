package serve

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/scn2d/scn/report"
)

// TestPageShowsProbabilities drives the page in headless Chromium on a
// calibrated classifier and on a regression model with conformal
// intervals (issue 33): for an uploaded image the page's bars are the
// API's calibrated probabilities (not the raw scores), they sum to 1, the
// class line shows the top probability as a percentage, and for the
// regression model the result line shows the output with its interval as
// the API gives them.
func TestPageShowsProbabilities(t *testing.T) {
	browser, err := report.Browser()
	if err != nil {
		t.Skipf("skipped: %v", err)
	}
	if testing.Short() {
		t.Skip("skipped with -short: starts a browser")
	}
	classifier, regress := calibFixtures(t)
	s := New(Options{})
	for name, path := range map[string]string{"cal": classifier, "iv": regress} {
		if err := s.Load(name, path); err != nil {
			t.Fatal(err)
		}
	}
	ts := httptest.NewServer(s) // listens on 127.0.0.1
	t.Cleanup(ts.Close)

	ctx := browserContext(t, browser)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="ready"]`)),
	); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	choose := func(name string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#model`), name)); err != nil {
			t.Fatal(err)
		}
	}
	upload := func(file []byte) shown {
		t.Helper()
		path := filepath.Join(t.TempDir(), "digit.png")
		if err := os.WriteFile(path, file, 0o644); err != nil {
			t.Fatal(err)
		}
		n := answers(ctx, t)
		if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS(`#file`), []string{path})); err != nil {
			t.Fatal(err)
		}
		return readResult(ctx, t, n)
	}
	ask := func(name string, file []byte) calibAnswer {
		t.Helper()
		resp, body := postRaw(t, ts.URL+"/v1/models/"+name+":predict?top=10", "image/png", file)
		if resp != 200 {
			t.Fatalf("%s: status %d: %s", name, resp, body)
		}
		var a calibAnswer
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}

	file := pngOf(t, testSet.Image(3), 28, 28)
	choose("cal")
	got := upload(file)
	a := ask("cal", file).Predictions[0]
	if a.Probability == nil {
		t.Fatal("the calibrated model's answer has no probability")
	}
	want := map[string]float64{}
	for _, sc := range a.Scores {
		if sc.Probability == nil {
			t.Fatalf("class %s has no probability", sc.Class)
		}
		want[sc.Class] = *sc.Probability
	}
	sum := 0.0
	for i, label := range got.labels {
		p, ok := want[label]
		if !ok || math.Abs(got.scores[i]-p) > 1e-12 {
			t.Errorf("bar %s shows %v, the API's probability %v", label, got.scores[i], p)
		}
		if got.scores[i] < 0 || got.scores[i] > 1 {
			t.Errorf("bar %s shows %v, not a probability", label, got.scores[i])
		}
		sum += got.scores[i]
	}
	if len(got.labels) != len(want) || math.Abs(sum-1) > 1e-9 {
		t.Errorf("the page shows %d bars summing to %v; want %d summing to 1", len(got.labels), sum, len(want))
	}
	if line := fmt.Sprintf("%s (%.1f%%)", a.Class, 100**a.Probability); got.class != line {
		t.Errorf("class line %q, want %q", got.class, line)
	}

	// The regression model: the output and its interval.
	choose("iv")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`document.getElementById("model").dispatchEvent(new Event("change"))`)); err != nil {
		t.Fatal(err)
	}
	got = upload(file)
	r := ask("iv", file).Predictions[0]
	if len(r.Outputs) != 1 || len(r.Lower) != 1 || len(r.Upper) != 1 || !(r.Lower[0] < r.Outputs[0] && r.Outputs[0] < r.Upper[0]) {
		t.Fatalf("interval answer %+v", r)
	}
	// The line is "y [lo, hi]", each to 4 significant digits.
	var y, lo, hi float64
	if k, err := fmt.Sscanf(strings.NewReplacer("[", " ", "]", " ", ",", " ").Replace(got.class), "%g %g %g", &y, &lo, &hi); k != 3 || err != nil {
		t.Fatalf("regression line %q: want \"y [lower, upper]\" (%v)", got.class, err)
	}
	for _, c := range [][2]float64{{y, r.Outputs[0]}, {lo, r.Lower[0]}, {hi, r.Upper[0]}} {
		if math.Abs(c[0]-c[1]) > 5e-4*math.Abs(c[1]) {
			t.Errorf("regression line %q, the API's output %v in [%v, %v]", got.class, r.Outputs[0], r.Lower[0], r.Upper[0])
			break
		}
	}
	if len(got.scores) != 1 || got.scores[0] != r.Outputs[0] {
		t.Errorf("regression bars %v, want the output %v", got.scores, r.Outputs[0])
	}
}
