package lsq

// The residual sum of squares ||T - H beta||_F^2 of output weights beta
// from sums alone (statistics hold G = H^T H, H^T T and T^T T, never H):
// NormalRSS and NormalRSSOf (solve.go) take gonum's matrices, SumsRSS the
// flat sums, SolvedRSS the normal equations beta solves. Each sums in its
// own order, which the pinned model files' training RMSEs depend on: they
// are not interchangeable bit for bit.

// SumsRSS returns ||T - H beta||^2 = tr(T^T T) - 2 tr(beta^T H^T T) +
// tr(beta^T G beta), clamped at 0 against rounding, from g (G, l x l),
// ht (H^T T, l x m), tt (T^T T, m x m; its trace is used), all row-major.
func SumsRSS(g, ht, tt, beta []float64, l, m int) float64 {
	var rss float64
	for q := 0; q < m; q++ {
		rss += tt[q*m+q]
	}
	gb := make([]float64, l*m)
	for i := 0; i < l; i++ {
		for k := 0; k < l; k++ {
			gik := g[i*l+k]
			for q := 0; q < m; q++ {
				gb[i*m+q] += gik * beta[k*m+q]
			}
		}
	}
	for i := range beta {
		rss += beta[i]*gb[i] - 2*beta[i]*ht[i]
	}
	return max(rss, 0)
}

// SolvedRSS returns ||T - H beta||^2 for beta that solves (G + ridge I)
// beta = H^T T: tr(T^T T) - tr(beta^T H^T T) - ridge ||beta||^2, clamped
// at 0 (to the accuracy of the solve, without G); ht is H^T T (l x m), tt
// T^T T (m x m).
func SolvedRSS(ht, tt, beta []float64, m int, ridge float64) float64 {
	var rss float64
	for q := 0; q < m; q++ {
		rss += tt[q*m+q]
	}
	for i, b := range beta {
		rss -= b*ht[i] + ridge*b*b
	}
	return max(rss, 0)
}
