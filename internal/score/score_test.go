package score

import (
	"math"
	"slices"
	"testing"
)

// TestScores: every score on small inputs worked out by hand, and empty
// inputs.
func TestScores(t *testing.T) {
	y := []float64{0.1, 0.7, 0.2, 0.5, 0.5, -1, -3, -2, -1}
	if got := ArgMax(y, 3); !slices.Equal(got, []int{1, 0, 2}) {
		t.Errorf("ArgMax %v, want [1 0 2] (the first of equal values)", got)
	}
	if got := Accuracy([]int{1, 0, 2, 2}, []int{1, 1, 2, 0}); got != 0.5 {
		t.Errorf("Accuracy %v", got)
	}
	if got := RMSE([]float64{1, 2, 3}, []float64{1, 0, 0}); math.Abs(got-math.Sqrt(13.0/3)) > 1e-15 {
		t.Errorf("RMSE %v", got)
	}
	if got := PPA([]float64{1, 2, 3, 4}, []float64{1.05, 2.1, 3.2, 4}, 0.1); got != 0.5 {
		t.Errorf("PPA %v, want 0.5 (below theta strictly)", got)
	}
	if got := TopK([]float64{3, 1, 3, 5}, 3); !slices.Equal(got, []int{3, 0, 2}) {
		t.Errorf("TopK %v", got)
	}
	if len(TopK([]float64{1}, -1)) != 0 || len(TopK([]float64{1, 2}, 9)) != 2 {
		t.Error("TopK's bounds")
	}
	if Accuracy(nil, nil) != 0 || RMSE(nil, nil) != 0 || PPA(nil, nil, 1) != 0 || len(ArgMax(nil, 3)) != 0 {
		t.Error("empty input")
	}
}
