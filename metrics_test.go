package scn_test

import (
	"testing"

	"github.com/scn2d/scn"
)

func TestPPA(t *testing.T) {
	for _, c := range []struct {
		name  string
		y, t  []float64
		theta float64
		want  float64
	}{
		{"empty", nil, nil, 15, 0},
		{"strict", []float64{15, -15, 14.9, 0}, []float64{0, 0, 0, 0}, 15, 0.5},
		// Two outputs per image: every value counts, not only the first.
		{"two outputs", []float64{1, 100, 2, 3}, []float64{0, 0, 0, 0}, 15, 0.75},
		{"negative theta", []float64{0, 0}, []float64{0, 0}, -1, 0},
	} {
		if got := scn.PPA(c.y, c.t, c.theta); got != c.want {
			t.Errorf("%s: PPA = %v, want %v", c.name, got, c.want)
		}
	}
}
