package export

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/npy"
)

// calibFit fits a small calibrated classifier, or a regression model with
// conformal intervals, on the built-in set's first images.
func calibFit(t *testing.T, kind scn.Kind, regression bool) *scn.Model {
	t.Helper()
	train, _ := data(t)
	x := scn.Images{Rows: train.Rows, Cols: train.Cols, Pix: train.Pix}
	var p scn.Problem
	var err error
	if regression {
		d := train.Rows * train.Cols
		targets := make([]float64, 0, train.Len())
		for i := 0; i < train.Len(); i++ {
			var s float64
			for k, v := range train.Image(i) {
				if k < d/2 {
					s += float64(v)
				}
			}
			targets = append(targets, s/float64(d/2))
		}
		p, err = scn.Regression(x, targets, 1)
	} else {
		p, err = scn.Classification(x, train.Labels, train.Classes)
	}
	if err != nil {
		t.Fatal(err)
	}
	cfg := scn.Paper(kind)
	cfg.MaxNodes, cfg.Ridge, cfg.Seed = 40, 0.1, 3
	s := scn.Selection{Validation: 0.3, Uncalibrated: regression}
	if regression {
		s.Coverage = 0.8
	}
	m, err := cfg.FitHeldOut(context.Background(), p, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestONNXCalibrated: the exported graph's probabilities equal
// Model.Probabilities within 1e-5, its class is their arg-max, and a
// regression model's lower and upper equal the intervals' bounds.
func TestONNXCalibrated(t *testing.T) {
	node, script := onnxRuntime(t)
	_, test := data(t)
	x := scn.Images{Rows: test.Rows, Cols: test.Cols, Pix: test.Pix}
	for _, tc := range []struct {
		kind                 scn.Kind
		regression, logistic bool
	}{{scn.RVFL2D, false, false}, {scn.SCN, false, false}, {scn.RVFL2D, false, true}, {scn.RVFL2D, true, false}} {
		name := fmt.Sprintf("%s-regression-%v-logistic-%v", tc.kind, tc.regression, tc.logistic)
		m := calibFit(t, tc.kind, tc.regression)
		if tc.logistic {
			// A logistic read-out with an asymmetric matrix (the graph
			// must transpose it) and offsets.
			c := *m.Calibration
			c.Method = "logistic"
			c.A, c.B = make([]float64, m.M*m.M), make([]float64, m.M)
			for i := range c.A {
				c.A[i] = math.Sin(float64(i)) * 3
			}
			for i := range c.B {
				c.B[i] = math.Cos(float64(i))
			}
			cm := *m
			cm.Calibration = &c
			m = &cm
		}
		path := filepath.Join(t.TempDir(), "m.onnx")
		if err := WriteONNX(path, m, ONNXOptions{}); err != nil {
			t.Fatal(err)
		}
		out := runONNX(t, node, script, path, test)
		y, err := m.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		if tc.regression {
			lo, hi := m.Interval.Bounds(y)
			for _, o := range []struct {
				name string
				want []float64
			}{{"lower", lo}, {"upper", hi}} {
				got := out[o.name]
				if got.Type != "float64" {
					t.Fatalf("%s: no float64 %s output: %v", name, o.name, out)
				}
				agree(t, name+" "+o.name, got.Data, o.want, m.M)
			}
			continue
		}
		want, err := m.Probabilities(x)
		if err != nil {
			t.Fatal(err)
		}
		got := out["probability"]
		if got.Type != "float64" || len(got.Data) != len(want) {
			t.Fatalf("%s: probability output %s %v", name, got.Type, got.Dims)
		}
		worst := 0.0
		for i, v := range want {
			worst = max(worst, math.Abs(got.Data[i]-v))
		}
		if worst > 1e-5 {
			t.Errorf("%s: ONNX probabilities differ from Model.Probabilities by up to %.3g", name, worst)
		}
		for i, c := range scn.ArgMax(want, m.M) {
			if int(out["class"].Data[i]) != c && clearWinner(want[i*m.M:(i+1)*m.M]) {
				t.Errorf("%s: image %d class %v, the probabilities' arg-max %d", name, i, out["class"].Data[i], c)
			}
		}
		t.Logf("%s (%s map): largest probability difference %.2g", name, m.Calibration.Method, worst)
	}
}

// TestNPZCalibration: the .npz file carries the calibration map and the
// intervals.
func TestNPZCalibration(t *testing.T) {
	m := calibFit(t, scn.RVFL2D, false)
	path := filepath.Join(t.TempDir(), "m.npz")
	if err := WriteNPZ(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := npy.ReadNPZFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got["temperature"].Data, []float64{m.Calibration.Temperature}) || fmt.Sprint(got["calibration_method"].Data) != "["+m.Calibration.Method+"]" {
		t.Errorf("calibration arrays %v %v", got["temperature"], got["calibration_method"])
	}
	// A logistic map's matrix and offsets.
	c := *m.Calibration
	c.Method, c.A, c.B = "logistic", make([]float64, m.M*m.M), make([]float64, m.M)
	for i := range c.A {
		c.A[i] = float64(i)
	}
	lm := *m
	lm.Calibration = &c
	if err := WriteNPZ(path, &lm); err != nil {
		t.Fatal(err)
	}
	if got, err = npy.ReadNPZFile(path); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got["calibration_a"].Data, c.A) || !reflect.DeepEqual(got["calibration_b"].Data, c.B) ||
		fmt.Sprint(got["calibration_a"].Shape) != fmt.Sprint([]int{m.M, m.M}) {
		t.Errorf("logistic calibration arrays %v %v", got["calibration_a"].Shape, got["calibration_b"])
	}
	r := calibFit(t, scn.RVFL2D, true)
	if err := WriteNPZ(path, r); err != nil {
		t.Fatal(err)
	}
	if got, err = npy.ReadNPZFile(path); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got["interval_radius"].Data, r.Interval.Radius) || !reflect.DeepEqual(got["interval_coverage"].Data, []float64{0.8}) {
		t.Errorf("interval arrays %v %v", got["interval_radius"], got["interval_coverage"])
	}
	if _, ok := got["calibration_a"]; ok {
		t.Error("a regression model's file has a calibration map")
	}
}
