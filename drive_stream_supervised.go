package scn

import (
	"context"
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
// pass over the stream per step (drive.RunStreamSupervised).
func (bb *blockBuilder) runStreamSupervised(ctx context.Context, progress func(Step)) (StopReason, error) {
	return drive.RunStreamSupervised(ctx, bb.spec(), streamOps{blockOps{bb}, &drawnNodes{}}, progress)
}

// streamOps are a streamed block builder's steps as
// drive.RunStreamSupervised calls them (drive.StreamOps).
type streamOps struct {
	blockOps
	nd *drawnNodes
}

func (o streamOps) DrawParams(k int, lambda float64) { o.bb.drawParams(k, lambda) }
func (o streamOps) StreamPairs(ctx context.Context, side int, lambda float64) (*pairDraw, error) {
	return o.bb.streamPairs(ctx, side, lambda)
}
func (o streamOps) Pass(ctx context.Context, resL int, beta []float64, k int, pd *pairDraw) (*streamSums, error) {
	o.nd.Params, o.nd.Bias = o.bb.params, o.bb.bias
	return o.bb.streamPass(ctx, o.nd, resL, beta, k, pd)
}
func (o streamOps) SetNorms(ee []float64) {
	o.bb.ee = ee
	o.bb.rss = floats.Sum(ee)
}
func (o streamOps) AddSummed(s *streamSums, k int, order []int) []bool {
	return o.bb.addSummed(s, k, order)
}
func (o streamOps) Solve() (int, []float64, error) {
	beta, err := o.bb.eng.Solve(o.bb.eng.L, o.bb.cfg.Ridge)
	return o.bb.eng.L, beta, err
}
func (o streamOps) RecordAt(steps []Step, progress func(Step)) bool {
	return o.bb.recordAt(steps, progress)
}
func (o streamOps) AddCounts(tried, rejected int) {
	o.bb.tried += tried
	o.bb.reject += rejected
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
