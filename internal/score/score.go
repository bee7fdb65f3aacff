// Package score is the arithmetic of scn's scores of predictions: the
// predicted class of each row of outputs (ArgMax), the share of classes
// right (Accuracy), the root mean squared error (RMSE), the paper's
// percentage of prediction accuracy (PPA) and the indices of the largest
// outputs (TopK). The root package's exported functions of the same names
// are these; the models' methods that predict first stay there.
//
// It may import the standard library only; never the root package scn or
// any package above it.
package score

import (
	"math"
	"sort"
)

// ArgMax returns the index of the largest value of each row of y (rows of
// m values; the first of equal values).
func ArgMax(y []float64, m int) []int {
	out := make([]int, len(y)/m)
	for i := range out {
		row := y[i*m : (i+1)*m]
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		out[i] = best
	}
	return out
}

// Accuracy returns the share of pred equal to labels (0 for empty input).
func Accuracy(pred, labels []int) float64 {
	if len(pred) == 0 {
		return 0
	}
	hit := 0
	for i, p := range pred {
		if p == labels[i] {
			hit++
		}
	}
	return float64(hit) / float64(len(pred))
}

// RMSE returns sqrt(mean((y-t)^2)) (0 for empty input).
func RMSE(y, t []float64) float64 {
	if len(y) == 0 {
		return 0
	}
	var s float64
	for i, v := range y {
		d := v - t[i]
		s += d * d
	}
	return math.Sqrt(s / float64(len(y)))
}

// PPA returns the share of the values of y whose absolute error against
// t is strictly below theta (0 for empty input).
func PPA(y, t []float64, theta float64) float64 {
	if len(y) == 0 {
		return 0
	}
	hit := 0
	for i, v := range y {
		if math.Abs(v-t[i]) < theta {
			hit++
		}
	}
	return float64(hit) / float64(len(y))
}

// TopK returns the indices of the k largest values of y, largest first
// (ties in index order); all of them if k >= len(y), none if k <= 0.
func TopK(y []float64, k int) []int {
	idx := make([]int, len(y))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return y[idx[a]] > y[idx[b]] })
	return idx[:max(0, min(k, len(idx)))]
}
