package node

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/floats"
)

// The supervised choice of candidates: their correlations with the
// residual and the supervisory inequality of the SCN paper.

// Admissible returns the candidates that meet the supervisory inequality at
// r, min_q xi_q >= 0 with xi_q = (e_q^T h)^2 / (h^T h) - (1-r) e_q^T e_q, best
// (largest sum of xi_q) first, skipping those marked dead. eh holds e_q^T h_j
// at q*k+j, as the drivers' correlations return it.
func Admissible(hh, eh, ee []float64, m int, r float64, dead []bool) []int {
	type cand struct {
		j   int
		sum float64
	}
	var ok []cand
	for j, h2 := range hh {
		if dead[j] || !(h2 > 0) {
			continue
		}
		sum, minXi := 0.0, math.Inf(1)
		for q := 0; q < m; q++ {
			p := eh[q*len(hh)+j]
			xi := p*p/h2 - (1-r)*ee[q]
			sum += xi
			minXi = min(minXi, xi)
		}
		if minXi >= 0 {
			ok = append(ok, cand{j, sum})
		}
	}
	sort.SliceStable(ok, func(a, b int) bool { return ok[a].sum > ok[b].sum })
	idx := make([]int, len(ok))
	for i, c := range ok {
		idx[i] = c.j
	}
	return idx
}

// CorrelateRows writes candidate j's h^T h and e_q^T h over the rows of
// one shard into acc (acc[k*m+j] and acc[q*k+j]) through the float64
// scratch col: the same sums, in the same order, for every scorer. z holds
// candidate j's outputs on the shard's r = len(z) images, e[q*lde+i] the residual of
// output q on its image i (a streamed supervised fit holds one shard's
// residual only).
func CorrelateRows(z []float32, col []float64, e []float64, lde, m int, acc []float64, k, j int) {
	r := len(z)
	col = col[:r]
	for i, v := range z {
		col[i] = float64(v)
	}
	acc[k*m+j] = floats.Dot(col, col)
	for q := 0; q < m; q++ {
		acc[q*k+j] = floats.Dot(col, e[q*lde:q*lde+r])
	}
}
