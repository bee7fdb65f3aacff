package calib

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/scn2d/scn/internal/modelfile"
)

func TestFileRoundTrip(t *testing.T) {
	c := &Calibration{Method: "logistic", Temperature: 1.5, M: 2, A: []float64{1, 0, 0, 1}, B: []float64{0.1, -0.1},
		Held: 40, TemperatureLogLoss: 0.3, LogisticLogLoss: 0.25, RawLogLoss: 0.5}
	iv := &Interval{Coverage: 0.9, Radius: []float64{0.5, 1}, Held: 40}
	h := &modelfile.Header{Outputs: 2, ClassWeights: []float64{1, 2}}
	h.Calibration, h.Interval = ToFile(c, iv)
	gc, giv, w, err := FromFile(h, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gc, c) || !reflect.DeepEqual(giv, iv) || !reflect.DeepEqual(w, h.ClassWeights) {
		t.Fatalf("round trip: %+v %+v %v", gc, giv, w)
	}
	if &w[0] == &h.ClassWeights[0] || &gc.A[0] == &h.Calibration.A[0] {
		t.Fatal("FromFile shares the header's slices")
	}
	if fc, fi := ToFile(nil, nil); fc != nil || fi != nil {
		t.Fatal("ToFile(nil, nil) is not nil")
	}
	if _, _, _, err := FromFile(h, 2); !errors.Is(err, modelfile.ErrFormat) {
		t.Fatalf("version 2: %v", err)
	}
	h.Calibration = &modelfile.Calibration{Method: "temperature", Temperature: 2, A: []float64{1}}
	if _, _, _, err := FromFile(h, 3); !errors.Is(err, modelfile.ErrFormat) {
		t.Fatalf("temperature with a matrix: %v", err)
	}
}

func TestCheckFitAndFitInterval(t *testing.T) {
	good := []float64{1, 0, 0, 1, 1, 0, 0, 1}
	if err := CheckFit(good, []int{0, 1, 0, 1}, 2); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{
		"one class": func() error { return CheckFit(good, []int{0, 0, 0, 0, 0, 0, 0, 0}, 1) },
		"lengths":   func() error { return CheckFit(good, []int{0, 1, 0}, 2) },
		"few":       func() error { return CheckFit(good[:6], []int{0, 1, 0}, 2) },
		"label":     func() error { return CheckFit(good, []int{0, 1, 2, 1}, 2) },
		"nan":       func() error { return CheckFit([]float64{1, 0, 0, math.NaN(), 1, 0, 0, 1}, []int{0, 1, 0, 1}, 2) },
		"interval":  func() error { _, err := FitInterval([]float64{1}, []float64{1, 2}, 1, 0.5); return err },
		"too few":   func() error { _, err := FitInterval([]float64{1, 2}, []float64{1, 2}, 1, 0.9); return err },
		"inf": func() error {
			_, err := FitInterval([]float64{1, math.Inf(1), 3}, []float64{1, 2, 3}, 1, 0.5)
			return err
		},
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
	y := []float64{0, 0, 0, 0, 0, 0, 0, 0, 0}
	tt := []float64{1, -2, 3, -4, 5, -6, 7, -8, 9}
	iv, err := FitInterval(y, tt, 1, 0.5) // k = ceil(10 * 0.5) = 5
	if err != nil || iv.Radius[0] != 5 || iv.Held != 9 {
		t.Fatalf("FitInterval = %+v, %v", iv, err)
	}
}
