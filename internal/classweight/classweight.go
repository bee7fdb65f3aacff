// Package classweight is the arithmetic of scn's class weights: the
// balanced weights of a set's labels, a set of weights carried from one
// list of class names to another (a class the weights do not name weighs
// 1), the comparison of two recipes' weights, and the square roots by
// which each image's row is scaled in weighted least squares, and the
// check of a set of weights (Check). The root package keeps them in the
// model (Model.ClassWeights); the other functions take checked inputs.
//
// It may import the standard library only; never the root package scn or
// any package above it.
package classweight

import (
	"fmt"
	"math"
	"slices"
)

// Balanced returns the weights n / (m n_c) of n images of m classes whose
// labels (class indices below m) are given (scikit-learn's "balanced"):
// every class then weighs as much as n / m images would, whatever its
// share. A class without images gets weight 1.
func Balanced(labels []int, n, m int) []float64 {
	counts := make([]int, m)
	for _, c := range labels {
		counts[c]++
	}
	w := make([]float64, m)
	for c, k := range counts {
		w[c] = 1
		if k > 0 {
			w[c] = float64(n) / (float64(m) * float64(k))
		}
	}
	return w
}

// For returns the weights of the classes named to, from the weights w of
// the classes named from (w[i] weighs from[i]), matched by name: a class
// from does not name weighs 1. It returns nil when w is nil.
func For(w []float64, from, to []string) []float64 {
	if w == nil {
		return nil
	}
	out := make([]float64, len(to))
	for c, name := range to {
		out[c] = 1
		if i := slices.Index(from, name); i >= 0 {
			out[c] = w[i]
		}
	}
	return out
}

// Same reports whether weights wa of the classes named a and wb of the
// classes named b weigh every class they both name alike (a class only
// one side names weighs 1 on the other); nil weights are the same only as
// nil weights.
func Same(wa []float64, a []string, wb []float64, b []string) bool {
	if (wa == nil) != (wb == nil) {
		return false
	}
	if wa == nil {
		return true
	}
	return slices.Equal(wa, For(wb, b, a)) && slices.Equal(wb, For(wa, a, b))
}

// Roots returns, for images of the given labels (indices into the classes
// per weighs), the square root of each image's class weight: the factor
// by which weighted least squares scales its row.
func Roots(per []float64, labels []int) []float64 {
	root := make([]float64, len(per))
	for c, w := range per {
		root[c] = math.Sqrt(w)
	}
	out := make([]float64, len(labels))
	for i, c := range labels {
		out[i] = root[c]
	}
	return out
}

// Check reports whether w holds m finite class weights > 0.
func Check(w []float64, m int) error {
	if len(w) != m {
		return fmt.Errorf("%d class weights for %d classes", len(w), m)
	}
	for c, v := range w {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("class weight %d is %v, want a finite value > 0", c, v)
		}
	}
	return nil
}
