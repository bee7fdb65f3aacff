package lsq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkAppendNode times adding one column to a factorisation that holds
// L columns already (CGS2 against Q and the residual update). Q is filled
// with random unit vectors, nearly orthogonal at these N: the work is the
// same as for a real factorisation.
func BenchmarkAppendNode(b *testing.B) {
	const m = 10
	for _, sz := range []struct{ n, l int }{{5000, 500}, {5000, 1000}, {60000, 500}, {60000, 1000}} {
		b.Run(fmt.Sprintf("N=%d/L=%d", sz.n, sz.l), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			t := make([]float64, sz.n*m)
			s := NewQR(t, sz.n, m)
			q := make([]float64, sz.n)
			for j := 0; j < sz.l; j++ {
				var nn float64
				for i := range q {
					q[i] = rng.NormFloat64()
					nn += q[i] * q[i]
				}
				for i := range q {
					q[i] /= math.Sqrt(nn)
				}
				s.appendQ(q)
				s.r = append(s.r, make([]float64, j+1))
				s.qtt = append(s.qtt, make([]float64, m)...)
				s.L++
			}
			h := make([]float64, sz.n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := range h {
					h[j] = rng.Float64()
				}
				if !s.Add(h) {
					b.Fatal("refused")
				}
				s.L-- // forget it again: every iteration appends node l+1
				s.r = s.r[:s.L]
				s.qtt = s.qtt[:s.L*m]
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/node")
			b.ReportMetric(3*8*float64(sz.n*sz.l)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s(Q)")
		})
	}
}
