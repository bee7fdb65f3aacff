package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/internal/linalg"
)

// Fixtures: models fitted once on the built-in data set and saved in a
// temporary folder.
var (
	fixDir  string
	testSet *dataset.Set
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "scn-serve-test")
	if err != nil {
		panic(err)
	}
	fixDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var fixOnce sync.Once

// fixtures returns the path of a 2DSCN digit classifier (L = 60, no
// preprocessing recorded), of the same network recording the MNIST
// convention, of a regression model, and of a second, different
// classifier.
func fixtures(t testing.TB) (digits, mnist, regress, other string) {
	t.Helper()
	fixOnce.Do(func() {
		train, test, err := dataset.Default()
		if err != nil {
			panic(err)
		}
		testSet = test
		x := scn.Images{Rows: train.Rows, Cols: train.Cols, Pix: train.Pix}
		p, err := scn.Classification(x, train.Labels, train.Classes)
		if err != nil {
			panic(err)
		}
		fit := func(kind scn.Kind, p scn.Problem, nodes int, seed uint64) *scn.Model {
			c := scn.Paper(kind)
			c.MaxNodes, c.Seed = nodes, seed
			m, err := c.Fit(context.Background(), p, nil)
			if err != nil {
				panic(err)
			}
			return m
		}
		m := fit(scn.SCN2D, p, 60, 1)
		must(m.Save(filepath.Join(fixDir, "digits.scn")))
		m.Preprocessing = scn.Preprocessing{MNIST: true}
		must(m.Save(filepath.Join(fixDir, "mnist.scn")))
		must(fit(scn.RVFL2D, p, 40, 2).Save(filepath.Join(fixDir, "other.scn")))
		t := make([]float64, train.Len())
		for i, l := range train.Labels {
			t[i] = float64(l) / 9
		}
		rp, err := scn.Regression(x, t, 1)
		if err != nil {
			panic(err)
		}
		must(fit(scn.SCN, rp, 30, 3).Save(filepath.Join(fixDir, "regress.scn")))
	})
	return filepath.Join(fixDir, "digits.scn"), filepath.Join(fixDir, "mnist.scn"),
		filepath.Join(fixDir, "regress.scn"), filepath.Join(fixDir, "other.scn")
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// newTestServer serves the fixtures as digits, mnist and regress.
func newTestServer(t testing.TB, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	digits, mnist, regress, _ := fixtures(t)
	s := New(opts)
	for name, path := range map[string]string{"digits": digits, "mnist": mnist, "regress": regress} {
		if err := s.Load(name, path); err != nil {
			t.Fatal(err)
		}
	}
	ts := httptest.NewServer(s) // listens on 127.0.0.1
	t.Cleanup(ts.Close)
	return s, ts
}

// pngOf encodes grey levels in [0, 1] as an 8-bit grey PNG.
func pngOf(t testing.TB, pix []float32, rows, cols int) []byte {
	img := image.NewGray(image.Rect(0, 0, cols, rows))
	for i, v := range pix {
		img.Pix[i] = uint8(v*255 + 0.5)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// libraryPredict is what the library says of an image file, prepared as
// scn predict prepares it.
func libraryPredict(t testing.TB, modelPath string, file []byte) []float64 {
	t.Helper()
	m, err := scn.Load(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	p, err := dataset.RecordedPreprocess(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "img.png")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	pix, rows, cols, err := dataset.LoadImageFile(path, p)
	if err != nil {
		t.Fatal(err)
	}
	y, err := m.Predict(scn.Images{Rows: rows, Cols: cols, Pix: pix})
	if err != nil {
		t.Fatal(err)
	}
	return y
}

type answer struct {
	Model       string  `json:"model"`
	Version     string  `json:"version"`
	TookMS      float64 `json:"took_ms"`
	Predictions []struct {
		Class  string `json:"class"`
		Index  *int   `json:"index"`
		Scores []struct {
			Class string  `json:"class"`
			Score float64 `json:"score"`
		} `json:"scores"`
		Outputs []float64 `json:"outputs"`
	} `json:"predictions"`
	Error  string `json:"error"`
	Status int    `json:"status"`
}

// post sends body and decodes the JSON answer.
func post(t testing.TB, url, ctype string, body []byte) (int, answer) {
	t.Helper()
	code, b := postRaw(t, url, ctype, body)
	var a answer
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("answer is not JSON: %v: %s", err, b)
	}
	return code, a
}

// postRaw sends body and returns the status and the answer's bytes,
// checking that the answer says it is JSON.
func postRaw(t testing.TB, url, ctype string, body []byte) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, ctype, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json (%s)", ct, b)
	}
	return resp.StatusCode, b
}

func get(t testing.TB, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// scoresOf returns the scores of a classification answer in class order.
func scoresOf(t testing.TB, a answer, i int, classes []string) []float64 {
	t.Helper()
	y := make([]float64, len(classes))
	p := a.Predictions[i]
	if len(p.Scores) != len(classes) {
		t.Fatalf("%d scores, want %d", len(p.Scores), len(classes))
	}
	for _, s := range p.Scores {
		k := slices.Index(classes, s.Class)
		if k < 0 {
			t.Fatalf("unknown class %q", s.Class)
		}
		y[k] = s.Score
	}
	return y
}

func TestPredictImageAndBatch(t *testing.T) {
	digitsPath, _, _, _ := fixtures(t)
	_, ts := newTestServer(t, Options{})
	classes := testSet.Classes
	for i := range 5 {
		file := pngOf(t, testSet.Image(i), testSet.Rows, testSet.Cols)
		want := libraryPredict(t, digitsPath, file)
		code, a := post(t, ts.URL+"/v1/models/digits:predict?top=10", "image/png", file)
		if code != http.StatusOK {
			t.Fatalf("status %d: %s", code, a.Error)
		}
		if a.Model != "digits" || len(a.Version) != 12 || a.TookMS <= 0 || len(a.Predictions) != 1 {
			t.Fatalf("answer %+v", a)
		}
		if got := scoresOf(t, a, 0, classes); !slices.Equal(got, want) {
			t.Errorf("image %d: scores %v, scn predict %v", i, got, want)
		}
		best := scn.ArgMax(want, len(want))[0]
		if a.Predictions[0].Class != classes[best] || *a.Predictions[0].Index != best || a.Predictions[0].Scores[0].Class != classes[best] {
			t.Errorf("image %d: class %q, want %q", i, a.Predictions[0].Class, classes[best])
		}
	}
	// The default top is 5; top=0 gives the class alone; no content type
	// is sniffed.
	_, a := post(t, ts.URL+"/v1/models/digits:predict", "", pngOf(t, testSet.Image(0), 28, 28))
	if len(a.Predictions[0].Scores) != 5 {
		t.Errorf("%d scores by default, want 5", len(a.Predictions[0].Scores))
	}
	_, a = post(t, ts.URL+"/v1/models/digits:predict?top=0", "image/png", pngOf(t, testSet.Image(0), 28, 28))
	if len(a.Predictions[0].Scores) != 0 || a.Predictions[0].Class == "" {
		t.Errorf("top=0: %+v", a.Predictions[0])
	}

	// A JSON batch: flat and nested images, scores as the library's on the
	// same values (no 8-bit rounding here).
	m, err := scn.Load(digitsPath)
	if err != nil {
		t.Fatal(err)
	}
	n := 7
	want, err := m.Predict(scn.Images{Rows: 28, Cols: 28, Pix: testSet.Pix[:n*784]})
	if err != nil {
		t.Fatal(err)
	}
	body := batchJSON(testSet, 0, n, func(i int) bool { return i%2 == 1 }, `"top": 10`)
	code, a := post(t, ts.URL+"/v1/models/digits:predict", "application/json", body)
	if code != http.StatusOK || len(a.Predictions) != n {
		t.Fatalf("status %d, %d predictions: %s", code, len(a.Predictions), a.Error)
	}
	for i := range n {
		if got := scoresOf(t, a, i, classes); !slices.Equal(got, want[i*10:(i+1)*10]) {
			t.Errorf("batch image %d: %v, library %v", i, got, want[i*10:(i+1)*10])
		}
	}
	// "prepared": true on a model that records preprocessing skips it.
	body = batchJSON(testSet, 0, n, func(int) bool { return false }, `"top": 10, "prepared": true`)
	code, a = post(t, ts.URL+"/v1/models/mnist:predict", "application/json", body)
	if code != http.StatusOK {
		t.Fatalf("prepared batch: status %d: %s", code, a.Error)
	}
	for i := range n {
		if got := scoresOf(t, a, i, classes); !slices.Equal(got, want[i*10:(i+1)*10]) {
			t.Errorf("prepared batch image %d: %v, library %v", i, got, want[i*10:(i+1)*10])
		}
	}
}

// batchJSON writes images first..first+n-1 of s as a JSON batch, nested
// where nested says, with extra members.
func batchJSON(s *dataset.Set, first, n int, nested func(int) bool, extra string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"images": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(imageJSON(s.Image(first+i), s.Rows, s.Cols, nested(i)))
	}
	b.WriteString("]")
	if extra != "" {
		b.WriteString(", " + extra)
	}
	b.WriteString("}")
	return b.Bytes()
}

func imageJSON(pix []float32, rows, cols int, nested bool) string {
	var b strings.Builder
	b.WriteString("[")
	for r := range rows {
		if nested {
			if r > 0 {
				b.WriteString(",")
			}
			b.WriteString("[")
		}
		for c := range cols {
			if c > 0 || (!nested && r > 0) {
				b.WriteString(",")
			}
			b.WriteString(strconv.FormatFloat(float64(pix[r*cols+c]), 'g', -1, 32))
		}
		if nested {
			b.WriteString("]")
		}
	}
	b.WriteString("]")
	return b.String()
}

// TestPreprocessingApplied sends a large dark-on-light digit to a model
// that records the MNIST convention: the server inverts and normalizes it
// as scn predict does.
func TestPreprocessingApplied(t *testing.T) {
	_, mnistPath, _, _ := fixtures(t)
	_, ts := newTestServer(t, Options{})
	big := dataset.Resize(testSet.Image(3), 28, 28, 70, 56)
	dataset.Invert(big)
	file := pngOf(t, big, 70, 56)
	want := libraryPredict(t, mnistPath, file)
	code, a := post(t, ts.URL+"/v1/models/mnist:predict?top=10", "image/png", file)
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, a.Error)
	}
	if got := scoresOf(t, a, 0, testSet.Classes); !slices.Equal(got, want) {
		t.Errorf("scores %v, scn predict %v", got, want)
	}
	// The same image as JSON rows gets the same preprocessing (from the
	// 8-bit levels the PNG holds).
	q := make([]float32, len(big))
	for i, v := range big {
		q[i] = float32(uint8(v*255+0.5)) / 255
	}
	body := []byte(`{"images": [` + imageJSON(q, 70, 56, true) + `], "top": 10}`)
	code, a = post(t, ts.URL+"/v1/models/mnist:predict", "application/json", body)
	if code != http.StatusOK {
		t.Fatalf("JSON: status %d: %s", code, a.Error)
	}
	if got := scoresOf(t, a, 0, testSet.Classes); !slices.Equal(got, want) {
		t.Errorf("JSON: scores %v, scn predict %v", got, want)
	}
	// Without preprocessing recorded, a 70 x 56 image is the wrong shape.
	code, a = post(t, ts.URL+"/v1/models/digits:predict", "image/png", file)
	if code != http.StatusUnprocessableEntity || !strings.Contains(a.Error, "28 x 28") {
		t.Errorf("70 x 56 image to a 28 x 28 model: status %d: %s", code, a.Error)
	}
}

func TestRegression(t *testing.T) {
	_, _, regressPath, _ := fixtures(t)
	_, ts := newTestServer(t, Options{})
	file := pngOf(t, testSet.Image(1), 28, 28)
	want := libraryPredict(t, regressPath, file)
	code, a := post(t, ts.URL+"/v1/models/regress:predict", "image/png", file)
	if code != http.StatusOK || len(a.Predictions) != 1 || !slices.Equal(a.Predictions[0].Outputs, want) || a.Predictions[0].Class != "" {
		t.Fatalf("status %d: %+v, want outputs %v", code, a, want)
	}
}

func TestModelsHealthMetricsPage(t *testing.T) {
	digitsPath, _, _, _ := fixtures(t)
	_, ts := newTestServer(t, Options{})
	code, b := get(t, ts.URL+"/v1/models")
	if code != http.StatusOK {
		t.Fatalf("GET /v1/models: %d %s", code, b)
	}
	var list struct{ Models []modelInfo }
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range list.Models {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, []string{"digits", "mnist", "regress"}) {
		t.Fatalf("models %v", names)
	}
	file, err := os.ReadFile(digitsPath)
	if err != nil {
		t.Fatal(err)
	}
	d := list.Models[0]
	sum := fmt.Sprintf("%x", sha256Sum(file))
	if d.SHA256 != sum || d.Version != sum[:12] || d.SizeBytes != int64(len(file)) || d.Kind != "2DSCN" || d.Nodes != 60 ||
		d.Rows != 28 || d.Cols != 28 || d.Outputs != 10 || len(d.Classes) != 10 || d.Task != "classification" || d.Parameters != 60*(28+28+1+10) {
		t.Errorf("digits: %+v (file sha256 %s)", d, sum)
	}
	if r := list.Models[2]; r.Kind != "SCN" || r.Task != "regression" || r.Classes != nil || r.Outputs != 1 {
		t.Errorf("regress: %+v", r)
	}
	if !list.Models[1].Preprocess.MNIST {
		t.Errorf("mnist: preprocessing %+v", list.Models[1].Preprocess)
	}
	code, b = get(t, ts.URL+"/v1/models/digits")
	if code != http.StatusOK || !bytes.Contains(b, []byte(`"sha256":"`+sum)) {
		t.Errorf("GET /v1/models/digits: %d %s", code, b)
	}
	code, b = get(t, ts.URL+"/healthz")
	if code != http.StatusOK || !bytes.Contains(b, []byte(`"status":"ok"`)) {
		t.Errorf("/healthz: %d %s", code, b)
	}
	code, b = get(t, ts.URL+"/")
	if code != http.StatusOK || !bytes.Contains(b, []byte("<canvas")) {
		t.Errorf("/: %d", code)
	}
	// Two images predicted and one refused show in the metrics.
	post(t, ts.URL+"/v1/models/digits:predict", "image/png", pngOf(t, testSet.Image(0), 28, 28))
	post(t, ts.URL+"/v1/models/digits:predict", "application/json", batchJSON(testSet, 0, 1, func(int) bool { return false }, ""))
	post(t, ts.URL+"/v1/models/digits:predict", "image/png", []byte("not an image"))
	code, b = get(t, ts.URL+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{
		`scn_images_predicted_total{model="digits"} 2`,
		`scn_predict_errors_total{code="400",model="digits"} 1`,
		`scn_http_requests_total{code="200",route="predict"} 2`,
		`scn_http_requests_total{code="400",route="predict"} 1`,
		`scn_http_request_duration_seconds_count{route="predict"} 3`,
		`scn_models_loaded 3`,
		`scn_scoring_pass_images_count 2`,
		`go_goroutines`,
		`go_sched_latencies_seconds_bucket`,
		`go_sched_pauses_total_gc_seconds_count`,
	} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// TestBadInputs sends each kind of bad request and checks its status and
// that the server keeps answering good ones.
func TestBadInputs(t *testing.T) {
	s, ts := newTestServer(t, Options{MaxBodyBytes: 256 << 10, MaxBatchImages: 50})
	good := pngOf(t, testSet.Image(0), 28, 28)
	pred := ts.URL + "/v1/models/digits:predict"
	huge := hugePNGHeader(t, 20000, 20000)
	tiny := pngOf(t, []float32{0.5}, 1, 1)
	row := imageJSON(testSet.Image(0), 28, 28, false)
	many := `{"images": [` + strings.Repeat(row+",", 50) + row + `]}`
	cases := []struct {
		name, url, ctype, body string
		status                 int
		msg                    string
	}{
		{"empty body", pred, "image/png", "", 400, "empty body"},
		{"not an image", pred, "image/png", "hello, world", 400, "not an image"},
		{"truncated PNG", pred, "image/png", string(good[:60]), 400, "bad image"},
		{"1x1 image", pred, "image/png", string(tiny), 422, "1 x 1"},
		{"20000x20000 PNG header", pred, "image/png", string(huge), 413, "20000 x 20000"},
		{"body over the limit", pred, "image/png", string(good) + strings.Repeat("x", 256<<10), 413, "limit"},
		{"unknown model", ts.URL + "/v1/models/nope:predict", "image/png", string(good), 404, `no model "nope"`},
		{"unknown verb", ts.URL + "/v1/models/digits:explain", "image/png", string(good), 404, "unknown method"},
		{"JSON not JSON", pred, "application/json", `{"images": [[0, 1]`, 400, "malformed JSON"},
		{"JSON NaN", pred, "application/json", `{"images": [[NaN, 0.5]]}`, 400, "malformed JSON"},
		{"JSON Infinity", pred, "application/json", `{"images": [[Infinity]]}`, 400, "malformed JSON"},
		{"JSON overflow", pred, "application/json", `{"images": [[1e999]]}`, 400, "out of range"},
		{"JSON wrong shape", pred, "application/json", `{"images": [[0, 0.5, 1]]}`, 422, "3 values"},
		{"JSON wrong rows", pred, "application/json", `{"images": [[[0, 1], [1, 0]]]}`, 422, "2 x 2"},
		{"JSON ragged rows", pred, "application/json", `{"images": [[[0, 1], [1]]]}`, 400, "row 1 has 1 values"},
		{"JSON 8-bit values", pred, "application/json", `{"images": [[255]]}`, 422, "[0, 1]"},
		{"JSON negative", pred, "application/json", `{"images": [` + strings.Replace(row, "0", "-0.5", 1) + `]}`, 422, "[0, 1]"},
		{"JSON no images", pred, "application/json", `{"top": 3}`, 400, `no "images"`},
		{"JSON empty images", pred, "application/json", `{"images": []}`, 400, "empty"},
		{"JSON unknown key", pred, "application/json", `{"images": [[0]], "img": 1}`, 400, "unknown key"},
		{"JSON bad top", pred, "application/json", `{"images": [[0]], "top": 1.5}`, 400, "top"},
		{"JSON too many images", pred, "application/json", many, 413, "limit is 50"},
		{"bad top query", pred + "?top=x", "image/png", string(good), 400, "top="},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, a := post(t, c.url, c.ctype, []byte(c.body))
			if code != c.status || a.Status != c.status || !strings.Contains(a.Error, c.msg) {
				t.Errorf("status %d (body %d): %q; want %d with %q", code, a.Status, a.Error, c.status, c.msg)
			}
			if code, a := post(t, pred, "image/png", good); code != http.StatusOK {
				t.Fatalf("a good request after it: status %d: %s", code, a.Error)
			}
		})
	}
	// Wrong methods get 405 with a JSON error.
	for _, p := range []string{"/v1/models/digits:predict", "/"} {
		req, _ := http.NewRequest(http.MethodDelete, ts.URL+p, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("DELETE %s: %d %s", p, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	if code, _ := get(t, ts.URL+"/v1/models/digits:predict"); code != http.StatusMethodNotAllowed {
		t.Errorf("GET predict: %d", code)
	}
	if code, _ := get(t, ts.URL+"/nothing"); code != http.StatusNotFound {
		t.Errorf("GET /nothing: %d", code)
	}
	// Refused requests leave no trace in the gathering's count of
	// requests on their way (a pass would wait for them).
	if n := s.lookup("digits").arriving.Load(); n != 0 {
		t.Errorf("%d requests still counted as arriving", n)
	}
}

// hugePNGHeader is the start of a PNG whose header claims w x h pixels.
func hugePNGHeader(t *testing.T, w, h int) []byte {
	img := image.NewGray(image.Rect(0, 0, 2, 2))
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	// IHDR data starts at byte 16: width, height (big-endian); fix its CRC.
	hdr := b[12:29]
	putBE32(hdr[4:], uint32(w))
	putBE32(hdr[8:], uint32(h))
	putBE32(b[29:], crc32IEEE(hdr))
	return b
}

// TestConcurrentAnswers sends many requests at once, PNG files and JSON
// batches of several sizes, to two models: every answer is the library's
// prediction of that request's images, whatever else was scored with it.
func TestConcurrentAnswers(t *testing.T) {
	digitsPath, _, regressPath, _ := fixtures(t)
	s, ts := newTestServer(t, Options{MaxConcurrent: 2, Gather: 16})
	m, err := scn.Load(digitsPath)
	if err != nil {
		t.Fatal(err)
	}
	r, err := scn.Load(regressPath)
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	quant := make([]float32, n*784) // the images as 8-bit PNGs carry them
	for i, v := range testSet.Pix[:n*784] {
		quant[i] = float32(uint8(v*255+0.5)) / 255
	}
	wantD, err := m.Predict(scn.Images{Rows: 28, Cols: 28, Pix: quant})
	if err != nil {
		t.Fatal(err)
	}
	wantR, err := r.Predict(scn.Images{Rows: 28, Cols: 28, Pix: testSet.Pix[:n*784]})
	if err != nil {
		t.Fatal(err)
	}
	pngs := make([][]byte, n)
	for i := range pngs {
		pngs[i] = pngOf(t, testSet.Image(i), 28, 28)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for c := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 15 {
				i := (c*7 + k*3) % n
				if (c+k)%4 == 3 { // a JSON batch to the regression model
					cnt := 1 + (c+k)%5
					cnt = min(cnt, n-i)
					code, a := post(t, ts.URL+"/v1/models/regress:predict", "application/json", batchJSON(testSet, i, cnt, func(int) bool { return false }, ""))
					if code != http.StatusOK || len(a.Predictions) != cnt {
						errs <- fmt.Errorf("batch %d+%d: status %d: %s", i, cnt, code, a.Error)
						continue
					}
					for q := range cnt {
						if !batchAgrees(a.Predictions[q].Outputs, wantR[i+q:i+q+1]) {
							errs <- fmt.Errorf("regress image %d: %v, library %v", i+q, a.Predictions[q].Outputs, wantR[i+q])
						}
					}
					continue
				}
				code, a := post(t, ts.URL+"/v1/models/digits:predict?top=10", "image/png", pngs[i])
				if code != http.StatusOK {
					errs <- fmt.Errorf("image %d: status %d: %s", i, code, a.Error)
					continue
				}
				if got := scoresOf(t, a, 0, testSet.Classes); !slices.Equal(got, wantD[i*10:(i+1)*10]) {
					errs <- fmt.Errorf("image %d: %v, library %v", i, got, wantD[i*10:(i+1)*10])
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	_ = s
}

// TestReload replaces a model file by a corrupt one (the old model stays,
// and the error says why), then by another model (served from then on).
func TestReload(t *testing.T) {
	digitsPath, _, _, otherPath := fixtures(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "live.scn")
	copyFile(t, digitsPath, path)
	var log bytes.Buffer
	s := New(Options{Logger: newTextLogger(&log)})
	if err := s.Load("live", path); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	file := pngOf(t, testSet.Image(2), 28, 28)
	_, before := post(t, ts.URL+"/v1/models/live:predict?top=10", "image/png", file)

	// Unchanged: nothing happens.
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	// Corrupt: the old model stays.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	err = s.Reload()
	if err == nil || !strings.Contains(err.Error(), "live.scn") {
		t.Fatalf("reload of a corrupt file: %v", err)
	}
	if !strings.Contains(log.String(), "reload failed; keeping the model loaded before") || !strings.Contains(log.String(), "checksum") {
		t.Errorf("log does not say why:\n%s", log.String())
	}
	code, after := post(t, ts.URL+"/v1/models/live:predict?top=10", "image/png", file)
	if code != http.StatusOK || after.Version != before.Version || !slices.Equal(scoresOf(t, after, 0, testSet.Classes), scoresOf(t, before, 0, testSet.Classes)) {
		t.Fatalf("after a corrupt reload: status %d, version %s (was %s)", code, after.Version, before.Version)
	}
	// A missing file too.
	os.Remove(path)
	if err := s.Reload(); err == nil {
		t.Fatal("reload of a missing file: no error")
	}
	// Another model: served from now on.
	copyFile(t, otherPath, path)
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	_, replaced := post(t, ts.URL+"/v1/models/live:predict?top=10", "image/png", file)
	want := libraryPredict(t, otherPath, file)
	if replaced.Version == before.Version || !slices.Equal(scoresOf(t, replaced, 0, testSet.Classes), want) {
		t.Errorf("after replacing the file: version %s (was %s)", replaced.Version, before.Version)
	}
	_, mb := get(t, ts.URL+"/metrics")
	for _, w := range []string{`scn_model_reloads_total{result="failed"} 2`, `scn_model_reloads_total{result="replaced"} 1`, `scn_model_reloads_total{result="unchanged"} 1`} {
		if !bytes.Contains(mb, []byte(w)) {
			t.Errorf("/metrics lacks %s", w)
		}
	}
}

// TestReloadUnderLoad swaps a model file back and forth while clients keep
// asking: every request is answered, by one model or the other, with its
// answer.
func TestReloadUnderLoad(t *testing.T) {
	digitsPath, _, _, otherPath := fixtures(t)
	path := filepath.Join(t.TempDir(), "live.scn")
	copyFile(t, digitsPath, path)
	s := New(Options{Gather: 8})
	if err := s.Load("live", path); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	file := pngOf(t, testSet.Image(4), 28, 28)
	want := map[string][]float64{}
	for _, p := range []string{digitsPath, otherPath} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want[fmt.Sprintf("%x", sha256Sum(b))[:12]] = libraryPredict(t, p, file)
	}
	stop := make(chan struct{})
	errs := make(chan error, 100)
	var wg sync.WaitGroup
	var answered, versions sync.Map
	for c := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				code, a := post(t, ts.URL+"/v1/models/live:predict?top=10", "image/png", file)
				if code != http.StatusOK {
					errs <- fmt.Errorf("client %d, request %d: status %d: %s", c, k, code, a.Error)
					return
				}
				w, ok := want[a.Version]
				if !ok || !slices.Equal(scoresOf(t, a, 0, testSet.Classes), w) {
					errs <- fmt.Errorf("client %d, request %d: version %s, scores not that model's", c, k, a.Version)
					return
				}
				answered.Store(fmt.Sprint(c, k), true)
				versions.Store(a.Version, true)
			}
		}()
	}
	for i := range 20 {
		src := otherPath
		if i%2 == 1 {
			src = digitsPath
		}
		copyFile(t, src, path)
		if err := s.Reload(); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	n, v := 0, 0
	answered.Range(func(any, any) bool { n++; return true })
	versions.Range(func(any, any) bool { v++; return true })
	t.Logf("%d requests answered across 20 reloads, by %d versions", n, v)
}

func copyFile(t *testing.T, from, to string) {
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	tmp := to + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, to); err != nil {
		t.Fatal(err)
	}
}

// TestPanicBecomes500: a panic in a handler answers 500 and the server
// keeps serving.
func TestPanicBecomes500(t *testing.T) {
	var log bytes.Buffer
	s := New(Options{Logger: newTextLogger(&log)})
	h := s.instrument(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/boom" {
			panic("boom")
		}
		w.Write([]byte("fine"))
	}))
	ts := httptest.NewServer(h)
	defer ts.Close()
	code, b := get(t, ts.URL+"/boom")
	if code != http.StatusInternalServerError || !bytes.Contains(b, []byte(`"error":"internal error: boom"`)) {
		t.Errorf("panic: %d %s", code, b)
	}
	if code, b := get(t, ts.URL+"/fine"); code != http.StatusOK || string(b) != "fine" {
		t.Errorf("after the panic: %d %s", code, b)
	}
	if !strings.Contains(log.String(), "panic answering a request") {
		t.Errorf("panic not logged: %s", log.String())
	}
	// A panic inside a scoring pass fails only its requests.
	md := &model{name: "broken", m: &scn.Model{Rows: 2, Cols: 2, M: 1}}
	if _, err := md.safePredict(make([]float32, 4)); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("scoring with no predictor: %v", err)
	}
}

func TestParseModelArg(t *testing.T) {
	for _, c := range []struct{ arg, name, path string }{
		{"models/digits.scn", "digits", "models/digits.scn"},
		{"a.b.scn", "a.b", "a.b.scn"},
		{"best=models/x.scn", "best", "models/x.scn"},
		{"dir=x/y=z.scn", "dir", "x/y=z.scn"},
		{"/tmp/x=y.scn", "x=y", ""}, // not a name: an error
	} {
		name, path, err := ParseModelArg(c.arg)
		if c.path == "" {
			if err == nil {
				t.Errorf("%q: no error, got %q %q", c.arg, name, path)
			}
			continue
		}
		if err != nil || name != c.name || path != c.path {
			t.Errorf("%q: %q %q %v, want %q %q", c.arg, name, path, err, c.name, c.path)
		}
	}
	s := New(Options{})
	if err := s.Load("bad name", "x.scn"); err == nil {
		t.Error("a name with a space accepted")
	}
	if err := s.Load("x", filepath.Join(t.TempDir(), "missing.scn")); err == nil {
		t.Error("a missing file loaded")
	}
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

func putBE32(b []byte, v uint32) { binary.BigEndian.PutUint32(b, v) }

func crc32IEEE(b []byte) uint32 { return crc32.ChecksumIEEE(b) }

func newTextLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// TestGatherWakesOnArrival: a pass waiting for company (fewer images than
// Gather, a request still arriving) takes the request that then joins as
// soon as it joins, not when --gather-wait runs out; and when the arriving
// request fails instead, the pass goes on at once with what it has.
func TestGatherWakesOnArrival(t *testing.T) {
	digitsPath, _, _, _ := fixtures(t)
	s := New(Options{Gather: 2, GatherWait: 10 * time.Second})
	if err := s.Load("digits", digitsPath); err != nil {
		t.Fatal(err)
	}
	md := s.lookup("digits")
	newJob := func() *job {
		return &job{pix: make([]float32, md.m.Rows*md.m.Cols), n: 1, done: make(chan struct{})}
	}
	for _, joins := range []bool{true, false} {
		a := newJob()
		md.mu.Lock()
		md.pending = append(md.pending, a)
		md.mu.Unlock()
		md.arriving.Add(1) // another request is being decoded
		scored := make(chan int, 1)
		start := time.Now()
		go func() { scored <- s.runPending(md) }()
		time.Sleep(20 * time.Millisecond)
		b := newJob()
		if joins {
			md.mu.Lock()
			md.pending = append(md.pending, b)
			md.mu.Unlock()
		}
		md.arrived()
		select {
		case k := <-scored:
			want := 1
			if joins {
				want = 2
			}
			if k != want {
				t.Errorf("joins %v: the pass scored %d requests, want %d", joins, k, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("joins %v: the pass still waits after 5 s (the gather wait is 10 s)", joins)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("joins %v: the pass took %v", joins, d)
		}
		<-a.done
		if a.err != nil || len(a.out) != md.m.M {
			t.Errorf("joins %v: first request: %v, %d outputs", joins, a.err, len(a.out))
		}
		if joins {
			<-b.done
			if b.err != nil || len(b.out) != md.m.M {
				t.Errorf("second request: %v, %d outputs", b.err, len(b.out))
			}
		}
	}
}

// TestModelBytes: the sum of the loaded files' sizes, and a reload that
// fails keeps the old file's size.
func TestModelBytes(t *testing.T) {
	digits, mnist, _, _ := fixtures(t)
	s := New(Options{})
	if s.ModelBytes() != 0 {
		t.Fatalf("empty server: %d bytes", s.ModelBytes())
	}
	path := filepath.Join(t.TempDir(), "live.scn")
	copyFile(t, digits, path)
	for name, p := range map[string]string{"live": path, "mnist": mnist} {
		if err := s.Load(name, p); err != nil {
			t.Fatal(err)
		}
	}
	size := func(p string) int64 {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	want := size(path) + size(mnist)
	if got := s.ModelBytes(); got != want {
		t.Fatalf("ModelBytes = %d, want %d", got, want)
	}
	if err := os.WriteFile(path, []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Reload(); err == nil {
		t.Fatal("reload of a corrupt file succeeded")
	}
	if got := s.ModelBytes(); got != want {
		t.Fatalf("after a failed reload ModelBytes = %d, want %d (the old file's)", got, want)
	}
}

// TestColourImageToGreyModel posts a colour PNG to a model trained on grey
// images: it is made grey (luma) as the model records, giving the scores
// scn predict gives, never refused or mis-shaped.
func TestColourImageToGreyModel(t *testing.T) {
	digitsPath, _, _, _ := fixtures(t)
	_, ts := newTestServer(t, Options{})
	img := image.NewRGBA(image.Rect(0, 0, 28, 28))
	for i, v := range testSet.Image(3) {
		b := uint8(v*255 + 0.5)
		img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = b, b/2, 255-b, 255
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	want := libraryPredict(t, digitsPath, buf.Bytes())
	code, a := post(t, ts.URL+"/v1/models/digits:predict?top=10", "image/png", buf.Bytes())
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, a.Error)
	}
	if got := scoresOf(t, a, 0, testSet.Classes); !slices.Equal(got, want) {
		t.Errorf("scores %v, scn predict %v", got, want)
	}
}

// batchAgrees reports whether a server's outputs for an image equal the
// library's for the same image in another batch: bit for bit where the
// output product is the project's or gonum's; in the OpenBLAS build to
// 1e-13 relative, since OpenBLAS picks its dgemm kernels by the matrix's
// shape too (with its Haswell and Zen kernels a batch of one rounds the
// last bit otherwise; see TestPredictorMatchesPredict).
func batchAgrees(got, want []float64) bool {
	if linalg.Backend() != "openblas" {
		return slices.Equal(got, want)
	}
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if d := math.Abs(got[i] - want[i]); d > 1e-13*math.Max(math.Abs(want[i]), 1e-300) {
			return false
		}
	}
	return true
}
