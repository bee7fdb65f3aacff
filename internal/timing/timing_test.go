package timing

import (
	"math"
	"slices"
	"testing"
)

// TestModel: the modelled seconds by the formulas written out, the plan's
// search and the further ridge terms.
func TestModel(t *testing.T) {
	n, l, b := 1000.0, 300.0, 100
	want := n*l*1e-8 + n*l*l/2*2e-9 + l*l*l/3*3e-10 + 3*1e-3
	if got := FitSeconds(1000, 300, b, 1e-8, 2e-9, 3e-10, 1e-3); math.Abs(got-want) > 1e-12*want {
		t.Errorf("FitSeconds %v, want %v", got, want)
	}
	h, m := 200.0, 10.0
	want = h*l*1e-8 + ((4+2)*l*l*l/3+h*l*l/2+4*4*20*l*l*m)*4e-10
	if got := FinishSeconds(200, 300, 10, 4, 20, 1e-8, 4e-10); math.Abs(got-want) > 1e-12*want {
		t.Errorf("FinishSeconds %v, want %v", got, want)
	}
	if got := ExtraRidgeSeconds(0, 300, 10, b, 1); got != 0 {
		t.Errorf("no further ridge terms cost %v", got)
	}
	if got := ExtraRidges([]float64{1, 10, 0, 10, 0.1}, 1); !slices.Equal(got, []float64{10, 0.1}) {
		t.Errorf("ExtraRidges %v", got)
	}
	cost := func(l int) float64 { return float64(l) }
	if got := MostNodes(64, 1000, 500, cost); got != 448 {
		t.Errorf("MostNodes %d, want 448 (7 blocks of 64)", got)
	}
	if got := MostNodes(64, 1000, 10, cost); got != 64 {
		t.Errorf("MostNodes with no time %d, want one block", got)
	}
	if got := MostNodes(64, 200, 1e9, cost); got != 192 {
		t.Errorf("MostNodes capped at 200: %d, want 192", got)
	}
	if s := CholSeconds(64); !(s > 0) {
		t.Errorf("CholSeconds %v", s)
	}
}
