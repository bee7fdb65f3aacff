package scn

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scn2d/scn/internal/calib"
	"github.com/scn2d/scn/internal/modelfile"
)

// calibratedModel fits a small classifier with a calibration map.
func calibratedModel(t *testing.T) (*Model, Problem) {
	t.Helper()
	p := blobProblem(t, 600)
	c := Paper(RVFL2D)
	c.MaxNodes, c.Ridge = 60, 0.1
	m, err := c.Select(context.Background(), p, Selection{Validation: 0.3}, nil) // calibrated by default
	if err != nil {
		t.Fatal(err)
	}
	return m, p
}

// TestCalibrationRoundTrip: the calibration map and the probabilities are
// the same after save/load; the file is version 3, a model without the
// extensions stays version 1; rows sum to 1.
func TestCalibrationRoundTrip(t *testing.T) {
	m, p := calibratedModel(t)
	if m.Calibration == nil || m.Calibration.Held != 180 {
		t.Fatalf("calibration %+v, want one of 180 held-out images", m.Calibration)
	}
	file, back := roundTrip(t, m)
	if v := binary.LittleEndian.Uint32(file[8:]); v != 3 {
		t.Errorf("a calibrated model's file is version %d, want 3", v)
	}
	if !reflect.DeepEqual(back.Calibration, m.Calibration) {
		t.Errorf("calibration after load %+v, want %+v", back.Calibration, m.Calibration)
	}
	pa, err := m.Probabilities(p.X)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := back.Probabilities(p.X)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pa, pb) {
		t.Error("probabilities differ after save/load")
	}
	for i := 0; i < len(pa); i += m.M {
		var s float64
		for _, v := range pa[i : i+m.M] {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("probability %v", v)
			}
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			t.Fatalf("row %d sums to %v", i/m.M, s)
		}
	}
	// Classify is the arg-max of the probabilities, which mostly agrees
	// with the scores'.
	if got, _ := m.Classify(p.X); !reflect.DeepEqual(got, ArgMax(pa, m.M)) {
		t.Error("Classify of a calibrated model is not the arg-max of its probabilities")
	}
	y, _ := m.Predict(p.X)
	if a, b := ArgMax(pa, m.M), ArgMax(y, m.M); Accuracy(a, b) < 0.95 {
		t.Errorf("calibrated and raw arg-max agree on %.3f", Accuracy(a, b))
	}
	// Both kinds of map come back with the same bits.
	for _, c := range []*Calibration{calib.TemperatureMap(0.125, m.M), calib.FitLogistic(y, ArgMax(p.T, m.M), m.M, 0.1)} {
		c.Held = 7
		other := *m
		other.Calibration = c
		_, back := roundTrip(t, &other)
		if !reflect.DeepEqual(back.Calibration, c) {
			t.Errorf("%s map after load %+v, want %+v", c.Method, back.Calibration, c)
		}
	}
	// Without extensions: version 1, and Probabilities says uncalibrated.
	plain := *m
	plain.Calibration = nil
	file, back = roundTrip(t, &plain)
	if v := binary.LittleEndian.Uint32(file[8:]); v != 1 {
		t.Errorf("an uncalibrated model's file is version %d, want 1", v)
	}
	if _, err := back.Probabilities(p.X); !errors.Is(err, ErrUncalibrated) {
		t.Errorf("uncalibrated Probabilities: %v", err)
	}
	// A file written before calibration existed loads, uncalibrated.
	old, err := Load(filepath.Join("testdata", "v1-2dscn.scn"))
	if err != nil {
		t.Fatal(err)
	}
	x := Images{Rows: old.Rows, Cols: old.Cols, Pix: make([]float32, old.Rows*old.Cols)}
	if _, err := old.Probabilities(x); old.Calibration != nil || !errors.Is(err, ErrUncalibrated) {
		t.Errorf("an old file: calibration %v, Probabilities %v", old.Calibration, err)
	}
}

// TestCalibrationBeatsRawSoftmax: on held-out images the calibrated map's
// log-loss is below the plain softmax of the raw scores (the fits' own
// optimality is internal/calib's test).
func TestCalibrationBeatsRawSoftmax(t *testing.T) {
	m, _ := calibratedModel(t)
	c := m.Calibration
	if !(min(c.TemperatureLogLoss, c.LogisticLogLoss) < c.RawLogLoss) {
		t.Errorf("calibrated log-loss %v / %v not below the raw softmax's %v", c.TemperatureLogLoss, c.LogisticLogLoss, c.RawLogLoss)
	}
}

// TestConformalCoverage: split-conformal intervals on exchangeable data
// cover within the binomial band. 400 repetitions each draw 39 held-out
// residuals and 10 test points from the same distribution (heavy tailed)
// for a fixed predictor; marginal coverage is ceil(40 * 0.9) / 40 = 0.9
// exactly, and 4000 test points give a standard error of 0.0047.
func TestConformalCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const reps, held, test, cov = 400, 39, 10, 0.9
	hit := 0
	draw := func() float64 { return rng.NormFloat64() / math.Max(0.2, rng.Float64()) }
	for r := 0; r < reps; r++ {
		y, tt := make([]float64, held), make([]float64, held)
		for i := range y {
			tt[i] = draw()
		}
		iv, err := FitInterval(y, tt, 1, cov)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < test; i++ {
			lo, hi := iv.Bounds([]float64{0})
			if v := draw(); v >= lo[0] && v <= hi[0] {
				hit++
			}
		}
	}
	got := float64(hit) / (reps * test)
	se := math.Sqrt(cov * (1 - cov) / (reps * test))
	if math.Abs(got-cov) > 4*se {
		t.Errorf("coverage %.4f, want %.2f +- %.4f", got, cov, 4*se)
	}
}

// TestIntervalRoundTrip: a regression model's intervals come through
// Select, save and load unchanged; on fresh points from the same
// distribution they cover about their share.
func TestIntervalRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func(n int) Problem {
		x := make([]float32, n*4)
		y := make([]float64, n)
		for i := 0; i < n; i++ {
			var s float64
			for j := 0; j < 4; j++ {
				v := rng.Float64()
				x[i*4+j] = float32(v)
				s += math.Sin(3 * v * float64(j+1))
			}
			y[i] = s + 0.3*rng.NormFloat64()
		}
		p, err := Regression(Images{Rows: 2, Cols: 2, Pix: x}, y, 1)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p, q := mk(1000), mk(2000)
	c := Paper(RVFL)
	c.MaxNodes, c.Ridge = 40, 0.01
	m, err := c.Select(context.Background(), p, Selection{Validation: 0.4, Coverage: 0.9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	file, back := roundTrip(t, m)
	if v := binary.LittleEndian.Uint32(file[8:]); v != 3 {
		t.Errorf("file version %d, want 3", v)
	}
	if !reflect.DeepEqual(back.Interval, m.Interval) || m.Interval.Held != 400 {
		t.Errorf("interval after load %+v, want %+v", back.Interval, m.Interval)
	}
	y, _ := back.Predict(q.X)
	lo, hi := back.Interval.Bounds(y)
	hit := 0
	for i, v := range q.T {
		if v >= lo[i] && v <= hi[i] {
			hit++
		}
	}
	// The final weights saw the held-out images too: slightly
	// conservative; the band allows for that and for the 400 held-out
	// residuals' own spread (their quantile's standard error).
	if got := float64(hit) / float64(len(q.T)); got < 0.86 || got > 0.95 {
		t.Errorf("coverage %.3f of a 0.9 interval on fresh data", got)
	}
}

// weightsOf returns the image weights of labels under class weights w.
func weightsOf(p Problem, w []float64) []float64 {
	out := make([]float64, p.X.Len())
	for i, c := range ArgMax(p.T, p.M) {
		out[i] = w[c]
	}
	return out
}

// directWeighted solves min sum_i w_i ||h_i beta - t_i||^2 + ridge ||beta||^2
// by QR of the stacked [sqrt(W) H; sqrt(ridge) I].
func directWeighted(t *testing.T, m *Model, p Problem, w []float64, ridge float64) []float64 {
	t.Helper()
	h := hiddenDense(m, p.X)
	n, l := h.Dims()
	a := mat.NewDense(n+l, l, nil)
	b := mat.NewDense(n+l, p.M, nil)
	for i := 0; i < n; i++ {
		s := math.Sqrt(w[i])
		for j := 0; j < l; j++ {
			a.Set(i, j, s*h.At(i, j))
		}
		for q := 0; q < p.M; q++ {
			b.Set(i, q, s*p.T[i*p.M+q])
		}
	}
	for j := 0; j < l; j++ {
		a.Set(n+j, j, math.Sqrt(ridge))
	}
	var qr mat.QR
	qr.Factorize(a)
	out := mat.NewDense(l, p.M, nil)
	if err := qr.SolveTo(out, false, b); err != nil {
		t.Fatal(err)
	}
	return out.RawMatrix().Data
}

// TestWeightedLeastSquares: Reweighted's output weights equal a direct
// weighted solve; its statistics updated with new images equal the
// weighted refit on all of them, through a statistics file.
func TestWeightedLeastSquares(t *testing.T) {
	p := blobProblem(t, 600)
	c := Paper(RVFL2D)
	c.MaxNodes, c.Ridge = 50, 0.1
	a, b := subsetProblem(p, 0, 400), subsetProblem(p, 400, 600)
	m := fitT(t, c, a)
	w := []float64{1, 3, 0.5}
	if len(w) != p.M {
		t.Fatalf("%d classes", p.M)
	}
	rw, err := m.Reweighted(a, w)
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(rw.Beta, directWeighted(t, m, a, weightsOf(a, w), c.Ridge)); d > 1e-9 {
		t.Errorf("weighted solve differs from the direct one by %.3g", d)
	}
	if !reflect.DeepEqual(rw.ClassWeights, w) {
		t.Errorf("class weights %v recorded, want %v", rw.ClassWeights, w)
	}
	_, back := roundTrip(t, rw)
	if !reflect.DeepEqual(back.ClassWeights, w) {
		t.Errorf("class weights after load %v", back.ClassWeights)
	}
	st := statsT(t, back, a)
	var buf bytes.Buffer
	if _, err := st.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	st2, err := ReadStats(&buf)
	if err != nil {
		t.Fatal(err)
	}
	nm, _, err := back.Update(st2, b, false)
	if err != nil {
		t.Fatal(err)
	}
	want := directWeighted(t, m, p, weightsOf(p, w), c.Ridge)
	if d := relDiff(nm.Beta, want); d > 1e-8 {
		t.Errorf("weighted update differs from the weighted refit on all images by %.3g", d)
	}
	if !reflect.DeepEqual(nm.ClassWeights, w) {
		t.Errorf("updated model's class weights %v", nm.ClassWeights)
	}
	// Statistics of differently weighted recipes do not merge.
	if _, err := statsT(t, m, b).Merge(st2); !errors.Is(err, ErrStats) {
		t.Errorf("merging weighted and unweighted statistics: %v", err)
	}
	// Balanced weights: N / (M N_c).
	bw, err := BalancedWeights(a)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for i, v := range weightsOf(a, bw) {
		_ = i
		sum += v
	}
	if math.Abs(sum-float64(a.X.Len())) > 1e-9 {
		t.Errorf("balanced weights sum to %v over %d images", sum, a.X.Len())
	}
}

// TestCalibrationBadInput: impossible settings and files are refused with
// clear errors.
func TestCalibrationBadInput(t *testing.T) {
	p := blobProblem(t, 200)
	c := Paper(RVFL2D)
	c.MaxNodes = 20
	ctx := context.Background()
	for _, s := range []Selection{
		{Validation: 0.3, Coverage: 1},
		{Validation: 0.3, Coverage: -0.1},
		{Validation: 0.3, Coverage: math.NaN()},
		{Validation: 0.3, Coverage: 0.9},                     // a classifier
		{Validation: 0.3, ClassWeights: []float64{1, 1, -1}}, // negative
		{Validation: 0.3, ClassWeights: []float64{1, math.NaN(), 1}},
		{Validation: 0.3, ClassWeights: []float64{1, 1}}, // too few
	} {
		if _, err := c.Select(ctx, p, s, nil); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", s, err)
		}
	}
	reg := toyProblem(t, 100)
	if m, err := c.Select(ctx, reg, Selection{Validation: 0.3}, nil); err != nil {
		t.Errorf("a regression's selection: %v", err)
	} else if m.Calibration != nil {
		t.Errorf("a regression's selection has a calibration map %+v", m.Calibration)
	}
	// Too few held-out images for the coverage.
	if _, err := FitInterval(make([]float64, 5), make([]float64, 5), 1, 0.9); !errors.Is(err, ErrData) {
		t.Errorf("a 0.9 interval from 5 residuals: %v", err)
	}
	if _, err := FitCalibration([]float64{0, 1, 1, 0, 0, 1, 1, 0}, []int{1, 0, 2, 0}, 2); !errors.Is(err, ErrData) {
		t.Errorf("label outside the classes: %v", err)
	}
	if _, err := FitCalibration([]float64{0, math.NaN(), 1, 0, 0, 1, 1, 0}, []int{1, 0, 1, 0}, 2); !errors.Is(err, ErrData) {
		t.Errorf("NaN score: %v", err)
	}
	// A file whose calibration is broken, or a version 1 file with one.
	m, _ := calibratedModel(t)
	for name, edit := range map[string]func(*Model){
		"temperature": func(m *Model) { m.Calibration = calib.TemperatureMap(1, m.M); m.Calibration.Temperature = -1 },
		"matrix": func(m *Model) {
			m.Calibration.Method, m.Calibration.A, m.Calibration.B = "logistic", make([]float64, 3), make([]float64, m.M)
		},
		"temperature with a matrix": func(m *Model) {
			m.Calibration.Method, m.Calibration.A, m.Calibration.B = "temperature", make([]float64, m.M*m.M), make([]float64, m.M)
		},
		"classes": func(m *Model) { m.Calibration.M = 2 },
		"weights": func(m *Model) { m.ClassWeights = []float64{1, 0, 1} },
	} {
		bad := *m
		cal := *m.Calibration
		bad.Calibration = &cal
		edit(&bad)
		if _, err := bad.WriteTo(&bytes.Buffer{}); err == nil {
			t.Errorf("%s: a broken model was written", name)
		}
	}
	file, _ := roundTrip(t, m)
	old := bytes.Clone(file)
	binary.LittleEndian.PutUint32(old[8:], 1)
	if _, err := Read(bytes.NewReader(old)); !errors.Is(err, ErrFormat) {
		t.Errorf("version 1 file with a calibration map: %v", err)
	}
}

// TestCalibratedFitDeterministic: a calibrated, class-weighted fit (the
// default nodes in blocks, a hold-out, logistic read-out candidates) gives
// the same file at GOMAXPROCS 1 and 2.
func TestCalibratedFitDeterministic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	p := blobProblem(t, 500)
	c := Default(SCN2D)
	c.MaxNodes = 60
	s := Selection{Validation: 0.3, ClassWeights: []float64{1, 2, 0.5}}
	var files [][]byte
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		m, err := c.Select(context.Background(), p, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, modelBytes(t, m))
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("calibrated fits differ between GOMAXPROCS=1 and 2")
	}
}

// FuzzCalibrationHeader fuzzes the JSON header of a version 3 file (the
// calibration fields above all) with the payload of a calibrated model,
// the lengths and checksum made right: a header is refused with
// ErrFormat, or the model it gives writes back to a file that reads the
// same; never a panic, nor an allocation the header alone claims.
func FuzzCalibrationHeader(f *testing.F) {
	p := blobProblem(f, 120)
	c := Paper(RVFL2D)
	c.MaxNodes, c.Ridge = 4, 0.1
	m, err := c.Select(context.Background(), p, Selection{Validation: 0.5, ClassWeights: []float64{1, 2, 3}}, nil)
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	file := buf.Bytes()
	hlen := int(binary.LittleEndian.Uint32(file[12:]))
	header, payload := file[16:16+hlen], file[16+hlen:len(file)-4]
	f.Add(header)
	logistic := *m
	logistic.Calibration = calib.FitLogistic([]float64{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0}, []int{0, 1, 2, 0}, 3, 0.5)
	logistic.Calibration.Held = 4
	buf.Reset()
	if _, err := logistic.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes()[16 : 16+int(binary.LittleEndian.Uint32(buf.Bytes()[12:]))])
	f.Add([]byte(`{"kind":"2drvfl","activation":"sigmoid","rows":4,"cols":4,"outputs":8589934592,"nodes":1,"config":{},"summary":{},"calibration":{"method":"temperature","temperature":1,"held_out":1}}`))
	f.Fuzz(func(t *testing.T, h []byte) {
		le := binary.LittleEndian
		data := append([]byte(modelfile.Magic), le.AppendUint32(nil, 3)...)
		data = le.AppendUint32(data, uint32(len(h)))
		data = append(append(data, h...), payload...)
		data = le.AppendUint32(data, crc32.Checksum(data, modelfile.Castagnoli))
		got, err := Read(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error not wrapping ErrFormat: %v", err)
			}
			return
		}
		var out bytes.Buffer
		if _, err := got.WriteTo(&out); err != nil {
			t.Fatalf("a model read could not be written: %v", err)
		}
		again, err := Read(bytes.NewReader(out.Bytes()))
		if err != nil || !reflect.DeepEqual(again.Calibration, got.Calibration) || !reflect.DeepEqual(again.Interval, got.Interval) || !reflect.DeepEqual(again.ClassWeights, got.ClassWeights) {
			t.Fatalf("written back and read: %v", err)
		}
	})
}

// TestFitWeightedRefusesEarly: wrong class weights are refused before
// any fit, with ErrConfig.
func TestFitWeightedRefusesEarly(t *testing.T) {
	p := blobProblem(t, 60)
	c := Paper(RVFL2D)
	c.MaxNodes = 5
	for _, w := range [][]float64{{1, 2}, {1, 0, 1}, {1, math.Inf(1), 1}} {
		if _, err := c.FitWeighted(context.Background(), p, w, nil); !errors.Is(err, ErrConfig) {
			t.Errorf("weights %v: %v, want ErrConfig", w, err)
		}
	}
	c.Robust = true
	if _, err := c.FitWeighted(context.Background(), p, []float64{1, 1, 1}, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("weights with Robust: %v", err)
	}
	m, err := Paper(RVFL2D).FitWeighted(context.Background(), p, nil, nil)
	if err != nil || m.ClassWeights != nil {
		t.Errorf("no weights: %v, %v", m.ClassWeights, err)
	}
}
