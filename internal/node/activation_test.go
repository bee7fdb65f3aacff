package node

import (
	"math"
	"testing"
)

// TestSigmoidRowMatchesMathExp: the row's sigmoid (AVX2 kernel or Go) is
// float64's 1/(1+e^-t) to 4e-7, and the same bits for a value alone as in
// a row.
func TestSigmoidRowMatchesMathExp(t *testing.T) {
	var z []float32
	for x := -120.0; x <= 120; x += 0.0137 {
		z = append(z, float32(x))
	}
	z = append(z, float32(math.Inf(1)), float32(math.Inf(-1)), 0, 1e-30)
	got := append([]float32(nil), z...)
	sigmoidRow(got, 0.25)
	for i, v := range z {
		want := 1 / (1 + math.Exp(-float64(v+0.25)))
		if d := math.Abs(float64(got[i]) - want); d > 4e-7*want+1e-38 {
			t.Fatalf("sigmoid(%v + 0.25) = %v, want %v", v, got[i], want)
		}
		// Every position gets the same function (tails included).
		one := []float32{v}
		sigmoidRow(one, 0.25)
		if one[0] != got[i] {
			t.Fatalf("sigmoid(%v) alone = %v, in a row %v", v, one[0], got[i])
		}
	}
}

// TestActivations: values by hand, the bias added before g, and the
// slopes in terms of the output against a central difference.
func TestActivations(t *testing.T) {
	for _, c := range []struct {
		a    Activation
		x, y float32
	}{{Sigmoid, 0, 0.5}, {Sigmoid, 800, 1}, {Tanh, 0, 0}, {Tanh, 1, float32(math.Tanh(1))}, {ReLU, -2, 0}, {ReLU, 3, 3}} {
		if got := c.a.Eval(c.x); got != c.y {
			t.Errorf("%v(%v) = %v, want %v", c.a, c.x, got, c.y)
		}
	}
	z := []float32{-1, 0, 1}
	Sigmoid.Apply(z, 1)
	if z[1] != float32(1/(1+math.Exp(-1))) || z[0] != 0.5 {
		t.Errorf("Apply with bias 1 gave %v", z)
	}
	ref := map[Activation]func(float64) float64{
		Sigmoid: func(t float64) float64 { return 1 / (1 + math.Exp(-t)) },
		Tanh:    math.Tanh,
		ReLU:    func(t float64) float64 { return max(t, 0) },
	}
	for a, g := range ref {
		for _, x := range []float64{-1.5, -0.3, 0.4, 2} {
			const h = 1e-6
			want := (g(x+h) - g(x-h)) / (2 * h)
			if got := a.Slope(g(x)); math.Abs(got-want) > 1e-6 {
				t.Errorf("%v: slope at %v = %v, want %v", a, x, got, want)
			}
		}
	}
}

func BenchmarkSigmoid(b *testing.B) {
	z := make([]float32, 1<<16)
	for i := range z {
		z[i] = float32(i%200) - 100
	}
	b.Run("Apply", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Sigmoid.Apply(z, 0.5)
		}
	})
	b.Run("math.Exp", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, v := range z {
				_ = float32(1 / (1 + math.Exp(-float64(v))))
			}
		}
	})
}
