package scn

import (
	"math"
	"testing"

	"github.com/scn2d/scn/internal/node"
)

// TestActivations: the root's activations are internal/node's, numbered
// alike (the values and slopes are tested there).
func TestActivations(t *testing.T) {
	for _, c := range []struct {
		a    Activation
		n    node.Activation
		x, y float32
	}{{Sigmoid, node.Sigmoid, 0, 0.5}, {Sigmoid, node.Sigmoid, 800, 1}, {Tanh, node.Tanh, 1, float32(math.Tanh(1))}, {ReLU, node.ReLU, -2, 0}, {ReLU, node.ReLU, 3, 3}} {
		if got := c.a.eval(c.x); got != c.y || node.Activation(c.a) != c.n {
			t.Errorf("%v(%v) = %v, want %v", c.a, c.x, got, c.y)
		}
	}
	z := []float32{-1, 0, 1}
	Sigmoid.applyRow(z, 1)
	if z[1] != float32(1/(1+math.Exp(-1))) || z[0] != 0.5 {
		t.Errorf("applyRow with bias 1 gave %v", z)
	}
	if Tanh.slope(0.5) != 0.75 || ReLU.slope(0) != 0 || Sigmoid.slope(0.5) != 0.25 {
		t.Error("slopes")
	}
}
