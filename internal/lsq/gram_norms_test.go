package lsq

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestResidualNorms: the column norms of a residual over several row
// shards equal e_q^T e_q summed directly, and are the same bits whatever
// GOMAXPROCS.
func TestResidualNorms(t *testing.T) {
	defer func(r int) { ShardRows = r }(ShardRows)
	ShardRows = 16
	rng := rand.New(rand.NewPCG(91, 92))
	const n, m = 70, 3
	tt := make([]float64, n*m)
	g := NewGram(tt, n, m, 0.1, false, 4)
	res := make([]float64, m*n)
	for i := range res {
		res[i] = rng.NormFloat64()
	}
	run := func(procs int) []float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return g.ResidualNorms(res)
	}
	got := run(1)
	for q := 0; q < m; q++ {
		var s float64
		for _, v := range res[q*n : (q+1)*n] {
			s += v * v
		}
		if math.Abs(got[q]-s) > 1e-12*s {
			t.Errorf("output %d: %v, want %v", q, got[q], s)
		}
	}
	for q, v := range run(3) {
		if v != got[q] {
			t.Errorf("output %d: %v with 3 goroutines, %v with 1", q, v, got[q])
		}
	}
}
