package scn

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
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
	n, m int
	t, e []float64   // targets and residual, N x m row-major
	q    [][]float64 // Q^T in blocks of qChunkRows rows of length N
	r    [][]float64 // r[j] is column j of R: R[0..j, j]
	qtt  []float64   // Q^T T, L x m row-major
	l    int         // columns so far
	c2   []float64   // re-orthogonalisation coefficients, scratch
	part []float64   // per-tile partial sums, scratch
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

// sampleBlock is the number of samples (rows of Q) per tile of the
// orthogonalisation. A tile row of Q at L = 1000 is 1 MB, so that the
// fused passes below find it in cache the second time.
const sampleBlock = 512

// orthogonalise runs CGS2 on h against Q: c = c1 + c2 where c1 = Q^T h,
// h -= Q c1, c2 = Q^T h, h -= Q c2. It reads Q three times, not four: the
// update with c1 and the projection giving c2 are fused, tile by tile of
// samples. Tiles are fixed and partial sums are added in tile order, so the
// result does not depend on the number of goroutines. It returns ||h||^2
// after orthogonalisation.
func (s *lsq) orthogonalise(h, c []float64) float64 {
	l := s.l
	nb := (s.n + sampleBlock - 1) / sampleBlock
	s.part = grow(s.part, nb*(l+1))
	part := s.part
	sum := func(dst []float64) {
		clear(dst)
		for b := 0; b < nb; b++ {
			p := part[b*(l+1) : (b+1)*(l+1)]
			for j := range dst {
				dst[j] += p[j]
			}
		}
	}
	c1, c2 := c[:l], s.c2[:l]
	// Pass 1: c1 = Q^T h.
	forChunks(s.n, sampleBlock, func(b, lo, hi int) {
		p, hb := part[b*(l+1):(b+1)*(l+1)], h[lo:hi]
		for j := 0; j < l; j++ {
			p[j] = floats.Dot(s.tile(j, b, hi-lo), hb)
		}
	})
	sum(c1)
	// Pass 2: h -= Q c1, and c2 = Q^T h on the same tile.
	forChunks(s.n, sampleBlock, func(b, lo, hi int) {
		p, hb := part[b*(l+1):(b+1)*(l+1)], h[lo:hi]
		for j := 0; j < l; j++ {
			floats.AddScaled(hb, -c1[j], s.tile(j, b, hi-lo))
		}
		for j := 0; j < l; j++ {
			p[j] = floats.Dot(s.tile(j, b, hi-lo), hb)
		}
	})
	sum(c2)
	// Pass 3: h -= Q c2, with the squared norm of each tile.
	forChunks(s.n, sampleBlock, func(b, lo, hi int) {
		hb := h[lo:hi]
		for j := 0; j < l; j++ {
			floats.AddScaled(hb, -c2[j], s.tile(j, b, hi-lo))
		}
		part[b*(l+1)+l] = floats.Dot(hb, hb)
	})
	var norm2 float64
	for b := 0; b < nb; b++ {
		norm2 += part[b*(l+1)+l]
	}
	for j := range c1 {
		c1[j] += c2[j]
	}
	return norm2
}

// add orthogonalises the column h (overwritten) against Q and appends it. It
// returns false, leaving the factorisation unchanged, when the column is
// (nearly) dependent on the columns already in H.
func (s *lsq) add(h []float64) bool {
	norm0 := math.Sqrt(dot(h, h))
	if !(norm0 > 0) || math.IsInf(norm0, 0) {
		return false
	}
	s.c2 = grow(s.c2, s.l+1)
	col := make([]float64, s.l+1)
	norm := math.Sqrt(s.orthogonalise(h, col))
	if !(norm > dependenceTol*norm0) {
		return false
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

// Q is stored tile-major: a block of qChunkRows columns of Q is one slice
// holding, for each tile of sampleBlock samples in turn, the tile's part of
// each column. The orthogonalisation walks tile by tile, so it reads long
// contiguous runs that the hardware prefetches well.

// tile returns the part of column j of Q in sample tile b (n values).
func (s *lsq) tile(j, b, n int) []float64 {
	off := b*qChunkRows*sampleBlock + (j%qChunkRows)*sampleBlock
	return s.q[j/qChunkRows][off : off+n]
}

// appendQ stores q as column s.l of Q.
func (s *lsq) appendQ(q []float64) {
	if s.l/qChunkRows == len(s.q) {
		nb := (s.n + sampleBlock - 1) / sampleBlock
		s.q = append(s.q, make([]float64, qChunkRows*nb*sampleBlock))
	}
	for b, lo := 0, 0; lo < s.n; b, lo = b+1, lo+sampleBlock {
		hi := min(s.n, lo+sampleBlock)
		copy(s.tile(s.l, b, hi-lo), q[lo:hi])
	}
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
