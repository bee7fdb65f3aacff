package scn

import (
	"errors"
	"github.com/scn2d/scn/internal/lsq"
	"math"
	"slices"
	"testing"
)

// TestRedraw: with Config.Redraw a node found at the j-th r of a scale has
// seen T_max new candidates for each r up to it (Tried counts them), the
// residual still shrinks by the supervisory bound, the model file keeps the
// setting, and with a single r the search is the plain one, node for node.
func TestRedraw(t *testing.T) {
	p := blobProblem(t, 300)
	for _, k := range []Kind{SCN2D, SCN} {
		c := Paper(k)
		c.MaxNodes = 60
		c.Redraw = true
		m := fitT(t, c, p)
		scales := map[float64]int{}
		for i, s := range c.Scales {
			scales[s] = i
		}
		prev := math.Sqrt(lsq.Dot(p.T, p.T) / float64(len(p.T)))
		later := 0
		for _, s := range m.Summary.Trace {
			j := slices.Index(c.Ratios, s.Ratio)
			if j < 0 {
				t.Fatalf("%v node %d: r %v not in the list", k, s.L, s.Ratio)
			}
			// Scales before s.Scale tried every r; s.Scale tried r_0..r_j.
			want := c.Candidates * (scales[s.Scale]*len(c.Ratios) + j + 1)
			if s.Tried != want && s.Rejected == 0 {
				t.Fatalf("%v node %d at scale %v, r %v: %d candidates tried, want %d", k, s.L, s.Scale, s.Ratio, s.Tried, want)
			}
			if j > 0 {
				later++
			}
			if s.RMSE*s.RMSE > s.Ratio*prev*prev*(1+1e-9) {
				t.Fatalf("%v node %d: the residual broke its bound", k, s.L)
			}
			prev = s.RMSE
		}
		if later == 0 {
			t.Errorf("%v: no node needed a later r: the test does not exercise redrawing", k)
		}
		_, back := roundTrip(t, m)
		if !back.Config.Redraw {
			t.Errorf("%v: Redraw lost in the file", k)
		}
		// One r: nothing to redraw, the same nodes as without Redraw.
		c.Ratios = []float64{0.999999}
		a := fitT(t, c, p)
		c.Redraw = false
		b := fitT(t, c, p)
		if !slices.Equal(a.Params, b.Params) || !slices.Equal(a.Beta, b.Beta) {
			t.Errorf("%v: with one r, Redraw changed the model", k)
		}
	}
	for _, c := range []Config{Paper(RVFL2D), func() Config { c := Fast(SCN2D); return c }()} {
		c.Redraw = true
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%v preset %s: Redraw accepted: %v", c.Kind, c.Preset, err)
		}
	}
}
