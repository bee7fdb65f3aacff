package calib

import (
	"math"
	"testing"
)

// TestCalibratedECEBinomial checks the ECE noise against its exact value
// where all images share one confidence c (one bin): the ECE of a draw is
// |X / n - c|, X binomial (n, c), whose mean is a finite sum.
func TestCalibratedECEBinomial(t *testing.T) {
	const n, c, draws = 50, 0.7, 4000
	p := make([]float64, 0, 2*n)
	for i := 0; i < n; i++ {
		p = append(p, c, 1-c)
	}
	got := CalibratedECE(p, 2, 15, draws, 7)
	var mean, sq float64
	for k := 0; k <= n; k++ {
		lp := lgammaOf(n+1) - lgammaOf(k+1) - lgammaOf(n-k+1) + float64(k)*math.Log(c) + float64(n-k)*math.Log(1-c)
		d := math.Abs(float64(k)/n - c)
		mean += math.Exp(lp) * d
		sq += math.Exp(lp) * d * d
	}
	se := math.Sqrt((sq - mean*mean) / draws)
	if math.Abs(got.Mean-mean) > 5*se {
		t.Fatalf("mean ECE of calibrated draws %.5f, exact %.5f (standard error %.5f)", got.Mean, mean, se)
	}
	if got.Draws != draws || !(got.Median <= got.P90 && got.P90 <= got.P95) {
		t.Fatalf("quantiles %+v", got)
	}
}

func lgammaOf(k int) float64 {
	v, _ := math.Lgamma(float64(k))
	return v
}

// TestCalibratedECEDeterministic checks that certain answers give no noise
// and that a seed fixes the draws.
func TestCalibratedECEDeterministic(t *testing.T) {
	sure := []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}
	if e := CalibratedECE(sure, 3, 15, 50, 1); e.Mean != 0 || e.P95 != 0 {
		t.Fatalf("one-hot probabilities: ECE noise %+v, want 0", e)
	}
	p := []float64{0.5, 0.3, 0.2, 0.9, 0.05, 0.05, 0.4, 0.4, 0.2, 0.1, 0.1, 0.8}
	a, b := CalibratedECE(p, 3, 15, 100, 3), CalibratedECE(p, 3, 15, 100, 3)
	if a != b {
		t.Fatalf("same seed: %+v and %+v", a, b)
	}
	if e := CalibratedECE(nil, 3, 15, 10, 1); e.Mean != 0 {
		t.Fatalf("no images: %+v", e)
	}
}
