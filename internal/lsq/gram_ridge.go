package lsq

import "github.com/scn2d/scn/internal/linalg"

// RidgePrefixes returns the output weights (k x M each) of the prefixes
// ks (each at most l) of the engine's first l nodes at ridge alpha, from
// one Cholesky factor of G + alpha I of the l nodes (the leading block of
// the factor is the factor of each prefix's normal equations) and one
// forward substitution of H^T T: a back substitution per prefix. buf
// (l*l) is scratch for the factor; ok is false when it fails. (A budget
// scores its further ridge terms at every checkpoint so.)
func (g *Gram) RidgePrefixes(l int, alpha float64, ks []int, buf []float64) (betas [][]float64, ok bool) {
	m := g.M
	for i := 0; i < l; i++ {
		row := buf[i*l : i*l+i+1]
		for j := 0; j < i; j++ {
			row[j] = g.G[j*g.LD+i] // G is kept above the diagonal
		}
		row[i] = g.GD[i] + alpha
	}
	if err := Cholesky(buf, l, l, alpha); err != nil {
		return nil, false
	}
	y := append([]float64(nil), g.HT[:l*m]...)
	linalg.TrsmLeftLower(false, l, m, buf, l, y, m)
	betas = make([][]float64, len(ks))
	for i, k := range ks {
		beta := append([]float64(nil), y[:k*m]...)
		linalg.TrsmLeftLower(true, k, m, buf, l, beta, m)
		betas[i] = beta
	}
	return betas, true
}

// SolveFlat solves (G + alpha I) x = b in place: a (n x n, row-major)
// holds G + alpha I in its lower triangle, which Cholesky overwrites by
// the factor, and b (n x m) is overwritten by x; the error is the
// factor's (singular normal equations).
func SolveFlat(a []float64, n int, b []float64, m int, alpha float64) error {
	if err := Cholesky(a, n, n, alpha); err != nil {
		return err
	}
	linalg.TrsmLeftLower(false, n, m, a, n, b, m)
	linalg.TrsmLeftLower(true, n, m, a, n, b, m)
	return nil
}
