package calib

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFitTemperatureMinimises: the temperature found minimises the
// log-loss (its neighbours do worse), and the logistic read-out started
// there is at least as good on the data it is fitted on.
func TestFitTemperatureMinimises(t *testing.T) {
	// FitTemperature is the minimiser of the log-loss.
	rng := rand.New(rand.NewPCG(3, 4))
	n, k := 500, 4
	s, y := make([]float64, n*k), make([]int, n)
	for i := range y {
		y[i] = rng.IntN(k)
		for q := 0; q < k; q++ {
			s[i*k+q] = rng.NormFloat64() * 0.3
		}
		s[i*k+y[i]] += 0.5
	}
	tt := FitTemperature(s, y, k)
	at := LogLoss(Softmax(s, k, tt), k, y)
	for _, f := range []float64{0.99, 1.01} {
		if l := LogLoss(Softmax(s, k, tt*f), k, y); l < at {
			t.Errorf("temperature %v x %v gives log-loss %v below the fitted %v", tt, f, l, at)
		}
	}
	// The logistic read-out is at least as good as the temperature on the
	// data it is fitted on (it starts there).
	lc := FitLogistic(s, y, k, tt)
	if l := LogLoss(lc.Probabilities(s), k, y); l > at+1e-12 {
		t.Errorf("logistic read-out's log-loss %v above the temperature's %v", l, at)
	}
}

// TestLBFGSQuadratic: L-BFGS finds the minimum of a convex quadratic
// (an independent closed form: x* = c) from afar.
func TestLBFGSQuadratic(t *testing.T) {
	c := []float64{3, -2, 0.5, 7}
	w := []float64{1, 10, 100, 0.1}
	f := func(x, g []float64) float64 {
		var v float64
		for i := range x {
			d := x[i] - c[i]
			v += w[i] * d * d / 2
			if g != nil {
				g[i] = w[i] * d
			}
		}
		return v
	}
	x := lbfgs(f, make([]float64, 4), 300, 1e-12)
	for i := range x {
		if math.Abs(x[i]-c[i]) > 1e-6 {
			t.Fatalf("L-BFGS minimum %v, want %v", x, c)
		}
	}
}

// TestCheckAndBounds: a map or an interval that does not fit its model is
// refused; bounds are the predictions plus and minus each output's
// radius; the conformal rank is ceil((n + 1) coverage).
func TestCheckAndBounds(t *testing.T) {
	c := TemperatureMap(0.5, 3)
	if err := c.Check(3); err == nil {
		t.Error("a map fitted on no images passes")
	}
	c.Held = 10
	if err := c.Check(3); err != nil {
		t.Errorf("a good map: %v", err)
	}
	if err := c.Check(4); err == nil {
		t.Error("a map of 3 classes passes for 4")
	}
	iv := &Interval{Coverage: 0.9, Radius: []float64{1, 2}, Held: 9}
	if err := iv.Check(2); err != nil {
		t.Errorf("a good interval: %v", err)
	}
	if err := (&Interval{Coverage: 1, Radius: []float64{1}, Held: 9}).Check(1); err == nil {
		t.Error("coverage 1 passes")
	}
	lo, hi := iv.Bounds([]float64{0, 0, 5, 5})
	if want := []float64{-1, -2, 4, 3}; !slices.Equal(lo, want) {
		t.Errorf("lower bounds %v, want %v", lo, want)
	}
	if want := []float64{1, 2, 6, 7}; !slices.Equal(hi, want) {
		t.Errorf("upper bounds %v, want %v", hi, want)
	}
	if k := ConformalRank(39, 0.9); k != 36 {
		t.Errorf("conformal rank of 39 images at 0.9: %d, want 36", k)
	}
	if r := Radius([]float64{5, 1, 4, 2, 3}, 2); r != 2 {
		t.Errorf("second smallest residual %v, want 2", r)
	}
}
