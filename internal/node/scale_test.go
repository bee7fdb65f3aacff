package node

import (
	"slices"
	"testing"
)

// TestScale: a vector node's every parameter, a matrix node's u only.
func TestScale(t *testing.T) {
	p := []float32{1, 2, 3, 4, 5}
	Scale(false, p, 2, 0.5)
	if !slices.Equal(p, []float32{0.5, 1, 1.5, 2, 2.5}) {
		t.Fatalf("vector: %v", p)
	}
	q := []float32{1, 2, 3, 4, 5}
	Scale(true, q, 2, 3)
	if !slices.Equal(q, []float32{3, 6, 3, 4, 5}) {
		t.Fatalf("matrix: %v", q)
	}
}
