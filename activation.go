package scn

import "math"

// applyRow overwrites z with g(z + b).
func (a Activation) applyRow(z []float32, b float32) {
	for i, v := range z {
		z[i] = a.eval(v + b)
	}
}

// eval returns g(t), computed in float64 and rounded once.
func (a Activation) eval(t float32) float32 {
	switch a {
	case Tanh:
		return float32(math.Tanh(float64(t)))
	case ReLU:
		return max(t, 0)
	default:
		return float32(1 / (1 + math.Exp(-float64(t))))
	}
}

// slope returns g'(t) written in terms of the output h = g(t), as the
// generalization indicator needs: h(1-h) for the sigmoid, 1-h^2 for tanh and
// the step function for ReLU.
func (a Activation) slope(h float64) float64 {
	switch a {
	case Tanh:
		return 1 - h*h
	case ReLU:
		if h > 0 {
			return 1
		}
		return 0
	default:
		return h * (1 - h)
	}
}
