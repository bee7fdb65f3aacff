package lsq

import (
	"math"
	"slices"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/par"
)

// RidgeCG is the system (G + Ridge I) X = H^T T of an online learner's
// statistics (L nodes, M outputs; G whole and symmetric once Solve has
// run, the sums keeping its lower triangle before), solved by conjugate
// gradients preconditioned with F, the Cholesky factor of an earlier
// G + Ridge I (F F^T = M, the preconditioner). Unlike Near (an update's
// system, preconditioned on both sides), it is preconditioned on one
// side and warm started from the previous weights.
//
// The conjugate gradients work on the outputs' columns as rows: an L x M
// matrix is held transposed, M x L (output-major), so that the products
// with G and the factor contract contiguous rows (the project's NT
// kernel) instead of axpys of M values.
type RidgeCG struct {
	G     []float64 // L x L, row-major
	L, M  int
	Ridge float64
	F     LowerTri
	// U, when not nil, is an L x L row-major array holding F^T above the
	// diagonal (U[j][i] = F[i][j] for i > j; the rest is not read): the
	// backward products of Precondition then contract contiguous rows by
	// the NT kernel (GemmNT64) instead of axpys along F's rows (gonum's
	// untransposed product), measured to take most of a solve's
	// preconditioning time at L = 5000, m = 10.
	U []float64
}

// MirrorLower sets the part above the diagonal of the l x l row-major a to
// the transpose of the part below it (a[j][i] = a[i][j] for i > j), by
// tiles: the U of RidgeCG for a factor held whole.
func MirrorLower(a []float64, l int) {
	const tile = 64
	for i0 := 0; i0 < l; i0 += tile {
		i1 := min(l, i0+tile)
		for j0 := 0; j0 <= i0; j0 += tile {
			j1 := min(i1, j0+tile)
			for i := i0; i < i1; i++ {
				for j := j0; j < min(j1, i); j++ {
					a[j*l+i] = a[i*l+j]
				}
			}
		}
	}
}

// apply sets yT = ((G + ridge I) x)^T for xT = x^T (m x L), with G whole
// (symmetrized before the solve); w is L x m scratch.
func (a RidgeCG) apply(xT, yT, w []float64) {
	g, l, m := a.G, a.L, a.M
	linalg.GemmNT64(l, m, l, 1, g, l, xT, l, 0, w, m)
	Transpose(w, l, m, yT)
	for i, v := range xT {
		yT[i] += a.Ridge * v
	}
}

// Precondition sets zT = ((F F^T)^-1 r)^T for rT = r^T (M x L); w is
// TrsmBlock x M scratch.
func (a RidgeCG) Precondition(rT, zT, w []float64) {
	copy(zT, rT)
	t := a.F
	l, m := a.L, a.M
	// F y = r, panel by panel: the panel's part left of its diagonal
	// block by the NT kernel, the diagonal block by substitution.
	for k := range t.Panels() {
		i0, i1 := k*TrsmBlock, min(l, (k+1)*TrsmBlock)
		p, ld := t.Panel(k)
		if i0 > 0 {
			linalg.GemmNT64(i1-i0, m, i0, 1, p, ld, zT, l, 0, w, m)
			for i := i0; i < i1; i++ {
				for q := 0; q < m; q++ {
					zT[q*l+i] -= w[(i-i0)*m+q]
				}
			}
		}
		// The diagonal block by sub-blocks: each one's part left of its
		// own diagonal by the NT kernel, its diagonal by substitution
		// (scalar loops over precondSub columns, not TrsmBlock).
		for s0 := i0; s0 < i1; s0 += precondSub {
			s1 := min(i1, s0+precondSub)
			if s0 > i0 {
				linalg.GemmNT64(m, s1-s0, s0-i0, -1, zT[i0:], l, p[(s0-i0)*ld+i0:], ld, 1, zT[s0:], l)
			}
			for q := 0; q < m; q++ {
				z := zT[q*l : (q+1)*l]
				for i := s0; i < s1; i++ {
					row := p[(i-i0)*ld : (i-i0)*ld+i+1]
					s := z[i]
					for j := s0; j < i; j++ {
						s -= row[j] * z[j]
					}
					z[i] = s / row[i]
				}
			}
		}
	}
	// F^T z = y, panels from the last: the diagonal block by
	// substitution, then its part of the rows above by a product.
	for k := t.Panels() - 1; k >= 0; k-- {
		i0, i1 := k*TrsmBlock, min(l, (k+1)*TrsmBlock)
		p, ld := t.Panel(k)
		sub := TrsmBlock // without U, the whole diagonal block by substitution
		if a.U != nil {
			sub = precondSub
		}
		for s1 := i1; s1 > i0; {
			s0 := max(i0, ((s1-1-i0)/sub)*sub+i0)
			for q := 0; q < m; q++ {
				z := zT[q*l : (q+1)*l]
				for i := s1 - 1; i >= s0; i-- {
					row := p[(i-i0)*ld : (i-i0)*ld+i+1]
					z[i] /= row[i]
					zi := z[i]
					for j := s0; j < i; j++ {
						z[j] -= row[j] * zi
					}
				}
			}
			if s0 > i0 {
				// z[:, i0:s0] -= z[:, s0:s1] P[s0:s1, i0:s0], P's columns
				// being U's rows i0 .. s0-1 from column s0 on.
				linalg.GemmNT64(m, s0-i0, s1-s0, -1, zT[s0:], l, a.U[i0*l+s0:], l, 1, zT[i0:], l)
			}
			s1 = s0
		}
		if i0 > 0 && a.U != nil {
			// z[:, 0:i0] -= z[:, i0:i1] P[:, 0:i0], P's columns being U's
			// rows 0 .. i0-1 from column i0 on; by fixed column chunks,
			// each element's sum the same whatever the chunks.
			par.Chunks(i0, precondCols, func(_, j0, j1 int) {
				linalg.GemmNT64(m, j1-j0, i1-i0, -1, zT[i0:], l, a.U[j0*l+i0:], l, 1, zT[j0:], l)
			})
		} else if i0 > 0 {
			// By fixed column chunks (par), each small enough that the
			// product runs serially (gonum's dgemm would start
			// GOMAXPROCS goroutines of its own, past any par.Limited):
			// each element's sum is the same whatever the chunks.
			par.Chunks(i0, precondCols, func(_, j0, j1 int) {
				linalg.Dgemm(false, false, m, j1-j0, i1-i0, -1, zT[i0:], l, p[j0:], ld, 1, zT[j0:], l)
			})
		}
	}
}

// precondSub is the columns of the diagonal blocks' sub-blocks solved by
// substitution (the rest of a diagonal block by the NT kernel).
const precondSub = 32

// precondCols is the columns of a chunk of the preconditioner's backward
// products: under gonum's threshold of parallel work (4 blocks of 64) for
// up to 64 outputs.
const precondCols = 192

// outDots returns the dot product of each of the m rows of a and b (m x
// l), each summed in order (Dot).
func outDots(a, b []float64, m, l int) []float64 {
	out := make([]float64, m)
	for q := range out {
		out[q] = Dot(a[q*l:(q+1)*l], b[q*l:(q+1)*l])
	}
	return out
}

// Solve solves (G + Ridge I) x = ht (L x M) by preconditioned conjugate
// gradients from x (L x M; each output's column its own system), until
// each column's residual r has r^T M^-1 r below tol^2 of b^T M^-1 b within
// maxSteps steps, then checks the true residual against checkTol. It
// returns x (overwritten), the steps taken and whether it converged. G is
// symmetrized first (SymmetrizeTiled: the sums keep its lower triangle).
func (a RidgeCG) Solve(ht, x []float64, tol, checkTol float64, maxSteps int) ([]float64, int, bool) {
	l, m := a.L, a.M
	SymmetrizeTiled(a.G, l)
	w, wb := make([]float64, l*m), make([]float64, TrsmBlock*m)
	bT, xT := make([]float64, l*m), make([]float64, l*m)
	Transpose(ht, l, m, bT)
	Transpose(x, l, m, xT)
	// c^T c = b^T M^-1 b.
	cT := make([]float64, l*m)
	a.Precondition(bT, cT, wb)
	cn := outDots(bT, cT, m, l)
	r, z, q := make([]float64, l*m), make([]float64, l*m), make([]float64, l*m)
	a.apply(xT, q, w)
	for i := range r {
		r[i] = bT[i] - q[i]
	}
	a.Precondition(r, z, wb)
	p := slices.Clone(z)
	rz := outDots(r, z, m, l)
	converged := func(rz []float64, tol float64) bool {
		for k := range rz {
			if !(rz[k] <= tol*tol*cn[k]) {
				return false
			}
		}
		return true
	}
	alpha, beta := make([]float64, m), make([]float64, m)
	steps := 0
	for ; steps < maxSteps && !converged(rz, tol); steps++ {
		a.apply(p, q, w)
		pq := outDots(p, q, m, l)
		Ratios(alpha, rz, pq)
		for i := range xT {
			k := i / l
			xT[i] += alpha[k] * p[i]
			r[i] -= alpha[k] * q[i]
		}
		a.Precondition(r, z, wb)
		rn := outDots(r, z, m, l)
		Ratios(beta, rn, rz)
		rz = rn
		for i := range p {
			p[i] = z[i] + beta[i/l]*p[i]
		}
	}
	if !converged(rz, tol) {
		return nil, steps, false
	}
	// The recurrence's residual drifts from the true one: check it.
	a.apply(xT, q, w)
	for i := range r {
		r[i] = bT[i] - q[i]
	}
	a.Precondition(r, z, wb)
	if !converged(outDots(r, z, m, l), checkTol) {
		return nil, steps, false
	}
	for _, v := range xT {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, steps, false
		}
	}
	Transpose(xT, m, l, x)
	return x, steps, true
}

// ScaleLowerPanels multiplies the panels of G's lower triangle
// (GramLower's: the rows of each panel of StatsPanel rows up to the
// panel's end) by a.
func ScaleLowerPanels(g []float64, l int, a float64) {
	panels := (l + StatsPanel - 1) / StatsPanel
	par.Chunks(panels, 1, func(c, _, _ int) {
		lo := c * StatsPanel
		hi := min(l, lo+StatsPanel)
		for i := lo; i < hi; i++ {
			row := g[i*l : i*l+hi]
			for j := range row {
				row[j] *= a
			}
		}
	})
}

// SymmetrizeTiled copies the lower triangle of the l x l matrix g above
// the diagonal (as Symmetrize), by tiles, so that the transposed writes
// stay in cache.
func SymmetrizeTiled(g []float64, l int) {
	const t = 64
	par.Chunks((l+t-1)/t, 1, func(_, bj, _ int) {
		j0 := bj * t
		j1 := min(l, j0+t)
		for i0 := j0; i0 < l; i0 += t {
			i1 := min(l, i0+t)
			for i := i0; i < i1; i++ {
				for j := j0; j < min(j1, i); j++ {
					g[j*l+i] = g[i*l+j]
				}
			}
		}
	})
}
