package lsq

import (
	"github.com/scn2d/scn/internal/par"
	"gonum.org/v1/gonum/floats"
)

// ResidualNorms returns e_q^T e_q for each output q of a residual e (M rows
// of N, as Residual writes it): each row shard's partial sums, the shards
// in parallel, reduced in shard order, so the bits do not depend on
// GOMAXPROCS.
func (e *Gram) ResidualNorms(res []float64) []float64 {
	n, m := e.N, e.M
	shards := len(e.Shards)
	part := make([]float64, shards*m)
	par.Chunks(shards, 1, func(s, _, _ int) {
		sh := e.Shards[s]
		for q := 0; q < m; q++ {
			eq := res[q*n+sh.Lo : q*n+sh.Hi]
			part[s*m+q] = floats.Dot(eq, eq)
		}
	})
	sum := make([]float64, m)
	for s := 0; s < shards; s++ {
		Reduce(sum, part[s*m:(s+1)*m])
	}
	return sum
}
