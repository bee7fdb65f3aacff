package node

import (
	"math"

	"github.com/scn2d/scn/internal/linalg/kernel"
)

// Activation is a hidden node's activation g; its values are those of
// scn.Activation, which converts to it.
type Activation int

// The activations, numbered as scn's.
const (
	Sigmoid Activation = iota // g(t) = 1/(1+e^-t)
	Tanh                      // g(t) = tanh(t)
	ReLU                      // g(t) = max(0, t)
)

// Apply overwrites z with g(z + b), row by row as the drivers and
// prediction form hidden outputs: every element gets the same function
// wherever it sits in z, so a node's output is the same bits in training
// and prediction.
func (a Activation) Apply(z []float32, b float32) {
	switch a {
	case Tanh:
		for i, v := range z {
			z[i] = float32(math.Tanh(float64(v + b)))
		}
	case ReLU:
		for i, v := range z {
			z[i] = max(v+b, 0)
		}
	default:
		sigmoidRow(z, b)
	}
}

// sigmoidRow sets z[i] = 1/(1+e^-(z[i]+b)). With AVX2 it runs eight lanes
// at a time with a single-precision exp (kernel.SigmoidBias8); the last
// partial group goes through the same kernel on a padded copy, so every
// element gets the same function wherever it sits in z.
func sigmoidRow(z []float32, b float32) {
	if !kernel.Available {
		for i, v := range z {
			z[i] = sigmoid(v + b)
		}
		return
	}
	n8 := len(z) &^ 7
	if n8 > 0 {
		kernel.SigmoidBias8(&z[0], n8, b)
	}
	if n8 < len(z) {
		var pad [8]float32
		copy(pad[:], z[n8:])
		kernel.SigmoidBias8(&pad[0], 8, b)
		copy(z[n8:], pad[:])
	}
}

// Eval returns g(t), as Apply computes it.
func (a Activation) Eval(t float32) float32 {
	z := []float32{t}
	a.Apply(z, 0)
	return z[0]
}

// sigmoid returns 1/(1+e^-t), computed in float64 and rounded once.
// (Go's math.Exp is assembly on amd64: a hand-made polynomial measured
// slower, BenchmarkSigmoid.)
func sigmoid(t float32) float32 { return float32(1 / (1 + math.Exp(-float64(t)))) }

// Slope returns g'(t) written in terms of the output h = g(t), as the
// generalization indicator needs: h(1-h) for the sigmoid, 1-h^2 for tanh
// and the step function for ReLU.
func (a Activation) Slope(h float64) float64 {
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
