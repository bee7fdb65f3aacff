package calib

import (
	"fmt"
	"math"
)

// CheckFit reports what is wrong with the data of a calibration fit:
// scores (N x m row-major) and their labels, m classes. Its messages are
// the root package's, which wraps them in scn.ErrData.
func CheckFit(scores []float64, labels []int, m int) error {
	n := len(labels)
	switch {
	case m < 2:
		return fmt.Errorf("calibration of %d classes, want at least 2", m)
	case len(scores) != n*m:
		return fmt.Errorf("%d scores for %d labels of %d classes", len(scores), n, m)
	case n < 4:
		return fmt.Errorf("calibration on %d held-out images, want at least 4", n)
	}
	for i, y := range labels {
		if y < 0 || y >= m {
			return fmt.Errorf("label %d of held-out image %d is outside [0, %d)", y, i, m)
		}
	}
	return finite(scores, "score")
}

// finite reports the first non-finite value of v, "what i is v".
func finite(v []float64, what string) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s %d is %v", what, i, x)
		}
	}
	return nil
}

// FitInterval returns the split-conformal intervals of the given coverage
// (in (0, 1), checked by the caller) from held-out predictions y and
// targets t (N x m row-major), or what is wrong with them (the root
// package wraps it in scn.ErrData).
func FitInterval(y, t []float64, m int, coverage float64) (*Interval, error) {
	if m < 1 || len(y) != len(t) || len(y)%m != 0 || len(y) == 0 {
		return nil, fmt.Errorf("%d predictions and %d targets of %d outputs", len(y), len(t), m)
	}
	n := len(y) / m
	k := ConformalRank(n, coverage)
	if k > n {
		return nil, fmt.Errorf("a %g conformal interval needs at least %d held-out images, there are %d", coverage, int(math.Ceil(coverage/(1-coverage))), n)
	}
	iv := &Interval{Coverage: coverage, Radius: make([]float64, m), Held: n}
	r := make([]float64, n)
	for q := 0; q < m; q++ {
		Residuals(y, t, m, q, r)
		if err := finite(r, "held-out residual"); err != nil {
			return nil, err
		}
		iv.Radius[q] = Radius(r, k)
	}
	return iv, nil
}
