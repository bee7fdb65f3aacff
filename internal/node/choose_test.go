package node

import (
	"slices"
	"testing"
)

// TestAdmissible: the supervisory inequality by hand on three candidates
// and two outputs: xi_q = (e_q^T h)^2 / h^T h - (1-r) e_q^T e_q.
func TestAdmissible(t *testing.T) {
	hh := []float64{1, 4, 2}
	// eh[q*k+j]: output 0 then output 1.
	eh := []float64{
		1, 4, 0.1,
		2, 2, 1,
	}
	ee := []float64{1, 2}
	// r = 0.5: xi_0 = eh^2/hh - 0.5, xi_1 = eh^2/hh - 1.
	// j=0: 0.5, 3 (sum 3.5); j=1: 3.5, 0 (sum 3.5); j=2: -0.495, ...: out.
	got := Admissible(hh, eh, ee, 2, 0.5, make([]bool, 3))
	if !slices.Equal(got, []int{0, 1}) {
		t.Errorf("admissible %v, want [0 1] (ties keep their order)", got)
	}
	// A dead candidate and a zero column are skipped.
	if got := Admissible(hh, eh, ee, 2, 0.5, []bool{true, false, false}); !slices.Equal(got, []int{1}) {
		t.Errorf("with candidate 0 dead: %v, want [1]", got)
	}
	if got := Admissible([]float64{0, 4, 2}, eh, ee, 2, 0.5, make([]bool, 3)); !slices.Equal(got, []int{1}) {
		t.Errorf("with a zero column: %v, want [1]", got)
	}
	// r = 1 admits every candidate, best sum first: 5, 5, 0.505.
	if got := Admissible(hh, eh, ee, 2, 1, make([]bool, 3)); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("r = 1: %v, want [0 1 2]", got)
	}
	hh[2] = 0.001 // candidate 2's sum 10 + 1000: first
	if got := Admissible(hh, eh, ee, 2, 1, make([]bool, 3)); !slices.Equal(got, []int{2, 0, 1}) {
		t.Errorf("r = 1, small h^T h: %v, want [2 0 1]", got)
	}
}

// TestCorrelateRows: h^T h and e_q^T h of a candidate by direct sums.
func TestCorrelateRows(t *testing.T) {
	z := []float32{1, 2, 3}
	e := []float64{1, 0, -1, 9, 2, 2, 2, 9} // two outputs, stride 4
	acc := make([]float64, 2*(2+1))
	CorrelateRows(z, make([]float64, 3), e, 4, 2, acc, 2, 1)
	if acc[2*2+1] != 14 || acc[0*2+1] != -2 || acc[1*2+1] != 12 {
		t.Errorf("sums %v, want hh 14, eh -2 and 12 at candidate 1", acc)
	}
}
