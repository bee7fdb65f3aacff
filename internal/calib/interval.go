package calib

import (
	"fmt"
	"math"
	"sort"
)

// Interval records split-conformal prediction intervals of a regression
// model: output q of an image lies in [y_q - Radius[q], y_q + Radius[q]]
// with probability at least Coverage for images exchangeable with the
// held-out ones the radii were taken from (the k-th smallest absolute
// held-out residual, k = ceil((Held + 1) Coverage)).
type Interval struct {
	Coverage float64
	Radius   []float64 // per output
	Held     int       // held-out images the radii come from
}

// ConformalRank returns k = ceil((n + 1) coverage), the rank of the
// held-out residual that is a split-conformal radius of n images; k > n
// means n images are too few for the coverage.
func ConformalRank(n int, coverage float64) int {
	return int(math.Ceil(float64(n+1) * coverage))
}

// Residuals writes |y_q - t_q| of output q of every image (y and t N x m
// row-major) to r (N).
func Residuals(y, t []float64, m, q int, r []float64) {
	for i := range r {
		r[i] = math.Abs(y[i*m+q] - t[i*m+q])
	}
}

// Radius sorts the residuals r and returns the k-th smallest, 1 <= k <=
// len(r).
func Radius(r []float64, k int) float64 {
	sort.Float64s(r)
	return r[k-1]
}

// Check reports whether iv is usable for m outputs.
func (iv *Interval) Check(m int) error {
	switch {
	case !(iv.Coverage > 0 && iv.Coverage < 1):
		return fmt.Errorf("interval coverage %v", iv.Coverage)
	case len(iv.Radius) != m:
		return fmt.Errorf("%d interval radii for %d outputs", len(iv.Radius), m)
	case iv.Held < 1:
		return fmt.Errorf("interval from %d images", iv.Held)
	}
	for _, r := range iv.Radius {
		if !(r >= 0) || math.IsInf(r, 0) {
			return fmt.Errorf("interval radius %v", r)
		}
	}
	return nil
}

// Bounds returns the lower and upper ends of the intervals of predictions
// y (N x m row-major).
func (iv *Interval) Bounds(y []float64) (lower, upper []float64) {
	m := len(iv.Radius)
	lower, upper = make([]float64, len(y)), make([]float64, len(y))
	for i, v := range y {
		lower[i], upper[i] = v-iv.Radius[i%m], v+iv.Radius[i%m]
	}
	return lower, upper
}
