package lsq

import (
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/par"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// MinNorm returns the minimum-norm least-squares output weights pinv(H) T
// (L x m), with singular values below max(N, L) * sigma_max * eps treated as
// zero as MATLAB's pinv does, or with ridge > 0 the solution of
// (H^T H + ridge I) beta = H^T T. It serves random learners whose H is rank
// deficient (L > N, say), where the QR factorisation holds only the
// independent columns.
func MinNorm(h *mat.Dense, t []float64, m int, ridge float64) ([]float64, error) {
	n, l := h.Dims()
	tt := mat.NewDense(n, m, t)
	if ridge > 0 {
		var g mat.SymDense
		g.SymOuterK(1, h.T())
		var ht mat.Dense
		ht.Mul(h.T(), tt)
		return RidgeSolve(&g, &ht, ridge)
	}
	var svd mat.SVD
	if !svd.Factorize(h, mat.SVDThin) {
		return nil, fmt.Errorf("scn: SVD of the hidden outputs failed")
	}
	s := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	tol := float64(max(n, l)) * s[0] * 0x1p-52
	var ut mat.Dense
	ut.Mul(u.T(), tt) // k x m
	divideRows(&ut, s, tol)
	out := mat.NewDense(l, m, nil)
	out.Mul(&v, &ut)
	return out.RawMatrix().Data, nil
}

// divideRows divides row i of a by s[i], or zeroes it where s[i] <= tol:
// the spectral step of a pseudo-inverse (singular values, or eigenvalues
// of the normal equations) with small values treated as zero.
func divideRows(a *mat.Dense, s []float64, tol float64) {
	for i, si := range s {
		row := a.RawRowView(i)
		for j := range row {
			if si > tol {
				row[j] /= si
			} else {
				row[j] = 0
			}
		}
	}
}

// WeightedSolve returns the output weights of min sum_i theta_i ||t_i -
// beta^T h_i||^2 + ridge ||beta||^2: the plain solve (minNorm: the
// minimum-norm solution without a ridge) of the rows scaled by
// sqrt(theta_i). With every theta_i = 1 it is minNorm itself, bit for bit.
func WeightedSolve(h *mat.Dense, t []float64, m int, ridge float64, theta []float64) ([]float64, error) {
	n, l := h.Dims()
	allOne := true
	for _, w := range theta {
		allOne = allOne && w == 1
	}
	if allOne {
		return MinNorm(h, t, m, ridge)
	}
	hw := mat.NewDense(n, l, nil)
	tw := make([]float64, n*m)
	for i := 0; i < n; i++ {
		s := math.Sqrt(theta[i])
		src, dst := h.RawRowView(i), hw.RawRowView(i)
		for j, v := range src {
			dst[j] = s * v
		}
		for q := 0; q < m; q++ {
			tw[i*m+q] = s * t[i*m+q]
		}
	}
	return MinNorm(hw, tw, m, ridge)
}

// GramOf returns h^T h (c x c, row-major, full) of the r x c matrix h,
// by linalg.GemmNT64 on h^T: gonum's Dsyrk took seconds for the held-out
// part at N = 60000.
func GramOf(h *mat.Dense) []float64 {
	r, c := h.Dims()
	ht := make([]float64, c*r)
	for i := 0; i < r; i++ {
		for j, v := range h.RawRowView(i) {
			ht[j*r+i] = v
		}
	}
	g := make([]float64, c*c)
	linalg.GemmNT64(c, c, r, 1, ht, r, ht, r, 0, g, c)
	// Symmetric by construction up to rounding: keep the lower triangle.
	for i := 0; i < c; i++ {
		for j := i + 1; j < c; j++ {
			g[i*c+j] = g[j*c+i]
		}
	}
	return g
}

// NormalRSS returns ||T - H beta||_F^2 over the targets of both parts (t1,
// t2) from the normal equations of the same rows, g = H^T H + alpha I (the
// matrix lsq.RidgeSolve leaves) and ht = H^T T:
// T^T T - 2 beta . H^T T + beta^T G beta, clamped at 0 against rounding.
func NormalRSS(g *mat.SymDense, alpha float64, ht *mat.Dense, beta []float64, t1, t2 []float64) float64 {
	return NormalRSSOf(g, alpha, ht, beta, floats.Dot(t1, t1)+floats.Dot(t2, t2))
}

// NormalRSSOf is normalRSS from T^T T (tt, summed over every output).
func NormalRSSOf(g *mat.SymDense, alpha float64, ht *mat.Dense, beta []float64, tt float64) float64 {
	l, m := ht.Dims()
	s := tt - alpha*floats.Dot(beta, beta)
	b := mat.NewDense(l, m, beta)
	var gb mat.Dense
	gb.Mul(g, b)
	s += mat.Sum(mulElem(b, &gb)) - 2*mat.Sum(mulElem(b, ht))
	return max(s, 0)
}

// mulElem returns the element-wise product of a and b.
func mulElem(a, b mat.Matrix) *mat.Dense {
	var c mat.Dense
	c.MulElem(a, b)
	return &c
}

// GramLower adds the products h_i . h_j of the rows i >= j of the l x k
// matrix h (leading dimension ldh) to g (l x l, row-major): panels of
// StatsPanel rows against the columns up to the panel's end (half the
// multiply-adds of the whole product), the panels in parallel, largest
// first. Each panel's product has the same shape whatever the number of
// goroutines. The elements above the diagonal within a panel's diagonal
// block are added too; symmetrize overwrites them.
func GramLower(l, k int, h []float64, ldh int, g []float64) {
	panels := (l + StatsPanel - 1) / StatsPanel
	par.Chunks(panels, 1, func(c, _, _ int) {
		lo := (panels - 1 - c) * StatsPanel
		hi := min(l, lo+StatsPanel)
		linalg.GemmNT64(hi-lo, hi, k, 1, h[lo*ldh:], ldh, h, ldh, 1, g[lo*l:], l)
	})
}

// StatsPanel is the rows of G per product of gramLower.
const StatsPanel = 256

// Symmetrize copies the lower triangle of the l x l matrix g above the
// diagonal, so that G is exactly symmetric.
func Symmetrize(g []float64, l int) {
	for i := 0; i < l; i++ {
		for j := 0; j < i; j++ {
			g[j*l+i] = g[i*l+j]
		}
	}
}

// EigenPinv returns pinv(G) HT (l x m) for the l x l symmetric G (g,
// row-major, overwritten) and HT (ht, l x m, row-major): the eigenvectors
// of G with eigenvalues below l lambda_max eps dropped. ok is false if the
// eigendecomposition failed.
func EigenPinv(g, ht []float64, l, m int) (beta []float64, ok bool) {
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(l, g), true) {
		return nil, false
	}
	vals := eig.Values(nil)
	var v mat.Dense
	eig.VectorsTo(&v)
	top := 0.0
	for _, x := range vals {
		top = math.Max(top, math.Abs(x))
	}
	tol := float64(l) * top * 0x1p-52
	var vt mat.Dense
	vt.Mul(v.T(), mat.NewDense(l, m, ht)) // L x m
	divideRows(&vt, vals, tol)
	var b mat.Dense
	b.Mul(&v, &vt)
	return b.RawMatrix().Data, true
}

// PrefixRidgeBetas sets out[i] to the output weights of the first grid[i]
// columns (each at most maxL) with ridge alpha > 0, from the normal
// equations g and ht of the first maxL columns (left unchanged), m outputs:
// one Cholesky factorisation of G + alpha I serves every prefix (its
// leading l x l block is the factor of the leading block, and the forward
// substitution of H^T T is shared), so each prefix costs a triangular
// solve. It leaves out as it is if G + alpha I is singular.
func PrefixRidgeBetas(g *mat.SymDense, ht *mat.Dense, maxL int, grid []int, alpha float64, m int, out [][]float64) {
	// The blocked Cholesky of the block engine (own kernels in the pure-Go
	// build) on a row-major copy of G + alpha I.
	lda := maxL
	ld := make([]float64, maxL*lda)
	for i := 0; i < maxL; i++ {
		for j := 0; j <= i; j++ {
			ld[i*lda+j] = g.At(i, j)
		}
		ld[i*lda+i] += alpha
	}
	// Forward substitution L y = H^T T, shared by every prefix.
	y := make([]float64, maxL*m)
	for i := 0; i < maxL; i++ {
		for q := 0; q < m; q++ {
			y[i*m+q] = ht.At(i, q)
		}
	}
	prefixCholeskySolve(ld, maxL, y, m, grid, alpha, out)
}

// PrefixRidgeFlat is PrefixRidgeBetas on row-major arrays: g (k x k, its
// lower triangle read, left unchanged) and at (k x m, A^T T) are the
// normal equations of k unknowns; out[i] is set to the solution of the
// first sizes[i] of them with ridge alpha > 0 (each at most k), from one
// Cholesky factorisation. An entry is left nil if G + alpha I is
// singular; it reports whether the factorisation succeeded.
func PrefixRidgeFlat(g, at []float64, k, m int, sizes []int, alpha float64, out [][]float64) bool {
	ld := make([]float64, k*k)
	for i := 0; i < k; i++ {
		copy(ld[i*k:i*k+i+1], g[i*k:i*k+i+1])
		ld[i*k+i] += alpha
	}
	return prefixCholeskySolve(ld, k, append([]float64(nil), at...), m, sizes, alpha, out)
}

// prefixCholeskySolve factors ld (k x k row-major, lower triangle: G +
// alpha I) in place with the blocked Cholesky of the block engine, then
// solves for the right-hand sides y (k x m, overwritten by the shared
// forward substitution) the first sizes[i] unknowns into out[i], each by a
// back substitution with the leading block of the factor. It reports false,
// leaving out as it is, if the factorisation fails.
func prefixCholeskySolve(ld []float64, k int, y []float64, m int, sizes []int, alpha float64, out [][]float64) bool {
	if err := Cholesky(ld, k, k, alpha); err != nil {
		return false
	}
	linalg.TrsmLeftLower(false, k, m, ld, k, y, m)
	for gi, l := range sizes {
		// Back substitution L_l^T beta = y_l.
		beta := append([]float64(nil), y[:l*m]...)
		linalg.TrsmLeftLower(true, l, m, ld, k, beta, m)
		out[gi] = beta
	}
	return true
}
