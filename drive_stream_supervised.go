package scn

import (
	"context"
	"runtime"
	"time"

	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
	"gonum.org/v1/gonum/floats"
)

// Streamed supervised fits (FitStream for SCN and 2DSCN).
//
// The block path (run and supervisedBlock, drive_block.go) reads the
// training images, per block step, to score the step's K candidates
// against the residual e = T - H beta (E^T H_C and diag(H_C^T H_C)) and,
// once the block is chosen, to form its Gram sums (H^T H_B and H_B^T T).
// A streamed fit keeps neither H nor the residual (N x L and N x m): one
// pass over the stream per step does all of it, row shard by row shard
// (the row shards of lsq.ShardRows images a fit in memory makes, whatever the
// source's shard sizes):
//
//   - the hidden outputs of the l nodes chosen so far on the shard's
//     images (hidden: the bits scoring gave them when they were chosen),
//     then the shard's residual rows T - H beta (residualRows, the
//     engine's own step) and their e_q^T e_q;
//   - the outputs of the step's K candidates and their h^T h and e_q^T h
//     (correlateRows, as correlations forms them);
//   - the products of each candidate with the l nodes and with the K
//     candidates, and its h^T T (lsq.Gram.Products with the K candidates
//     as one block after the l nodes: K x (l+K) sums).
//
// Every sum is reduced over the row shards in shard order, as the block
// path reduces it. After the pass the block is chosen as supervisedBlock
// chooses it, and its rows of G are picked out of the candidates' sums:
// each product of two columns is the sum the block path forms for it, as
// both kernels (linalg.GemmNT64 and GramNT32) compute every element of a
// product from its two rows and the shard length alone, whatever the
// product's shape. The factor grows from them (growFactor, with
// addBlock's retry without dependent columns). So the model file is the
// same bytes as the block fit's in memory on the same images, with the
// exceptions of the random streamed fit (difference nodes drawn from the
// first momentSample images; regression targets' T_q^T T_q, the residual
// the first block is scored against, summed per image). That holds for the
// project's kernels and gonum's (the default build, on every machine);
// OpenBLAS (-tags openblas) picks its dgemm and sgemm kernels by the
// call's shape, so with it a candidate's products may round otherwise
// than the block's: the streamed model then agrees with the fit in memory
// to rounding (tested: the same nodes, training RMSEs within 1e-6 and
// output weights within 1e-4 relative, float32 Gram products included),
// and could choose another node where two candidates tie to rounding.
//
// The cost: the first pass (scanStream), then one pass per block step (a
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
// first momentSample images; none of it grows with N.
//
// Progress: a block's steps are reported when the pass after it has
// measured its residual.

// streamSums are the sums of one pass of a streamed supervised fit
// (drive.StreamSums).
type streamSums = drive.StreamSums

// streamPass reads the stream once (see above, and drive.StreamPass): the
// residual of the first resL nodes at output weights beta (resL x m; none
// if resL = 0), and the sums of the k candidates in bb.cw, bb.cb against
// it and against every node so far (nd: bb.params and bb.bias). With pair
// candidates (pd not nil) the candidates' sums against the residual are
// taken from their pair products, their Gram sums from their exact outputs
// (their weights in bb.cw, as exactColumns computes them).
func (bb *blockBuilder) streamPass(ctx context.Context, nd *drawnNodes, resL int, beta []float64, k int, pd *pairDraw) (*streamSums, error) {
	rows := func(f func(pix []float32, r int, tc []float64) error) error {
		return bb.streamRows(ctx, func(r int, tc []float64) error { return f(bb.x.Pix, r, tc) })
	}
	hidden := func(r, l int, hs []float32) { bb.hidden(nd, 0, r, 0, l, hs) }
	return drive.StreamPass(rows, bb.eng, node.Activation(bb.cfg.Activation), driveImages(bb.x), bb.scan.n, bb.m, bb.d, bb.nodes(), k,
		resL, beta, bb.cw, bb.cb, pd, hidden, &bb.prof)
}

// addSummed adds the candidates order (indices into the pass's K
// candidates) as one block from the pass's sums (drive.AddSummed).
func (bb *blockBuilder) addSummed(s *streamSums, k int, order []int) (ok []bool) {
	return drive.AddSummed(bb.eng, bb.m, s, k, order)
}

// runStreamSupervised is run for a streamed supervised fit (see the top of
// this file): the same block steps, candidates, choices and stops, one
// pass over the stream per step.
func (bb *blockBuilder) runStreamSupervised(ctx context.Context, progress func(Step)) (StopReason, error) {
	c := bb.cfg
	bs := max(c.BlockSize, 1)
	nd := &drawnNodes{}
	var (
		resL     int       // the nodes the residual is formed from
		resBeta  []float64 // and their output weights
		stale    bool      // a block was added since the residual's norms were measured
		pending  []Step    // the last block's steps, waiting for its residual
		si       int       // the scale the step tries
		tried    int       // candidates the step tried so far
		rejected int
	)
	for {
		if err := ctx.Err(); err != nil {
			return Cancelled, err
		}
		l := bb.nodes()
		b := min(bs, c.MaxNodes-l)
		// run's check before a step, when the residual's norms are known
		// (else after the pass that measures them).
		if !stale && (b == 0 || bb.rmse() <= c.Tolerance) {
			break
		}
		k := 0
		var lambda float64
		var pd *pairDraw
		if b > 0 {
			lambda = c.Scales[si]
			k = c.Candidates * b
			if c.Pairs {
				side := node.PairSide(k)
				var err error
				if pd, err = bb.streamPairs(ctx, side, lambda); err != nil {
					return streamStop(err), err
				}
				k = pd.K
			} else {
				bb.drawParams(k, lambda)
			}
		}
		nd.params, nd.bias = bb.params, bb.bias
		sums, err := bb.streamPass(ctx, nd, resL, resBeta, k, pd)
		if err != nil {
			return streamStop(err), err
		}
		bb.prof.Products += int64(k)
		bb.prof.Batches++
		// The pass's buffers (a shard's outputs of every node and
		// candidate, a shard's products) are garbage now: collected at
		// once, as run collects after each block, the heap stays near the
		// estimate (G, the candidates' sums) instead of growing to twice
		// it.
		runtime.GC()
		if stale {
			bb.ee = sums.EE
			bb.rss = floats.Sum(sums.EE)
			stale = false
			if bb.recordAt(pending, progress) {
				return NoValidationGain, nil
			}
			pending = nil
		}
		if k == 0 || bb.rmse() <= c.Tolerance {
			break
		}
		// supervisedBlock's choice, from the pass's sums.
		t0 := time.Now()
		tried += k
		order, ratio := bb.chooseBlock(sums.HH, sums.EH, k, b)
		bb.prof.Selection += time.Since(t0)
		var steps []Step
		if len(order) > 0 {
			t1 := time.Now()
			var refused int
			steps, refused = bb.acceptAdded(order, bb.addSummed(sums, k, order), lambda, ratio)
			rejected += refused
			bb.prof.Ortho += time.Since(t1)
		}
		if len(steps) == 0 {
			// The next scale, in another pass.
			si++
			if si == len(c.Scales) {
				bb.tried += tried
				bb.reject += rejected
				return NoAdmissible, nil
			}
			continue
		}
		steps[0].Tried, steps[0].Rejected = tried, rejected
		bb.tried += tried
		bb.reject += rejected
		si, tried, rejected = 0, 0, 0
		// updateResidual: the output weights of every node at the ridge,
		// the residual's norms measured by the next pass; should the
		// solve fail, the residual stays as it was and the steps are
		// recorded at once with its RMSE.
		if beta, err := bb.eng.Solve(bb.eng.L, c.Ridge); err == nil {
			resL, resBeta, stale, pending = bb.eng.L, beta, true, steps
		} else if bb.recordAt(steps, progress) {
			return NoValidationGain, nil
		}
	}
	if bb.rmse() <= c.Tolerance {
		return ReachedTolerance, nil
	}
	return ReachedMaxNodes, nil
}

// recordAt records steps (a block's) with the current training RMSE, as
// run records them after updateResidual; it returns record's answer.
func (bb *blockBuilder) recordAt(steps []Step, progress func(Step)) bool {
	if len(steps) == 0 {
		return false
	}
	rmse := bb.rmse()
	for i := range steps {
		steps[i].RMSE = rmse
	}
	return bb.record(steps, progress)
}

// streamPairs draws side x side pair candidates at scale lambda as
// pairCandidates draws them, standardises them (with Standardize) from
// their inputs' sums over a pass of their own over the stream, and leaves
// their exact weights over the image in bb.cw.
func (bb *blockBuilder) streamPairs(ctx context.Context, side int, lambda float64) (*pairDraw, error) {
	t0 := time.Now()
	pd := bb.drawPairs(side, side, lambda)
	k, d := pd.K, bb.d
	if bb.cfg.Standardize {
		rows := min(bb.scan.n, lsq.ShardRows)
		z := make([]float32, k*rows)
		acc := make([]float64, 2*k)
		sum := make([]float64, 2*k)
		var psc pairScratch
		err := bb.streamRows(ctx, func(r int, _ []float64) error {
			pd.Shard(driveImages(bb.x), 0, r, z[:k*r], r, &psc)
			pd.Moments(z[:k*r], r, acc)
			lsq.Reduce(sum, acc)
			return nil
		})
		if err != nil {
			return nil, err
		}
		bb.standardizePairs(pd, sum, lambda)
	}
	bb.cw = grow(bb.cw, k*d)
	for j := 0; j < k; j++ {
		bb.nm.Weight(bb.cp[j*bb.np:(j+1)*bb.np], bb.cw[j*d:(j+1)*d])
	}
	bb.prof.Draw += time.Since(t0)
	return pd, nil
}
