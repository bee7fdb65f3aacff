package lsq

import (
	"math"
	"testing"
)

// TestFinite32: NaN and both infinities are refused, anything else kept.
func TestFinite32(t *testing.T) {
	if !Finite32(nil) || !Finite32([]float32{0, -1, math.MaxFloat32, math.SmallestNonzeroFloat32}) {
		t.Fatal("finite values refused")
	}
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		if Finite32([]float32{1, bad, 2}) {
			t.Fatalf("%v accepted", bad)
		}
	}
}
