package linalg

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkScoreNT times the scoring product Z = W X^T against Sgemm on
// the same shape (k candidates, n images of d = 784 inputs).
func BenchmarkScoreNT(b *testing.B) {
	for _, sz := range []struct{ k, n, d int }{{1, 60000, 784}, {4, 60000, 784}, {5, 60000, 784}, {45, 60000, 784}, {1000, 2000, 784}} {
		rng := rand.New(rand.NewPCG(1, 1))
		w := make([]float32, sz.k*sz.d)
		x := make([]float32, sz.n*sz.d)
		for i := range w {
			w[i] = float32(rng.Float64())
		}
		for i := range x {
			x[i] = float32(rng.Float64())
		}
		z := make([]float32, sz.k*sz.n)
		flops := 2 * float64(sz.k*sz.n*sz.d)
		bytes := 4 * float64(sz.n*sz.d)
		for _, impl := range []string{"ScoreNT", "Sgemm"} {
			b.Run(fmt.Sprintf("%s/k=%d/n=%d", impl, sz.k, sz.n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if impl == "ScoreNT" {
						ScoreNT(sz.k, sz.n, sz.d, w, x, z, sz.n)
					} else {
						Sgemm(false, true, sz.k, sz.n, sz.d, 1, w, sz.d, x, sz.d, 0, z, sz.n)
					}
				}
				s := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(flops/s/1e9, "GFLOP/s")
				b.ReportMetric(bytes/s/1e9, "GB/s")
			})
		}
	}
}
