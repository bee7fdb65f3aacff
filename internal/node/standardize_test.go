package node

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMeanImage: the mean image is each pixel's mean; added shard by
// shard it is the same bits.
func TestMeanImage(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	const n, d = 9, 7
	pix := make([]float32, n*d)
	for i := range pix {
		pix[i] = float32(rng.NormFloat64())
	}
	one := NewMeanImage(d)
	one.Add(pix, n)
	mean := one.Mean()
	for j := 0; j < d; j++ {
		var s float64
		for i := 0; i < n; i++ {
			s += float64(pix[i*d+j])
		}
		if want := float32(s / n); mean[j] != want {
			t.Errorf("pixel %d: %v, want %v", j, mean[j], want)
		}
	}
	parts := NewMeanImage(d)
	parts.Add(pix[:2*d], 2)
	parts.Add(pix[2*d:], n-2)
	if !slices.Equal(parts.Mean(), mean) {
		t.Error("added in two shards: another mean image")
	}
}

// TestSpread: the scale gives the node's inputs standard deviation lambda
// about their mean w^T xbar; a node blind to the data is refused.
func TestSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	const n, d, lambda = 50, 6, 2.5
	x := make([]float32, n*d)
	for i := range x {
		x[i] = float32(rng.NormFloat64()) + 3
	}
	mi := NewMeanImage(d)
	mi.Add(x, n)
	xbar := mi.Mean()
	w := make([]float32, d)
	for i := range w {
		w[i] = float32(rng.NormFloat64())
	}
	z := make([]float32, n)
	for i := range z {
		var s float64
		for j, wj := range w {
			s += float64(wj) * float64(x[i*d+j])
		}
		z[i] = float32(s)
	}
	s, mean, ok := Spread(w, xbar, z, lambda)
	if !ok {
		t.Fatal("a node that sees the data refused")
	}
	var wantMean float64
	for j, wj := range w {
		wantMean += float64(wj) * float64(xbar[j])
	}
	if mean != wantMean {
		t.Errorf("mean %v, want w^T xbar %v", mean, wantMean)
	}
	var v float64
	for _, zi := range z {
		dz := s * (float64(zi) - mean)
		v += dz * dz
	}
	if sd := math.Sqrt(v / n); math.Abs(sd-lambda) > 1e-9*lambda {
		t.Errorf("scaled spread %v, want %v", sd, lambda)
	}
	// Every input equal: blind.
	flat := make([]float32, n)
	for i := range flat {
		flat[i] = float32(mean)
	}
	if _, _, ok := Spread(w, xbar, flat, lambda); ok {
		t.Error("a node whose inputs are all equal accepted")
	}
	if _, _, ok := Spread(w, xbar, []float32{float32(math.Inf(1)), 0}, lambda); ok {
		t.Error("an infinite input accepted")
	}
}
