package scn

import (
	"errors"
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/linalg"
	"gonum.org/v1/gonum/mat"
)

// dependenceTol is the relative norm below which a new hidden column counts
// as dependent on the columns already chosen: after orthogonalisation against
// them, less than this fraction of its norm is left. Such a column would only
// add a near-zero pivot to R (and huge output weights), so it is refused.
const dependenceTol = 1e-6

// qChunkRows is how many columns of Q are stored per contiguous block. Q grows
// block by block, so a fit never holds more than one block beyond its nodes
// and never copies Q to grow it.
const qChunkRows = 32

// lsq solves min ||H beta - T||_F while H grows one column at a time. It keeps
// a thin QR factorisation H = Q R, with Q (N x L) grown by classical
// Gram-Schmidt with one re-orthogonalisation (CGS2, "twice is enough"), and the
// residual e = T - Q Q^T T. Adding a column costs O(N*L) for the projections
// and O(N*m) for the residual; the output weights are solved once, from R and
// Q^T T, when they are asked for.
type lsq struct {
	n, m   int
	t, e   []float64   // targets and residual, N x m row-major
	q      [][]float64 // Q^T in blocks of qChunkRows rows of length N
	r      [][]float64 // r[j] is column j of R: R[0..j, j]
	qtt    []float64   // Q^T T, L x m row-major
	l      int         // columns so far
	c1, c2 []float64   // projection coefficients, scratch
}

func newLSQ(t []float64, n, m int) *lsq {
	return &lsq{n: n, m: m, t: t, e: append([]float64(nil), t...)}
}

// residualNorm2 returns ||e||_F^2.
func (s *lsq) residualNorm2() float64 {
	var sum float64
	for _, v := range s.e {
		sum += v * v
	}
	return sum
}

// project sets c = Q^T h (first s.l entries) and h -= Q c.
func (s *lsq) project(h, c []float64) {
	for b, blk := range s.q {
		off := b * qChunkRows
		rows := min(qChunkRows, s.l-off)
		if rows <= 0 {
			break
		}
		linalg.Dgemv(false, rows, s.n, 1, blk, s.n, h, 0, c[off:off+rows])
	}
	for b, blk := range s.q {
		off := b * qChunkRows
		rows := min(qChunkRows, s.l-off)
		if rows <= 0 {
			break
		}
		linalg.Dgemv(true, rows, s.n, -1, blk, s.n, c[off:off+rows], 1, h)
	}
}

// add orthogonalises the column h (overwritten) against Q and appends it. It
// returns false, leaving the factorisation unchanged, when the column is
// (nearly) dependent on the columns already in H.
func (s *lsq) add(h []float64) bool {
	norm0 := math.Sqrt(dot(h, h))
	if !(norm0 > 0) || math.IsInf(norm0, 0) {
		return false
	}
	if cap(s.c1) < s.l+1 {
		s.c1 = make([]float64, s.l+1, 2*s.l+qChunkRows)
		s.c2 = make([]float64, s.l+1, 2*s.l+qChunkRows)
	}
	c1, c2 := s.c1[:s.l+1], s.c2[:s.l+1]
	s.project(h, c1)
	s.project(h, c2)
	norm := math.Sqrt(dot(h, h))
	if !(norm > dependenceTol*norm0) {
		return false
	}
	col := make([]float64, s.l+1)
	for i := 0; i < s.l; i++ {
		col[i] = c1[i] + c2[i]
	}
	col[s.l] = norm
	inv := 1 / norm
	for i := range h {
		h[i] *= inv
	}
	s.appendQ(h)
	s.r = append(s.r, col)
	s.updateResidual(h)
	s.l++
	return true
}

// appendQ stores q as row s.l of Q^T.
func (s *lsq) appendQ(q []float64) {
	b, off := s.l/qChunkRows, s.l%qChunkRows
	if b == len(s.q) {
		s.q = append(s.q, make([]float64, qChunkRows*s.n))
	}
	copy(s.q[b][off*s.n:(off+1)*s.n], q)
}

// updateResidual records q^T T and sets e -= q (q^T e) for the new unit
// column q, orthogonal to all earlier ones.
func (s *lsq) updateResidual(q []float64) {
	m := s.m
	qt := make([]float64, m)
	qe := make([]float64, m)
	for i, qi := range q {
		ti, ei := s.t[i*m:(i+1)*m], s.e[i*m:(i+1)*m]
		for j := range qt {
			qt[j] += qi * ti[j]
			qe[j] += qi * ei[j]
		}
	}
	for i, qi := range q {
		ei := s.e[i*m : (i+1)*m]
		for j := range ei {
			ei[j] -= qi * qe[j]
		}
	}
	s.qtt = append(s.qtt, qt...)
}

// solve returns the output weights (l x m, row-major) of the first l columns:
// the least-squares solution R^-1 Q^T T, or, with ridge > 0, the solution of
// (R^T R + ridge I) beta = R^T Q^T T, which is (H^T H + ridge I)^-1 H^T T.
func (s *lsq) solve(l int, ridge float64) ([]float64, error) {
	if l < 0 || l > s.l {
		return nil, fmt.Errorf("scn: %d nodes asked of a fit with %d", l, s.l)
	}
	m := s.m
	beta := make([]float64, l*m)
	if l == 0 {
		return beta, nil
	}
	if ridge == 0 {
		copy(beta, s.qtt[:l*m])
		// Back substitution on the upper-triangular R, one row at a time.
		for i := l - 1; i >= 0; i-- {
			bi := beta[i*m : (i+1)*m]
			for j := i + 1; j < l; j++ {
				rij := s.r[j][i]
				bj := beta[j*m : (j+1)*m]
				for k := range bi {
					bi[k] -= rij * bj[k]
				}
			}
			for k := range bi {
				bi[k] /= s.r[i][i]
			}
		}
		return beta, nil
	}
	r := mat.NewDense(l, l, nil)
	for j := 0; j < l; j++ {
		for i := 0; i <= j; i++ {
			r.Set(i, j, s.r[j][i])
		}
	}
	var a mat.SymDense
	a.SymOuterK(1, r.T())
	for i := 0; i < l; i++ {
		a.SetSym(i, i, a.At(i, i)+ridge)
	}
	var rhs mat.Dense
	rhs.Mul(r.T(), mat.NewDense(l, m, s.qtt[:l*m]))
	var ch mat.Cholesky
	if !ch.Factorize(&a) {
		return nil, errors.New("scn: ridge system is not positive definite")
	}
	out := mat.NewDense(l, m, beta)
	if err := ch.SolveTo(out, &rhs); err != nil {
		return nil, fmt.Errorf("scn: ridge solve: %w", err)
	}
	return beta, nil
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
