package local

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMoments: each plane's mean and deviation equal the two-pass
// formulas over its pixels; images added in one call or shard by shard
// give the same bits; a constant plane has deviation 1.
func TestMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	const n, ch, plane = 13, 3, 20
	pix := make([]float32, n*ch*plane)
	for i := range pix {
		c := (i / plane) % ch
		switch c {
		case 0:
			pix[i] = float32(rng.NormFloat64())
		case 1:
			pix[i] = 5 + 0.25*float32(rng.Float64())
		default:
			pix[i] = 0.5 // constant
		}
	}
	one := NewMoments(ch, plane)
	one.Add(pix, n)
	mean, sd := one.Result()
	if one.Images() != n {
		t.Fatalf("%d images counted, want %d", one.Images(), n)
	}
	for c := 0; c < ch; c++ {
		var s float64
		for i := 0; i < n; i++ {
			for _, v := range pix[(i*ch+c)*plane : (i*ch+c+1)*plane] {
				s += float64(v)
			}
		}
		mu := s / float64(n*plane)
		var d float64
		for i := 0; i < n; i++ {
			for _, v := range pix[(i*ch+c)*plane : (i*ch+c+1)*plane] {
				d += (float64(v) - mu) * (float64(v) - mu)
			}
		}
		want := math.Sqrt(d / float64(n*plane))
		if c == 2 {
			want = 1 // constant: 0 taken as 1
		}
		if math.Abs(mean[c]-mu) > 1e-12*(1+math.Abs(mu)) || math.Abs(sd[c]-want) > 1e-9*want {
			t.Errorf("plane %d: mean %v sd %v, want %v and %v", c, mean[c], sd[c], mu, want)
		}
	}
	// Shard by shard: the same bits.
	parts := NewMoments(ch, plane)
	d := ch * plane
	for _, cut := range [][2]int{{0, 4}, {4, 5}, {5, 13}} {
		parts.Add(pix[cut[0]*d:cut[1]*d], cut[1]-cut[0])
	}
	m2, s2 := parts.Result()
	for c := range mean {
		if m2[c] != mean[c] || s2[c] != sd[c] {
			t.Errorf("plane %d in shards: %v, %v; in one call %v, %v", c, m2[c], s2[c], mean[c], sd[c])
		}
	}
}
