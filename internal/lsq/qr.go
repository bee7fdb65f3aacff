package lsq

import (
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/linalg/kernel"
	"github.com/scn2d/scn/internal/par"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// dependenceTol is the relative norm below which a new hidden column counts
// as dependent on the columns already chosen: after orthogonalisation against
// them, less than this fraction of its norm is left. Such a column would only
// add a near-zero pivot to R (and huge output weights), so it is refused.
const dependenceTol = 1e-6

// QBlockCols is how many columns of Q are stored per contiguous block. Q grows
// block by block, so a fit never holds more than one block beyond its nodes
// and never copies Q to grow it.
const QBlockCols = 32

// QR solves min ||H beta - T||_F while H grows one column at a time. It keeps
// a thin QR factorisation H = Q R, with Q (N x L) grown by classical
// Gram-Schmidt with one re-orthogonalisation (CGS2, "twice is enough"), and the
// residual e = T - Q Q^T T. Adding a column costs O(N*L) for the projections
// and O(N*m) for the residual; the output weights are solved once, from R and
// Q^T T, when they are asked for.
type QR struct {
	N, M  int
	T     []float64   // targets, N x m row-major, as given
	tc, E []float64   // targets and residual by output: m rows of N values
	q     [][]float64 // Q in blocks of qBlockCols columns, tile-major (see tile)
	r     [][]float64 // r[j] is column j of R: R[0..j, j]
	qtt   []float64   // Q^T T, L x m row-major
	L     int         // columns so far
	c2    []float64   // re-orthogonalisation coefficients, scratch
	part  []float64   // per-tile partial sums, scratch
	EE    []float64   // e_q^T e_q for each output q, nil until computed
	rpart []float64   // per-chunk partial sums of updateResidual, scratch
}

// NewQR returns an empty factorisation for the targets t (n x m,
// row-major, kept as given).
func NewQR(t []float64, n, m int) *QR {
	tc := Transposed(t[:n*m], n, m)
	return &QR{N: n, M: m, T: t, tc: tc, E: append([]float64(nil), tc...)}
}

// Residual returns e_q, the residual of output q (N values).
func (s *QR) Residual(q int) []float64 { return s.E[q*s.N : (q+1)*s.N] }

// residualChunk is the row chunk of the residual's sums; fixed, so that
// they do not depend on the number of goroutines.
const residualChunk = 4096

// ResidualColumnNorms returns e_q^T e_q for each output q (m values, owned
// by s, valid until the residual changes).
func (s *QR) ResidualColumnNorms() []float64 {
	if s.EE == nil {
		m := s.M
		chunks := (s.N + residualChunk - 1) / residualChunk
		part := make([]float64, chunks*m)
		par.Chunks(s.N, residualChunk, func(c, lo, hi int) {
			for q := 0; q < m; q++ {
				eq := s.Residual(q)[lo:hi]
				part[c*m+q] = floats.Dot(eq, eq)
			}
		})
		s.EE = SumChunks(part, chunks, make([]float64, m))
	}
	return s.EE
}

// ResidualNorm2 returns ||e||_F^2.
func (s *QR) ResidualNorm2() float64 {
	var sum float64
	for _, v := range s.ResidualColumnNorms() {
		sum += v
	}
	return sum
}

// sampleBlock is the number of samples (rows of Q) per tile of the
// orthogonalisation. A tile of Q at L = 1000 is 4 MB: the fused passes below
// find it in the 32 MB L3 cache the second time. Measured at N = 60000,
// L = 500 (BenchmarkAppendNode): 512 beat 128 and 256.
const sampleBlock = 512

// orthogonalise runs CGS2 on the k columns hb (k rows of N, row-major,
// overwritten) against the columns [from, l) of Q: for each column h,
// c1 = Q^T h, h -= Q c1, c2 = Q^T h, h -= Q c2, and coef (k rows of l-from)
// receives c1 + c2. It reads that part of Q three times, not four, whatever
// k is: the update with c1 and the projection giving c2 are fused, tile by
// tile of samples. Tiles are fixed and partial sums are added in tile order,
// so the result does not depend on the number of goroutines. It returns the
// squared norms of the columns after orthogonalisation.
func (s *QR) orthogonalise(hb []float64, k, from int, coef []float64) []float64 {
	n, w := s.N, s.L-from // w: columns of Q involved
	nb := (n + sampleBlock - 1) / sampleBlock
	stride := k*w + k // per tile: k*w projections, then k squared norms
	s.part = Grow(s.part, nb*stride)
	part := s.part
	sum := func(dst []float64) {
		clear(dst)
		for b := 0; b < nb; b++ {
			p := part[b*stride : b*stride+len(dst)]
			for j := range dst {
				dst[j] += p[j]
			}
		}
	}
	gemm := k > 1 && from == 0       // whole blocks of Q: use matrix products
	project := func(b, lo, hi int) { // part[b] = Q_b^T h_b for each column
		p := part[b*stride:]
		if gemm {
			for j0 := 0; j0 < w; j0 += QBlockCols {
				cols := min(QBlockCols, w-j0)
				linalg.Dgemm(false, true, k, cols, hi-lo, 1, hb[lo:], n, s.q[j0/QBlockCols][b*QBlockCols*sampleBlock:], sampleBlock, 0, p[j0:], w)
			}
			return
		}
		clear(p[:k*w])
		for c := 0; c < k; c++ {
			s.tileDots(from, b, hb[c*n+lo:c*n+hi], p[c*w:(c+1)*w])
		}
	}
	update := func(b, lo, hi int, cc []float64) { // h_b -= Q_b cc for each column
		if gemm {
			for j0 := 0; j0 < w; j0 += QBlockCols {
				cols := min(QBlockCols, w-j0)
				linalg.Dgemm(false, false, k, hi-lo, cols, -1, cc[j0:], w, s.q[j0/QBlockCols][b*QBlockCols*sampleBlock:], sampleBlock, 1, hb[lo:], n)
			}
			return
		}
		for c := 0; c < k; c++ {
			s.tileAxpy(from, b, cc[c*w:(c+1)*w], hb[c*n+lo:c*n+hi])
		}
	}
	// updateProject is update then project on one tile: the projection
	// finds the tile's part of Q in cache (at L = 1000 it is 4 MB, in L3).
	// Sub-tiles sized for L2 measured 5% slower here (BenchmarkAppendNode).
	updateProject := func(b, lo, hi int, cc []float64) {
		update(b, lo, hi, cc)
		project(b, lo, hi)
	}
	c1 := coef[:k*w]
	s.c2 = Grow(s.c2, k*w)
	c2 := s.c2
	// Pass 1: c1 = Q^T h.
	par.Chunks(n, sampleBlock, func(b, lo, hi int) { project(b, lo, hi) })
	sum(c1)
	// Pass 2: h -= Q c1, and c2 = Q^T h on the same tile.
	par.Chunks(n, sampleBlock, func(b, lo, hi int) { updateProject(b, lo, hi, c1) })
	sum(c2)
	// Pass 3: h -= Q c2, with the squared norm of each tile.
	par.Chunks(n, sampleBlock, func(b, lo, hi int) {
		update(b, lo, hi, c2)
		p := part[b*stride+k*w:]
		for c := 0; c < k; c++ {
			hc := hb[c*n+lo : c*n+hi]
			p[c] = floats.Dot(hc, hc)
		}
	})
	norms := make([]float64, k)
	for b := 0; b < nb; b++ {
		p := part[b*stride+k*w:]
		for c := range norms {
			norms[c] += p[c]
		}
	}
	for j := range c1 {
		c1[j] += c2[j]
	}
	return norms
}

// Add orthogonalises the column h (overwritten) against Q and appends it. It
// returns false, leaving the factorisation unchanged, when the column is
// (nearly) dependent on the columns already in H.
func (s *QR) Add(h []float64) bool {
	ok, _ := s.AddBlock(h, 1)
	return ok[0]
}

// AddBlock appends the k columns hb (k rows of N, row-major, overwritten) in
// order, refusing those (nearly) dependent on the columns before them. The
// block is orthogonalised against the earlier columns of Q together, so Q is
// read three times per block rather than per column; then each column is
// orthogonalised against the block's columns accepted before it.
func (s *QR) AddBlock(hb []float64, k int) (ok []bool, rmse []float64) {
	n, l0 := s.N, s.L
	norm0 := make([]float64, k)
	for c := range norm0 {
		h := hb[c*n : (c+1)*n]
		norm0[c] = math.Sqrt(Dot(h, h))
	}
	coef := make([]float64, k*l0)
	if l0 > 0 {
		s.orthogonalise(hb, k, 0, coef)
	}
	ok = make([]bool, k)
	rmse = make([]float64, k)
	for c := 0; c < k; c++ {
		h := hb[c*n : (c+1)*n]
		if !(norm0[c] > 0) || math.IsInf(norm0[c], 0) {
			continue
		}
		col := make([]float64, s.L+1)
		copy(col, coef[c*l0:(c+1)*l0])
		var norm2 float64
		if s.L > l0 {
			norm2 = s.orthogonalise(h, 1, l0, col[l0:s.L])[0]
		} else {
			norm2 = Dot(h, h)
		}
		norm := math.Sqrt(norm2)
		if !(norm > dependenceTol*norm0[c]) {
			continue
		}
		col[s.L] = norm
		inv := 1 / norm
		for i := range h {
			h[i] *= inv
		}
		s.appendQ(h)
		s.r = append(s.r, col)
		s.updateResidual(h)
		s.L++
		ok[c] = true
		rmse[c] = math.Sqrt(s.ResidualNorm2() / float64(n*s.M))
	}
	return ok, rmse
}

// Q is stored tile-major: a block of qBlockCols columns of Q is one slice
// holding, for each tile of sampleBlock samples in turn, the tile's part of
// each column. The orthogonalisation walks tile by tile, so it reads long
// contiguous runs that the hardware prefetches well.

// tile returns the part of column j of Q in sample tile b (n values).
func (s *QR) tile(j, b, n int) []float64 {
	off := s.tileOffset(j, b)
	return s.q[j/QBlockCols][off : off+n]
}

// tileOffset is where column j's part in sample tile b starts in its block.
func (s *QR) tileOffset(j, b int) int {
	return b*QBlockCols*sampleBlock + (j%QBlockCols)*sampleBlock
}

// tileColumns visits columns from+j of Q, j < m, in sample tile b: four
// at a time (four(j, q)) where four columns lie in one block of Q, else one
// (one(j, q)); q starts at column from+j's part of the tile (four columns
// lie sampleBlock apart in it).
func (s *QR) tileColumns(from, b, m int, four, one func(j int, q []float64)) {
	for j := 0; j < m; {
		col := from + j
		q := s.q[col/QBlockCols][s.tileOffset(col, b):]
		if col%QBlockCols+4 <= QBlockCols && j+4 <= m {
			four(j, q)
			j += 4
			continue
		}
		one(j, q)
		j++
	}
}

// tileDots adds to out[j] the dot product of x with column from+j of Q
// over the first len(x) samples of sample tile b, for j < len(out).
// Columns are taken four at a time where they lie in one block of Q, so
// that the kernel reads x once per four columns.
func (s *QR) tileDots(from, b int, x, out []float64) {
	var o [4]float64
	n := len(x)
	s.tileColumns(from, b, len(out), func(j int, q []float64) {
		kernel.DotRows4(q, sampleBlock, x, n, &o)
		for g, v := range o {
			out[j+g] += v
		}
	}, func(j int, q []float64) {
		out[j] += floats.Dot(q[:n], x)
	})
}

// tileAxpy sets y -= sum_j cc[j] q_j over the first len(y) samples of
// sample tile b, where q_j is column from+j of Q, four columns per read of
// y where it can.
func (s *QR) tileAxpy(from, b int, cc, y []float64) {
	var c4 [4]float64
	n := len(y)
	s.tileColumns(from, b, len(cc), func(j int, q []float64) {
		for g := range c4 {
			c4[g] = -cc[j+g]
		}
		kernel.AxpyRows4(q, sampleBlock, &c4, y, n)
	}, func(j int, q []float64) {
		floats.AddScaled(y, -cc[j], q[:n])
	})
}

// appendQ stores q as column s.l of Q.
func (s *QR) appendQ(q []float64) {
	if s.L/QBlockCols == len(s.q) {
		nb := (s.N + sampleBlock - 1) / sampleBlock
		s.q = append(s.q, make([]float64, QBlockCols*nb*sampleBlock))
	}
	for b, lo := 0, 0; lo < s.N; b, lo = b+1, lo+sampleBlock {
		hi := min(s.N, lo+sampleBlock)
		copy(s.tile(s.L, b, hi-lo), q[lo:hi])
	}
}

// updateResidual records q^T T and sets e -= q (q^T e) for the new unit
// column q, orthogonal to all earlier ones. Both passes over the residual
// run on fixed row chunks in parallel; the second also gives the
// residual's new column norms.
func (s *QR) updateResidual(q []float64) {
	m, n := s.M, s.N
	chunks := (n + residualChunk - 1) / residualChunk
	s.rpart = Grow(s.rpart, chunks*2*m)
	part := s.rpart
	par.Chunks(n, residualChunk, func(c, lo, hi int) {
		p := part[c*2*m : (c+1)*2*m]
		qc := q[lo:hi]
		RowDots(s.tc[lo:], n, m, qc, p[:m])
		RowDots(s.E[lo:], n, m, qc, p[m:])
	})
	both := SumChunks(part, chunks, make([]float64, 2*m))
	qt, qe := both[:m], both[m:]
	par.Chunks(n, residualChunk, func(c, lo, hi int) {
		p := part[c*m : (c+1)*m] // the first pass's sums are no longer needed
		qc := q[lo:hi]
		for j := 0; j < m; j++ {
			ej, a := s.Residual(j)[lo:hi], qe[j]
			var sum float64
			for i, qi := range qc {
				v := ej[i] - a*qi
				ej[i] = v
				sum += v * v
			}
			p[j] = sum
		}
	})
	s.EE = SumChunks(part, chunks, Grow(s.EE, m))
	s.qtt = append(s.qtt, qt...)
}

// Solve returns the output weights (l x m, row-major) of the first l columns:
// the least-squares solution R^-1 Q^T T, or, with ridge > 0, the solution of
// (R^T R + ridge I) beta = R^T Q^T T, which is (H^T H + ridge I)^-1 H^T T.
func (s *QR) Solve(l int, ridge float64) ([]float64, error) {
	if l < 0 || l > s.L {
		return nil, fmt.Errorf("scn: %d nodes asked of a fit with %d", l, s.L)
	}
	m := s.M
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
	g, ht := s.Normal(l)
	return RidgeSolve(g, ht, ridge)
}

// Columns returns the number of columns in the factorisation.
func (s *QR) Columns() int { return s.L }

// Normal returns H^T H = R^T R and H^T T = R^T Q^T T of the first l columns:
// R being upper triangular, both only involve the leading l x l block of R.
// l must be at least 1.
func (s *QR) Normal(l int) (*mat.SymDense, *mat.Dense) {
	r := mat.NewDense(l, l, nil)
	for j := 0; j < l; j++ {
		for i := 0; i <= j; i++ {
			r.Set(i, j, s.r[j][i])
		}
	}
	var g mat.SymDense
	g.SymOuterK(1, r.T())
	var ht mat.Dense
	ht.Mul(r.T(), mat.NewDense(l, s.M, s.qtt[:l*s.M]))
	return &g, &ht
}

// StackedSolve returns the minimum-norm least-squares weights of the first
// l columns over the engine's rows and further rows (hidden outputs hv,
// targets tv): with H = Q R, ||H beta - T||^2 equals ||R beta - Q^T T||^2
// plus a constant, so the problem over both is the small stacked problem
// [R; hv] beta = [Q^T T; tv], solved by a QR factorisation. ok is false if
// that solve fails (the caller then solves over all the hidden outputs).
func (s *QR) StackedSolve(l int, hv, tv *mat.Dense) (beta []float64, ok bool) {
	nv, _ := hv.Dims()
	m := s.M
	a := mat.NewDense(l+nv, l, nil)
	b := mat.NewDense(l+nv, m, nil)
	for j := 0; j < l; j++ {
		for i := 0; i <= j; i++ {
			a.Set(i, j, s.r[j][i])
		}
	}
	b.Slice(0, l, 0, m).(*mat.Dense).Copy(mat.NewDense(l, m, s.qtt[:l*m]))
	a.Slice(l, l+nv, 0, l).(*mat.Dense).Copy(hv)
	b.Slice(l, l+nv, 0, m).(*mat.Dense).Copy(tv)
	var f mat.QR
	f.Factorize(a)
	out := mat.NewDense(l, m, nil)
	if err := f.SolveTo(out, false, b); err != nil {
		return nil, false
	}
	return out.RawMatrix().Data, true
}
