package serve

import (
	"bytes"
	"context"
	"encoding/base64"

	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/scn2d/scn/report"
)

// TestPageInChromium drives the page in headless Chromium: it draws a digit
// with pointer events, uploads an image file, switches to a regression
// model, reads what the page shows and checks it against the API, and takes
// a screenshot ($SCN_PAGE_SCREENSHOT names a file to keep it in).
func TestPageInChromium(t *testing.T) {
	browser, err := report.Browser()
	if err != nil {
		t.Skipf("skipped: %v", err)
	}
	if testing.Short() {
		t.Skip("skipped with -short: starts a browser")
	}
	digitsPath, _, _, _ := fixtures(t)
	_, ts := newTestServer(t, Options{})

	ctx := browserContext(t, browser)

	js := func(expr string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr)); err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="ready"]`)),
	); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	options, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#model option")].map(o => o.value)`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(options, []string{"digits", "mnist", "regress"}) {
		t.Fatalf("model list %v", options)
	}

	// Draw a "7" with the mouse: pointer events on the canvas.
	box, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(r => [r.left, r.top])(document.getElementById("pad").getBoundingClientRect())`))
	if err != nil {
		t.Fatal(err)
	}
	n := answers(ctx, t)
	stroke := [][2]float64{{70, 60}, {130, 60}, {210, 60}, {190, 120}, {160, 180}, {140, 240}}
	var actions []chromedp.Action[chromedp.Void]
	for i, p := range stroke {
		x, y := box[0]+p[0], box[1]+p[1]
		if i == 0 {
			actions = append(actions, chromedp.MouseEvent(chromedp.MouseMoved, x, y), chromedp.MouseEvent(chromedp.MousePressed, x, y, chromedp.ButtonLeft))
			continue
		}
		actions = append(actions, chromedp.MouseEvent(chromedp.MouseMoved, x, y, chromedp.ButtonLeft))
	}
	last := stroke[len(stroke)-1]
	actions = append(actions, chromedp.MouseEvent(chromedp.MouseReleased, box[0]+last[0], box[1]+last[1], chromedp.ButtonLeft))
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
	drawn := readResult(ctx, t, n)
	// The page's answer is the API's for the image the page sent.
	dataURL, err := chromedp.Run(ctx, chromedp.Evaluate[string](`prepared(current()).toDataURL("image/png")`))
	if err != nil {
		t.Fatal(err)
	}
	sent, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(dataURL, "data:image/png;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(sent)); err != nil || cfg.Width != 28 || cfg.Height != 28 {
		t.Fatalf("the page sends %v, %v; want a 28 x 28 PNG", cfg, err)
	}
	_, a := post(t, ts.URL+"/v1/models/digits:predict?top=10", "image/png", sent)
	if want := scoresOf(t, a, 0, testSet.Classes); !slices.Equal(drawn.scores, want) || drawn.class != a.Predictions[0].Class {
		t.Errorf("drawing: the page shows %s %v, the API says %s %v", drawn.class, drawn.scores, a.Predictions[0].Class, want)
	}
	t.Logf("drawn 7 classified as %s", drawn.class)

	// Upload an image file: the page shows what scn predict says.
	file := pngOf(t, testSet.Image(0), 28, 28)
	path := filepath.Join(t.TempDir(), "digit.png")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	n = answers(ctx, t)
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS(`#file`), []string{path})); err != nil {
		t.Fatal(err)
	}
	up := readResult(ctx, t, n)
	want := libraryPredict(t, digitsPath, file)
	if !slices.Equal(up.scores, want) || up.class != testSet.Classes[argmax(want)] {
		t.Errorf("upload: the page shows %s %v, scn predict %v", up.class, up.scores, want)
	}

	// The regression model: its output as the result.
	n = answers(ctx, t)
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#model`), "regress")); err != nil {
		t.Fatal(err)
	}
	js(`document.getElementById("model").dispatchEvent(new Event("change"))`)
	reg := readResult(ctx, t, n)
	if len(reg.labels) != 1 || reg.labels[0] != "y0" {
		t.Errorf("regression: bars %v", reg.labels)
	}

	// A screenshot of the page with a result.
	n = answers(ctx, t)
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#model`), "digits")); err != nil {
		t.Fatal(err)
	}
	js(`document.getElementById("model").dispatchEvent(new Event("change"))`)
	readResult(ctx, t, n)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil || img.Bounds().Dx() < 500 {
		t.Fatalf("screenshot: %v", err)
	}
	out := os.Getenv("SCN_PAGE_SCREENSHOT")
	if out == "" {
		out = filepath.Join(t.TempDir(), "page.png")
	}
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s (%d x %d)", out, img.Bounds().Dx(), img.Bounds().Dy())
}

// browserContext starts headless Chromium (the browser at path) for one
// test, with a 90 s limit, and stops it when the test ends.
func browserContext(t *testing.T, path string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(900, 640),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(actx)
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancel(); cancelBrowser(); cancelAlloc() })
	return ctx
}

// shown is what the page shows after a prediction.
type shown struct {
	class  string
	labels []string
	scores []float64 // in the order of the bars (class order)
}

// answers returns how many predictions the page has shown so far.
func answers(ctx context.Context, t *testing.T) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Number(document.body.dataset.answers || 0)`))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// readResult waits for the page to show a prediction after the first
// `after` ones, and reads it.
func readResult(ctx context.Context, t *testing.T, after int) shown {
	t.Helper()
	type page struct {
		Answers             int
		State, Class, Error string
		Rows                [][]string
	}
	var got page
	for {
		var err error
		got, err = chromedp.Run(ctx, chromedp.Evaluate[page](`({Answers: Number(document.body.dataset.answers || 0),
			State: document.body.dataset.state,
			Class: document.getElementById("class").textContent, Error: document.getElementById("error").textContent,
			Rows: [...document.querySelectorAll("#bars tr")].map(r => [r.dataset.label, r.dataset.score])})`))
		if err != nil {
			t.Fatal(err)
		}
		if got.Answers > after && (got.State == "done" || got.State == "error") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got.State != "done" {
		t.Fatalf("the page shows an error: %s", got.Error)
	}
	class, rows := got.Class, got.Rows
	s := shown{class: strings.TrimSpace(class)}
	for _, r := range rows {
		v, err := strconv.ParseFloat(r[1], 64)
		if err != nil {
			t.Fatalf("bar %v: %v", r, err)
		}
		s.labels = append(s.labels, r[0])
		s.scores = append(s.scores, v)
	}
	if len(s.scores) == 0 {
		t.Fatal("no bars")
	}
	return s
}

func argmax(y []float64) int {
	best := 0
	for i, v := range y {
		if v > y[best] {
			best = i
		}
	}
	return best
}
