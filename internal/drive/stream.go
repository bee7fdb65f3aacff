package drive

import (
	"context"
	"time"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
	"github.com/scn2d/scn/internal/par"
	"gonum.org/v1/gonum/floats"
)

// Streamed supervised fits (FitStream for SCN and 2DSCN).
//
// The block path (RunBlocks and SupervisedBlock) reads the
// training images, per block step, to score the step's K candidates
// against the residual e = T - H beta (E^T H_C and diag(H_C^T H_C)) and,
// once the block is chosen, to form its Gram sums (H^T H_B and H_B^T T).
// A streamed fit keeps neither H nor the residual (N x L and N x m): one
// pass over the stream per step does all of it, row shard by row shard
// (the row shards of lsq.ShardRows images a fit in memory makes, whatever the
// source's shard sizes):
//
//   - the hidden outputs of the l nodes chosen so far on the shard's
//     images (Hidden: the bits scoring gave them when they were chosen),
//     then the shard's residual rows T - H beta (lsq.Gram.ResidualRows, the
//     engine's own step) and their e_q^T e_q;
//   - the outputs of the step's K candidates and their h^T h and e_q^T h
//     (node.CorrelateRows, as BlockCorrelations forms them);
//   - the products of each candidate with the l nodes and with the K
//     candidates, and its h^T T (lsq.Gram.Products with the K candidates
//     as one block after the l nodes: K x (l+K) sums).
//
// Every sum is reduced over the row shards in shard order, as the block
// path reduces it. After the pass the block is chosen as SupervisedBlock
// chooses it, and its rows of G are picked out of the candidates' sums:
// each product of two columns is the sum the block path forms for it, as
// both kernels (linalg.GemmNT64 and GramNT32) compute every element of a
// product from its two rows and the shard length alone, whatever the
// product's shape. The factor grows from them (growFactor, with
// addBlock's retry without dependent columns). So the model file is the
// same bytes as the block fit's in memory on the same images, with the
// exceptions of the random streamed fit (difference nodes drawn from the
// first MomentSample images; regression targets' T_q^T T_q, the residual
// the first block is scored against, summed per image). That holds for the
// project's kernels and gonum's (the default build, on every machine);
// OpenBLAS (-tags openblas) picks its dgemm and sgemm kernels by the
// call's shape, so with it a candidate's products may round otherwise
// than the block's: the streamed model then agrees with the fit in memory
// to rounding (tested: the same nodes, training RMSEs within 1e-6 and
// output weights within 1e-4 relative, float32 Gram products included),
// and could choose another node where two candidates tie to rounding.
//
// The cost: the first pass (Scan), then one pass per block step (a
// step that finds no admissible candidate at a scale takes one more per
// scale it tries), then one pass for the residual of the last block (the
// trace's RMSE and the model's training RMSE): ceil(L / BlockSize) + 2
// reads of the data with one scale (the fast and default presets). Each
// pass computes the outputs of every node so far again (l x d per image)
// and the products of K candidates instead of the block's b (K x (l+K)
// where the block path forms b x (l+b): Candidates times the Gram work).
// Peak memory: G (L x L), one row shard's outputs of every node and
// candidate ((L+K) x lsq.ShardRows float32), the candidates' sums K x (L+K)
// float64 (and one shard's part of them), the shard's residual, and the
// first MomentSample images; none of it grows with N.
//
// Progress: a block's steps are reported when the pass after it has
// measured its residual.

// RowsFunc reads a stream once and calls f with its images cut into the
// row shards of lsq.ShardRows images a fit in memory makes, in order: pix
// the row shard's r images, tc its targets by output (m rows of r).
type RowsFunc func(f func(pix []float32, r int, tc []float64) error) error

// CutRows cuts the shards a source hands to each (pix: k images of d
// values, t: their targets, k x m) into row shards of rows images and
// calls f with each, in order (RowsFunc's f), checking ctx after each full
// row shard. shards calls each once per source shard. If the source gave
// other than n images, CutRows returns mismatch(seen) without calling f
// with the last, partial row shard.
func CutRows(ctx context.Context, n, d, m int, shards func(each func(pix []float32, t []float64, k int) error) error, mismatch func(seen int) error, f func(pix []float32, r int, tc []float64) error) error {
	rows := min(n, lsq.ShardRows)
	pix := make([]float32, rows*d)
	tby := make([]float64, m*rows) // targets by output, rows apart
	filled, seen := 0, 0
	flush := func() error {
		if filled == 0 {
			return nil
		}
		tc := tby
		if filled < rows {
			tc = make([]float64, m*filled)
			for q := 0; q < m; q++ {
				copy(tc[q*filled:(q+1)*filled], tby[q*rows:q*rows+filled])
			}
		}
		r := filled
		filled = 0
		return f(pix[:r*d], r, tc)
	}
	err := shards(func(sp []float32, st []float64, k int) error {
		for i := 0; i < k; {
			take := min(k-i, rows-filled)
			copy(pix[filled*d:], sp[i*d:(i+take)*d])
			for r := 0; r < take; r++ {
				for q := 0; q < m; q++ {
					tby[q*rows+filled+r] = st[(i+r)*m+q]
				}
			}
			filled += take
			i += take
			if filled == rows {
				if err := flush(); err != nil {
					return err
				}
				if err := ctx.Err(); err != nil {
					return err
				}
			}
		}
		seen += k
		return nil
	})
	if err == nil && seen != n {
		err = mismatch(seen)
	}
	if err != nil {
		return err
	}
	return flush()
}

// StreamSums are the sums of one pass of a streamed supervised fit, each
// reduced over the row shards in order.
type StreamSums struct {
	EE     []float64 // e_q^T e_q of the pass's residual (m), if it formed one
	HH, EH []float64 // the candidates' h^T h (K) and e_q^T h (eh[q*K+j])
	Cross  []float64 // K x (l+K): candidate j's products with the l nodes, then with the K candidates
	HT     []float64 // K x m: candidate j's h^T T
}

// StreamPass is one pass of a streamed supervised fit over rows: on each
// row shard, the hidden outputs of the l nodes so far (hidden, node-major
// l rows of r), the residual of the first resL of them at output weights
// beta (resL x m; none if resL = 0) and its norms, and the sums of the k
// candidates of weights cw (k x d) and biases cb against that residual and
// against every node so far, with the engine e's products (e's TC and N
// set to each shard's during its sums, restored after). n is the stream's
// images, x the images' shape (its Pix unused).
//
// With pair candidates (pd not nil) the candidates' sums against the
// residual are taken from their pair products (PairDraw.Shard), their Gram
// sums from their exact outputs (their weights in cw).
func StreamPass(rows RowsFunc, e *lsq.Gram, act node.Activation, x Images, n, m, d, l, k, resL int, beta []float64, cw, cb []float32, pd *PairDraw, hidden func(r, l int, hs []float32), prof *Profile) (*StreamSums, error) {
	L := l + k
	rs := min(n, lsq.ShardRows)
	s := &StreamSums{
		EE: make([]float64, m), HH: make([]float64, k), EH: make([]float64, m*k),
		Cross: make([]float64, k*L), HT: make([]float64, k*m),
	}
	h := make([]float32, L*rs)
	var h64, g64 []float64
	var g32 []float32
	if e.F32 {
		g32 = make([]float32, k*L)
	} else {
		h64 = make([]float64, L*rs)
		g64 = make([]float64, k*L)
	}
	htp := make([]float64, k*m)
	res := make([]float64, m*rs)
	corr := make([]float64, k*(m+1))
	corrSum := make([]float64, k*(m+1))
	var b32 []float32
	var bt64 []float64
	if resL > 0 {
		b32 = make([]float32, resL*m)
		for i, v := range beta[:resL*m] {
			b32[i] = float32(v)
		}
		if !e.F32 {
			bt64 = lsq.Transposed(beta, resL, m)
		}
	}
	var zp []float32
	var psc node.PairScratch
	if pd != nil {
		zp = make([]float32, k*rs)
	}
	n0 := e.N
	defer func() { e.TC, e.N = nil, n0 }()
	err := rows(func(pix []float32, r int, tc []float64) error {
		hs := h[:L*r]
		if l > 0 {
			hidden(r, l, hs)
		}
		if k > 0 {
			t0 := time.Now()
			linalg.ScoreNT(k, r, d, cw, pix, hs[l*r:], r)
			par.Chunks(k, 8, func(_, lo, hi int) {
				for j := lo; j < hi; j++ {
					act.Apply(hs[(l+j)*r:(l+j+1)*r], cb[j])
				}
			})
			prof.Scoring += time.Since(t0)
		}
		// The shard's residual rows and their squared norms (the engine's
		// residual and updateResidual's sums, shard by shard).
		ev := tc
		if resL > 0 {
			e.ResidualRows(hs, resL, r, b32, bt64, tc, r, res, r)
			ev = res[:m*r]
			for q := 0; q < m; q++ {
				eq := ev[q*r : (q+1)*r]
				s.EE[q] += floats.Dot(eq, eq)
			}
		}
		if k == 0 {
			return nil
		}
		t1 := time.Now()
		zc := hs[l*r:]
		if pd != nil {
			zc = zp[:k*r]
			xs := x
			xs.Pix = pix
			pd.Shard(xs, 0, r, zc, r, &psc)
		}
		par.Chunks(k, 16, func(_, lo, hi int) {
			col := make([]float64, r)
			for j := lo; j < hi; j++ {
				zj := zc[j*r : (j+1)*r]
				if pd != nil {
					pd.Activation(act, j, zj)
				}
				node.CorrelateRows(zj, col, ev, r, m, corr, k, j)
			}
		})
		lsq.Reduce(corrSum, corr)
		prof.Selection += time.Since(t1)
		// The candidates' products with every column: the K candidates
		// as one block after the l nodes.
		t2 := time.Now()
		var w []float64
		if h64 != nil {
			w = h64[:L*r]
			par.Chunks(L*r, 1<<16, func(_, lo, hi int) {
				for i, v := range hs[lo:hi] {
					w[i+lo] = float64(v)
				}
			})
		}
		e.TC, e.N = tc, r
		e.Products(hs, nil, w, 0, r, l, k, g32, g64, htp)
		if e.F32 {
			lsq.Reduce32(s.Cross, g32)
		} else {
			lsq.Reduce(s.Cross, g64)
		}
		lsq.Reduce(s.HT, htp)
		prof.Ortho += time.Since(t2)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.EH, s.HH = corrSum[:k*m], corrSum[k*m:]
	return s, nil
}

// AddSummed adds the candidates order (indices into the pass's k
// candidates) to the engine e (m outputs) as one block from the pass's
// sums s, as the engine's AddBlock adds their columns: a block with a
// column dependent on those before it is retried without it. ok reports
// which went in.
func AddSummed(e *lsq.Gram, m int, s *StreamSums, k int, order []int) (ok []bool) {
	l0 := e.L
	L := l0 + k
	return lsq.AddDropping(len(order), func(idx []int) []bool {
		b := len(idx)
		l1 := l0 + b
		e.Reserve(l1)
		cross := make([]float64, b*l1)
		hbt := make([]float64, b*m)
		for a, i := range idx {
			row := s.Cross[order[i]*L : (order[i]+1)*L]
			copy(cross[a*l1:a*l1+l0], row[:l0])
			for c, i2 := range idx {
				cross[a*l1+l0+c] = row[l0+order[i2]]
			}
			copy(hbt[a*m:(a+1)*m], s.HT[order[i]*m:(order[i]+1)*m])
		}
		return e.GrowFactor(cross, hbt, b)
	})
}

// Scan is what the first pass of a streamed fit sums over the source's
// shards: the images N, T_q^T T_q per output (TT, summed image by image),
// the mean image (Mean, if asked for) and the first MomentSample images
// and their targets (HeadPix, HeadT).
type Scan struct {
	N       int
	TT      []float64
	Mean    *node.MeanImage
	HeadPix []float32
	HeadT   []float64
}

// NewScan returns the scan of a stream of images of d values and m
// outputs; mean asks for the mean image.
func NewScan(d, m int, mean bool) *Scan {
	s := &Scan{TT: make([]float64, m)}
	if mean {
		s.Mean = node.NewMeanImage(d)
	}
	return s
}

// Add adds a shard of n images pix (n x d) and targets t (n x m).
func (s *Scan) Add(pix []float32, t []float64, n, d, m int) {
	if s.Mean != nil {
		s.Mean.Add(pix, n)
	}
	for i := 0; i < n; i++ {
		for q := 0; q < m; q++ {
			v := t[i*m+q]
			s.TT[q] += v * v
		}
	}
	if take := min(n, MomentSample-len(s.HeadPix)/max(d, 1)); take > 0 {
		s.HeadPix = append(s.HeadPix, pix[:take*d]...)
		s.HeadT = append(s.HeadT, t[:take*m]...)
	}
	s.N += n
}

// StreamMoments returns the sums of the pair products of pd over a pass
// of rows (n images of x's shape): sum[j] of candidate j's inputs,
// sum[K+j] of their squares, each reduced over the row shards in order
// (PairDraw.Standardize's input).
func (pd *PairDraw) StreamMoments(rows RowsFunc, x Images, n int) ([]float64, error) {
	k := pd.K
	rs := min(n, lsq.ShardRows)
	z := make([]float32, k*rs)
	acc := make([]float64, 2*k)
	sum := make([]float64, 2*k)
	var psc node.PairScratch
	err := rows(func(pix []float32, r int, _ []float64) error {
		xs := x
		xs.Pix = pix
		pd.Shard(xs, 0, r, z[:k*r], r, &psc)
		pd.Moments(z[:k*r], r, acc)
		lsq.Reduce(sum, acc)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return sum, nil
}

// AccumulateRows is lsq.Gram.Accumulate of the blocks over a pass of rows
// (n images): each row shard passed to the engine e with its targets as
// the engine's own (lo = 0), in order; e's TC and N are set to each
// shard's during its sums, and N to n after.
func AccumulateRows(rows RowsFunc, e *lsq.Gram, blocks []int, n int, hidden func(lo, hi, j0, j1 int, h []float32)) error {
	ps := e.NewPass(blocks, min(n, lsq.ShardRows))
	err := rows(func(_ []float32, r int, tc []float64) error {
		e.TC, e.N = tc, r
		e.PassShard(ps, 0, r, hidden)
		return nil
	})
	e.TC, e.N = nil, n
	if err != nil {
		return err
	}
	e.EndPass(ps)
	return nil
}
