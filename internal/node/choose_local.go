package node

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// The supervised choice of local filters: a candidate filter adds per
// pooled output columns at once, so it is scored by the projection of the
// residual on the span of its columns rather than on one column.

// GroupXi returns the projections e_q^T H_c (H_c^T H_c)^+ H_c^T e_q of each
// output q of a candidate whose per pooled output columns h holds (per
// columns of n images each, float32), against the residual e (m rows of
// n), summed in float64 image by image in order.
func GroupXi(h []float32, e []float64, n, per, m int) []float64 {
	g := make([]float64, per*per)
	pe := make([]float64, per*m)
	hs := make([][]float64, per)
	for a := 0; a < per; a++ {
		hs[a] = make([]float64, n)
		for i, v := range h[a*n : (a+1)*n] {
			hs[a][i] = float64(v)
		}
	}
	for a := 0; a < per; a++ {
		for b := 0; b <= a; b++ {
			v := floats.Dot(hs[a], hs[b])
			g[a*per+b], g[b*per+a] = v, v
		}
		for q := 0; q < m; q++ {
			pe[a*m+q] = floats.Dot(hs[a], e[q*n:(q+1)*n])
		}
	}
	return Projections(g, pe, per, m)
}

// Projections returns p_q^T G^+ p_q for each column q of P (per x m,
// row-major), with G (per x per, symmetric positive semi-definite)
// inverted on its eigenvalues above per * eps * the largest (a column of
// zeros, as the standardised outputs of a filter that never fires there,
// adds nothing). All zeros when G cannot be factorised.
func Projections(g, p []float64, per, m int) []float64 {
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(per, g), true) {
		return make([]float64, m)
	}
	vals := eig.Values(nil)
	var vec mat.Dense
	eig.VectorsTo(&vec)
	top := 0.0
	for _, v := range vals {
		top = max(top, v)
	}
	tol := float64(per) * 0x1p-52 * top
	out := make([]float64, m)
	for q := 0; q < m; q++ {
		var s float64
		for a := 0; a < per; a++ {
			if vals[a] <= tol {
				continue
			}
			var d float64
			for i := 0; i < per; i++ {
				d += vec.At(i, a) * p[i*m+q]
			}
			s += d * d / vals[a]
		}
		out[q] = s
	}
	return out
}

// AdmissibleGroups returns up to b of the kc candidates that meet
// min_q xi_q >= 0, xi_q = proj[j*m+q] - (1-r) ee_q, at the first r of
// ratios that admits b of them (or the last r), best (largest sum of
// xi_q) first, and that r; nil and 0 without ratios.
func AdmissibleGroups(proj []float64, kc, m int, ratios, ee []float64, b int) (order []int, ratio float64) {
	type cand struct {
		j   int
		sum float64
	}
	for ri, r := range ratios {
		var ok []cand
		for j := 0; j < kc; j++ {
			sum, low := 0.0, math.Inf(1)
			for q := 0; q < m; q++ {
				x := proj[j*m+q] - (1-r)*ee[q]
				sum += x
				low = min(low, x)
			}
			if low >= 0 {
				ok = append(ok, cand{j, sum})
			}
		}
		if len(ok) >= b || ri == len(ratios)-1 {
			sort.SliceStable(ok, func(a, c int) bool { return ok[a].sum > ok[c].sum })
			for _, c := range ok[:min(b, len(ok))] {
				order = append(order, c.j)
			}
			return order, r
		}
	}
	return nil, 0
}
