package lsq

import (
	"fmt"
	"math"
	"sync"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/par"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// The block engine: least squares for fits that add nodes by whole blocks
// (Config.BlockSize > 1 and the options that need it). It keeps
//
//   - H, the hidden outputs, in float32 (exactly the values the scoring
//     kernel computed, so nothing is rounded by storing them), split into
//     row shards of ShardRows training images; each shard holds its images'
//     outputs node by node (L rows of the shard's length); with bfloat16
//     Gram products (Config.BF16Gram) the values rounded to bfloat16, the
//     outputs of the problem the factor solves (store);
//   - G = H^T H and H^T T in float64, grown by whole blocks;
//   - the lower Cholesky factor F of G + alpha I (alpha = Config.Ridge),
//     grown by whole blocks: for a new block B of b columns,
//     F21 = G21 F11^-T (a triangular solve), S = G22 + alpha I - F21 F21^T,
//     F22 = chol(S). The leading l x l block of F is the factor of the
//     leading l x l block of G + alpha I, so the output weights of every
//     prefix of the nodes at alpha cost two triangular solves (l^2 m).
//
// Every quantity that reads the training data is a sum over the row shards,
// formed shard by shard and reduced in shard order in one place
// (reduce, and reduce32 for float32 parts), so that the same step can later run with the shards
// on several machines. Per block of b nodes, with l nodes before it and m
// outputs, the reduced quantities are:
//
//	H^T H_B  (l+b) x b   the new columns of G
//	H_B^T T  b x m       the new rows of H^T T
//
// A fit that knows all its nodes before it needs any data (random nodes
// with a ridge: see drive_onepass.go) does not keep H at all. It forms these same
// per-block products, shard by shard, in ONE pass over the shards
// (accumulate: each shard's hidden outputs for every node are computed
// into one reused buffer, then every block's products are taken from it
// and reduced into G's lower triangle), and only then grows the factor
// block by block (addAccumulated). Each product has the same shape and the
// same operands as in the block-by-block order and every sum is reduced in
// the same shard order, so the factor, and the model, are the same bits;
// the memory is G and one shard's outputs instead of H, and no page of H is
// ever touched.
//
// and per supervised block step (drive_block.go):
//
//	E^T H_C  m x K       candidates' correlations with the residual
//	diag(H_C^T H_C)  K   candidates' squared norms
//	E^T E    m           the residual's column norms
//
// where K is the number of candidates. The residual E = T - H beta is
// computed shard by shard (it is local to the shard's rows).

// ShardRows is the training images per row shard. Float32 products within a
// shard add at most ShardRows/16 terms per lane of the kernels, which keeps
// their rounding near float32's epsilon; shards are summed in float64.
// (A variable only so that tests can cut small problems into many shards;
// a model's bits depend on it.)
var ShardRows = 2048

// Shard is one row shard: images [lo, hi) and their hidden outputs,
// h[j*(hi-lo)+i] for node j (nil in a one-pass engine, which keeps no H).
type Shard struct {
	Lo, Hi int
	H      []float32
}

// Gram is the block engine described above.
type Gram struct {
	N, M   int
	F32    bool    // Gram products in float32 within each shard
	BF16   bool    // ... of the outputs rounded to bfloat16 (f32 is set too)
	Alpha  float64 // ridge of the kept factor
	L      int     // columns so far
	LD     int     // leading dimension of g (capacity in columns)
	maxCap int
	Shards []Shard
	TC     []float64 // targets by output: m rows of N
	TT     []float64 // T_q^T T_q for each output q
	// g holds G strictly above the diagonal (g[i*ld+j], i < j) and the
	// factor F on and below it (g[i*ld+j], j <= i); gd is G's diagonal.
	G, GD []float64
	HT    []float64 // H^T T, l x m row-major
	// scratch
	cross []float64
	z32   []float32
	pk    linalg.PackedBF16 // a shard's outputs in bfloat16 (bf16)
	w64   []float64
	// acc is the state of a one-pass engine between accumulate and the
	// last addAccumulated (nil otherwise).
	Acc *accumulation
}

// NewGram returns an empty engine for N = len(t)/m images, room for
// up to maxCols columns, ridge alpha on the kept factor.
func NewGram(t []float64, n, m int, alpha float64, f32 bool, maxCols int) *Gram {
	return NewGramH(t, n, m, alpha, f32, maxCols, true)
}

// NewGramH is NewGram; keepH false makes a one-pass engine,
// whose shards hold no hidden outputs (its columns come from accumulate).
func NewGramH(t []float64, n, m int, alpha float64, f32 bool, maxCols int, keepH bool) *Gram {
	e := &Gram{N: n, M: m, F32: f32, Alpha: alpha, maxCap: maxCols}
	e.TC = make([]float64, m*n)
	Transpose(t, n, m, e.TC)
	e.TT = make([]float64, m)
	for q := range e.TT {
		tq := e.TC[q*n : (q+1)*n]
		e.TT[q] = floats.Dot(tq, tq)
	}
	// Storage for every column the fit may add is reserved up front when it
	// is of a sane size: the pages are only made resident as columns are
	// written, and the stores never need copying (copies would leave the
	// old stores as garbage, up to doubling the peak memory).
	reserveH := keepH && float64(n)*float64(maxCols)*4 <= maxReserve
	for lo := 0; lo < n; lo += ShardRows {
		sh := Shard{Lo: lo, Hi: min(n, lo+ShardRows)}
		if reserveH {
			sh.H = make([]float32, 0, maxCols*(sh.Hi-sh.Lo))
		}
		e.Shards = append(e.Shards, sh)
	}
	if keepH && float64(maxCols)*float64(maxCols)*8 <= maxReserve/2 {
		e.Reserve(maxCols)
	}
	// A one-pass engine reserves G pass by pass (newPass): a budget's
	// engine may grow to ten times its plan, and a G reserved for all of
	// it (11 GB at 37500 columns) is only untouched address space while
	// the Go runtime takes it from fresh memory. When it reuses part of the
	// heap, it zeroes the whole allocation: 10 s and 8 GB resident on an
	// MNIST budget, measured, after the deskew had freed an image set.
	return e
}

// maxReserve is the most address space (bytes) the engine reserves for H
// up front; larger fits grow their stores as they go.
const maxReserve = 8 << 30

// Columns returns the number of columns (nodes) in the engine.
func (e *Gram) Columns() int { return e.L }

// Reserve makes room for c columns in g.
func (e *Gram) Reserve(c int) {
	if c <= e.LD {
		return
	}
	nld := max(c, min(e.maxCap, 2*e.LD), min(e.maxCap, 256))
	g := make([]float64, nld*nld)
	for i := 0; i < e.L; i++ {
		copy(g[i*nld:i*nld+e.L], e.G[i*e.LD:i*e.LD+e.L])
	}
	e.G, e.LD = g, nld
	e.GD = append(make([]float64, 0, nld), e.GD...)
}

// Reduce adds one shard's partial sums part into sum. The block steps
// call it for the shards in shard order: it is the one place where the
// shards' contributions meet, so that the same sums can later come from
// shards held elsewhere.
func Reduce(sum, part []float64) {
	for i, v := range part[:len(sum)] {
		sum[i] += v
	}
}

// Reduce32 is reduce for a part in float32 (float32 Gram products): each
// value is widened exactly, so the sum is the one reduce forms from the
// part's float64 copy.
func Reduce32(sum []float64, part []float32) {
	for i, v := range part[:len(sum)] {
		sum[i] += float64(v)
	}
}

// AddBlock appends the b columns hb (b rows of N, node-major) in order.
// Columns that are (nearly) dependent on the columns before them (possible
// only with alpha = 0) are left out: ok reports which were taken. The
// dependence test is the one of the QR path: a column is dependent when its
// squared norm left after projection on the earlier columns, the pivot of
// the Cholesky factor, is at most dependenceTol^2 of its squared norm.
func (e *Gram) AddBlock(hb []float32, b int) (ok []bool) {
	return AddDropping(b, func(idx []int) []bool { return e.tryBlock(hb, idx) })
}

// AddDropping adds columns 0..n-1 with try, which adds the columns idx
// (in order) or, if any is dependent on those before it, adds none and
// says which were; the block is then retried without them. It returns
// which of the n columns went in.
func AddDropping(n int, try func(idx []int) (dep []bool)) (ok []bool) {
	ok = make([]bool, n)
	idx := make([]int, n)
	for j := range idx {
		idx[j] = j
	}
	for len(idx) > 0 {
		dep := try(idx)
		if dep == nil {
			for _, j := range idx {
				ok[j] = true
			}
			return ok
		}
		// Roll back and retry without the dependent columns.
		kept := idx[:0]
		for k, j := range idx {
			if !dep[k] {
				kept = append(kept, j)
			}
		}
		idx = kept
	}
	return ok
}

// Store copies hidden outputs src into a shard's dst, rounded to bfloat16
// with bfloat16 Gram products: the shards then hold the outputs of the
// least-squares problem the factor solves, so the residual T - H beta a
// supervised step judges candidates against is that problem's (nearly
// orthogonal to the columns), not the unrounded outputs' (whose
// components along the columns make more candidates pass: 2DSCN fast with
// bfloat16 products lost 0.1-0.3 points at equal L on MNIST, and 1.6 on
// Fashion-MNIST at L = 1000, that way). Packing and shardHT round again,
// which leaves rounded values as they are.
func (e *Gram) Store(dst, src []float32) {
	if !e.BF16 {
		copy(dst, src)
		return
	}
	for i, v := range src[:len(dst)] {
		dst[i] = linalg.BF16Float(linalg.RoundBF16(v))
	}
}

// tryBlock appends the columns idx of hb. If any of them is dependent on
// those before it, it leaves the engine as it was and returns which were.
func (e *Gram) tryBlock(hb []float32, idx []int) (dep []bool) {
	n, m, l0, b := e.N, e.M, e.L, len(idx)
	if e.Acc != nil {
		panic("scn: a block added to a one-pass engine before its accumulated columns")
	}
	l1 := l0 + b
	e.Reserve(l1)
	// Append the block's rows to every shard.
	for s := range e.Shards {
		sh := &e.Shards[s]
		r := sh.Hi - sh.Lo
		sh.H = extend(sh.H, l1*r)
		for k, j := range idx {
			e.Store(sh.H[(l0+k)*r:(l0+k+1)*r], hb[j*n+sh.Lo:j*n+sh.Hi])
		}
	}
	// cross (b x l1): row k holds G[l0+k][0..l1); then H_B^T T (b x m).
	size := b*l1 + b*m
	part := Grow(e.cross, size)
	e.cross = part
	sum := make([]float64, size)
	for s := range e.Shards {
		e.shardCross(s, l0, b, part)
		Reduce(sum, part)
	}
	dep = e.GrowFactor(sum[:b*l1], sum[b*l1:], b)
	if dep != nil {
		for s := range e.Shards {
			sh := &e.Shards[s]
			sh.H = sh.H[:l0*(sh.Hi-sh.Lo)]
		}
	}
	return dep
}

// GrowFactor appends b columns to the factor from their reduced sums:
// cross (b x l1, l1 = l + b with l the columns so far; row k holds
// G[l+k][0..l1)) and hbt = H_B^T T (b x m). If any column is dependent on
// those before it (see cholInPlace), it leaves the engine's columns as they
// were (g past them may have changed) and returns which were. Both ways of
// forming the sums, block by block (tryBlock) and in one pass
// (addAccumulated), end here, so they grow the same factor.
func (e *Gram) GrowFactor(cross, hbt []float64, b int) (dep []bool) {
	l0, m := e.L, e.M
	l1 := l0 + b
	ld, g := e.LD, e.G
	// G above the diagonal and its diagonal.
	gd := extend(e.GD, l1)
	for k := 0; k < b; k++ {
		row := cross[k*l1 : (k+1)*l1]
		for i := 0; i < l0+k; i++ {
			g[i*ld+l0+k] = row[i]
		}
		gd[l0+k] = row[l0+k]
	}
	e.GD = gd
	// F21 = G21 F11^-T, in rows l0.. of g.
	for k := 0; k < b; k++ {
		copy(g[(l0+k)*ld:(l0+k)*ld+l0], cross[k*l1:k*l1+l0])
	}
	linalg.TrsmRightLowerT(b, l0, g, ld, g[l0*ld:], ld)
	// S = G22 + alpha I - F21 F21^T, into the diagonal block of g.
	sblk := g[l0*ld+l0:]
	for k := 0; k < b; k++ {
		for j := 0; j <= k; j++ {
			sblk[k*ld+j] = cross[k*l1+l0+j]
		}
		sblk[k*ld+k] += e.Alpha
	}
	if l0 > 0 {
		linalg.GemmNT64(b, b, l0, -1, g[l0*ld:], ld, g[l0*ld:], ld, 1, sblk, ld)
	}
	tol := 0.0
	if e.Alpha == 0 {
		tol = gramDependenceTol
	}
	dep = cholInPlace(sblk, ld, b, gd[l0:l1], tol)
	// The product above wrote the whole diagonal block: put G back above
	// its diagonal.
	for k := 0; k < b; k++ {
		for j := k + 1; j < b; j++ {
			sblk[k*ld+j] = cross[j*l1+l0+k]
		}
	}
	if dep != nil {
		e.GD = e.GD[:l0]
		return dep
	}
	e.HT = append(e.HT[:l0*m], hbt...)
	e.L = l1
	return nil
}

// extend returns s resized to n, keeping its contents, growing its storage
// by half when it has to.
func extend[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	t := make([]T, n, n+n/2)
	copy(t, s)
	return t
}

// shardCross writes shard s's part of the block's sums into out: the b x
// (l0+b) products of the block's columns with every column, then H_B^T T
// (b x m).
func (e *Gram) shardCross(s, l0, b int, out []float64) {
	sh := e.Shards[s]
	r, l1 := sh.Hi-sh.Lo, l0+b
	var h64 []float64
	if !e.F32 {
		e.w64 = Grow(e.w64, l1*r)
		h64 = e.w64
		for i, v := range sh.H[:l1*r] {
			h64[i] = float64(v)
		}
	} else {
		e.z32 = Grow(e.z32, b*l1)
	}
	var pk *linalg.PackedBF16
	if e.BF16 {
		e.pk.Pack(l1, r, sh.H, r)
		pk = &e.pk
	}
	e.Products(sh.H[:l1*r], pk, h64, sh.Lo, r, l0, b, e.z32, out[:b*l1], out[b*l1:])
	if e.F32 {
		for i, v := range e.z32[:b*l1] {
			out[i] = float64(v)
		}
	}
}

// Products computes one shard's part of a block's sums: the b x l1
// (l1 = l0+b) products of the block's columns with every column, into g32
// with float32 Gram products (b*l1 values) or into g64 otherwise, and
// H_B^T T (b x m) into ht. h holds the shard's hidden outputs of the first
// l1 nodes (node-major, rows of r images from image lo); h64, only read
// with float64 Gram products, holds them as float64; pk, only read with
// bfloat16 Gram products, holds them (at least l1 rows) rounded and packed
// for linalg.GramBF16, and H_B^T T is then formed from the rounded values
// too, so that G and H^T T are those of one matrix. Both orders of the
// engine (tryBlock and accumulate) form a block's sums here, with the same
// call shapes on the same operands, so their bits agree.
func (e *Gram) Products(h []float32, pk *linalg.PackedBF16, h64 []float64, lo, r, l0, b int, g32 []float32, g64, ht []float64) {
	l1 := l0 + b
	hb := h[l0*r : l1*r]
	switch {
	case e.BF16:
		linalg.GramBF16(pk, l0, l1, l1, g32, l1)
	case e.F32:
		linalg.GramNT32(b, l1, r, hb, h[:l1*r], g32, l1)
	default:
		linalg.GemmNT64(b, l1, r, 1, h64[l0*r:], r, h64, r, 0, g64, l1)
	}
	e.ShardHT(hb, lo, r, ht)
}

// ShardHT sets ht (rows(hb) x m) to one shard's part of H_B^T T: hb holds
// the shard's outputs of some columns (node-major, rows of r images from
// image lo), rounded to bfloat16 first with bfloat16 Gram products. Each
// value is one float64 dot product of the column and a target, however
// the columns are batched, so both orders of the engine form it alike.
func (e *Gram) ShardHT(hb []float32, lo, r int, ht []float64) {
	m := e.M
	par.Chunks(len(hb)/r, 16, func(_, klo, khi int) {
		// A pooled buffer: a one-pass fit calls this for every block and
		// shard, and fresh ones would add up to hundreds of MB of garbage
		// (and as much heap growth) in a pass.
		buf := colPool.Get().(*[]float64)
		defer colPool.Put(buf)
		*buf = Grow(*buf, r)
		col := *buf
		for k := klo; k < khi; k++ {
			for i, v := range hb[k*r : (k+1)*r] {
				if e.BF16 {
					v = linalg.BF16Float(linalg.RoundBF16(v))
				}
				col[i] = float64(v)
			}
			for q := 0; q < m; q++ {
				ht[k*m+q] = floats.Dot(col, e.TC[q*e.N+lo:q*e.N+lo+r])
			}
		}
	})
}

// colPool holds products' float64 copies of one column of a shard.
var colPool = sync.Pool{New: func() any { return new([]float64) }}

// gramDependenceTol is the share of a column's squared norm that must be
// left after projection on the earlier columns (the Cholesky pivot) for the
// column to count as independent, without a ridge. The normal equations
// square the condition number, so this asks for 1e-4 of the norm where the
// QR path asks for dependenceTol = 1e-6: the output weights then keep
// about eight digits.
const gramDependenceTol = 1e-8

// cholInPlace overwrites the lower triangle of the b x b matrix a (lda) by
// its Cholesky factor, column by column. A column whose pivot is at most
// tolRel times its squared norm (norm2), or not positive, counts as
// dependent on the earlier ones: cholInPlace then carries on without it and
// returns which columns were dependent (nil if none). The engine grows its
// factor with tolRel = gramDependenceTol without a ridge and 0 with one
// (a pivot can then only vanish through rounding).
func cholInPlace(a []float64, lda, b int, norm2 []float64, tolRel float64) (dep []bool) {
	for j := 0; j < b; j++ {
		rj := a[j*lda : j*lda+j+1]
		d := rj[j]
		if dep == nil {
			d -= floats.Dot(rj[:j], rj[:j])
		} else {
			for k := 0; k < j; k++ {
				if !dep[k] {
					d -= rj[k] * rj[k]
				}
			}
		}
		tol := tolRel * norm2[j]
		if !(d > tol) || math.IsInf(d, 0) {
			if dep == nil {
				dep = make([]bool, b)
			}
			dep[j] = true
			continue
		}
		d = math.Sqrt(d)
		rj[j] = d
		inv := 1 / d
		for i := j + 1; i < b; i++ {
			ri := a[i*lda : i*lda+j+1]
			s := ri[j]
			if dep == nil {
				s -= floats.Dot(ri[:j], rj[:j])
			} else {
				for k := 0; k < j; k++ {
					if !dep[k] {
						s -= ri[k] * rj[k]
					}
				}
			}
			ri[j] = s * inv
		}
	}
	return dep
}

// Solve returns the output weights (l x m) of the first l columns with
// ridge alpha >= 0: (G_l + alpha I)^-1 (H^T T)_l. At the engine's own alpha
// it takes the kept factor's leading block (two triangular solves);
// otherwise it factors G_l + alpha I anew.
func (e *Gram) Solve(l int, alpha float64) ([]float64, error) {
	if l < 0 || l > e.L {
		return nil, fmt.Errorf("scn: %d nodes asked of a fit with %d", l, e.L)
	}
	m := e.M
	beta := append([]float64(nil), e.HT[:l*m]...)
	if l == 0 {
		return beta, nil
	}
	if alpha == e.Alpha {
		linalg.TrsmLeftLower(false, l, m, e.G, e.LD, beta, m)
		linalg.TrsmLeftLower(true, l, m, e.G, e.LD, beta, m)
		return beta, nil
	}
	g, _ := e.NormalDense(l)
	for i := 0; i < l; i++ {
		g[i*l+i] += alpha
	}
	if err := Cholesky(g, l, l, alpha); err != nil {
		return nil, err
	}
	linalg.TrsmLeftLower(false, l, m, g, l, beta, m)
	linalg.TrsmLeftLower(true, l, m, g, l, beta, m)
	return beta, nil
}

// CholBlock is the block size of cholesky.
const CholBlock = 256

// Cholesky overwrites the lower triangle of the n x n symmetric matrix a
// (lda) by its Cholesky factor, by blocks of cholBlock columns (a triangular
// solve and a product per block, as the engine grows its factor).
func Cholesky(a []float64, n, lda int, alpha float64) error {
	norm2 := make([]float64, n)
	for i := range norm2 {
		norm2[i] = a[i*lda+i] - alpha
	}
	for j0 := 0; j0 < n; j0 += CholBlock {
		b := min(CholBlock, n-j0)
		if j0 > 0 {
			linalg.TrsmRightLowerT(b, j0, a, lda, a[j0*lda:], lda)
			linalg.GemmNT64(b, b, j0, -1, a[j0*lda:], lda, a[j0*lda:], lda, 1, a[j0*lda+j0:], lda)
		}
		if dep := cholInPlace(a[j0*lda+j0:], lda, b, norm2[j0:j0+b], 0); dep != nil {
			return fmt.Errorf("scn: the normal equations of %d nodes are singular (column %d dependent on the earlier ones): use a ridge > 0", n, j0+firstTrue(dep))
		}
		// The rows below the block are filled when their block comes.
	}
	return nil
}

func firstTrue(b []bool) int {
	for i, v := range b {
		if v {
			return i
		}
	}
	return -1
}

// Normal returns G = H^T H (l x l) and H^T T (l x m) of the first l
// columns, as fresh copies.
func (e *Gram) Normal(l int) (*mat.SymDense, *mat.Dense) {
	g, ht := e.NormalDense(l)
	return mat.NewSymDense(l, g), mat.NewDense(l, e.M, ht)
}

// NormalDense is normal as row-major slices (G full).
func (e *Gram) NormalDense(l int) (g, ht []float64) {
	g = make([]float64, l*l)
	for i := 0; i < l; i++ {
		g[i*l+i] = e.GD[i]
		for j := i + 1; j < l; j++ {
			v := e.G[i*e.LD+j]
			g[i*l+j], g[j*l+i] = v, v
		}
	}
	return g, append([]float64(nil), e.HT[:l*e.M]...)
}

// RSS returns ||T - H beta||_F^2 for the first l columns and output weights
// beta (l x m) from the reduced quantities alone: T^T T - 2 beta^T H^T T +
// beta^T G beta (no pass over the data; clamped at 0 against rounding).
func (e *Gram) RSS(l int, beta []float64) float64 {
	m := e.M
	s := 0.0
	for _, v := range e.TT {
		s += v
	}
	for i := 0; i < l*m; i++ {
		s -= 2 * beta[i] * e.HT[i]
	}
	// (G beta)_i for every i, each summed over j in order (G_ij = G_ji is
	// stored above the diagonal), by tiles of rssTile rows in parallel, so
	// that G is read along its rows; then added to s in order of i.
	ld := e.LD
	gb := make([]float64, l*m)
	par.Chunks(l, rssTile, func(_, i0, i1 int) {
		for j := 0; j < l; j++ {
			bj := beta[j*m : (j+1)*m]
			for i := i0; i < i1; i++ {
				var gij float64
				switch {
				case j == i:
					gij = e.GD[i]
				case j > i:
					gij = e.G[i*ld+j]
				default:
					gij = e.G[j*ld+i]
				}
				if gij == 0 {
					continue
				}
				gi := gb[i*m : (i+1)*m]
				for q, v := range bj {
					gi[q] += gij * v
				}
			}
		}
	})
	for i, v := range gb {
		s += beta[i] * v
	}
	return max(s, 0)
}

// rssTile is the rows of G whose products with beta rss forms together.
const rssTile = 32

// Residual writes E = T - H beta for the first l columns into e (m rows of
// N, by output), computed shard by shard (each shard's rows are its own).
// With float32 Gram products the product H beta is formed in float32 too
// (linalg.ProductTN32, beta rounded to float32), otherwise in float64.
func (e *Gram) Residual(l int, beta []float64, out []float64) {
	n, m := e.N, e.M
	b32 := make([]float32, l*m)
	for i, v := range beta[:l*m] {
		b32[i] = float32(v)
	}
	var bt64 []float64
	if !e.F32 {
		bt64 = Transposed(beta, l, m)
	}
	par.Chunks(len(e.Shards), 1, func(s, _, _ int) {
		sh := e.Shards[s]
		e.ResidualRows(sh.H, l, sh.Hi-sh.Lo, b32, bt64, e.TC[sh.Lo:], n, out[sh.Lo:], n)
	})
}

// ResidualRows writes one row shard's part of E = T - H beta: h holds the
// shard's hidden outputs of (at least) the first l columns (node-major,
// rows of r images), b32 is beta rounded to float32 (used with float32
// Gram products), bt64 is beta^T (m x l, used otherwise), tc[q*ldt+i] is
// output q's target of the shard's image i, and out[q*ldo+i] receives its
// residual. residual calls it for each shard in memory, a streamed
// supervised fit for each row shard read (drive_stream_supervised.go):
// the same operations, so the same bits.
func (e *Gram) ResidualRows(h []float32, l, r int, b32 []float32, bt64 []float64, tc []float64, ldt int, out []float64, ldo int) {
	m := e.M
	p := make([]float64, m*r)
	if e.F32 {
		p32 := make([]float32, m*r)
		linalg.ProductTN32(l, m, r, b32, h, r, p32, r)
		for i, v := range p32 {
			p[i] = float64(v)
		}
	} else {
		w := make([]float64, l*r)
		for i, v := range h[:l*r] {
			w[i] = float64(v)
		}
		linalg.Dgemm(false, false, m, r, l, 1, bt64, l, w, r, 0, p, r)
	}
	for q := 0; q < m; q++ {
		tq, eq, pq := tc[q*ldt:q*ldt+r], out[q*ldo:q*ldo+r], p[q*r:(q+1)*r]
		for i := range eq {
			eq[i] = tq[i] - pq[i]
		}
	}
}
