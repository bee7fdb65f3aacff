package scn

import (
	"context"
	"time"

	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/node"
	"gonum.org/v1/gonum/floats"
)

// Streamed supervised fits (FitStream for SCN and 2DSCN): the essay, the
// pass's sums and the loop are internal/drive's (StreamPass,
// RunStreamSupervised); here, the block builder's steps those call.

// streamSums are the sums of one pass of a streamed supervised fit
// (drive.StreamSums).
type streamSums = drive.StreamSums

// runStreamSupervised is run for a streamed supervised fit: the same
// block steps, candidates, choices and stops, one pass over the stream
// per step (drive.RunStreamSupervised).
func (bb *blockBuilder) runStreamSupervised(ctx context.Context, progress func(Step)) (StopReason, error) {
	return drive.RunStreamSupervised(ctx, bb.Spec, streamOps{bb.Block, bb, &drawnNodes{}}, progress)
}

// streamOps are a streamed block builder's steps as
// drive.RunStreamSupervised calls them (drive.StreamOps).
type streamOps struct {
	*drive.Block
	bb *blockBuilder
	nd *drawnNodes
}

func (o streamOps) DrawParams(k int, lambda float64) { o.bb.DrawParams(k, lambda) }
func (o streamOps) StreamPairs(ctx context.Context, side int, lambda float64) (*pairDraw, error) {
	return o.bb.streamPairs(ctx, side, lambda)
}

// Pass reads the stream once (drive.StreamPass): the residual of the
// first resL nodes at output weights beta (resL x m; none if resL = 0),
// and the sums of the k candidates in bb.CW, bb.CB against it and
// against every node so far. With pair candidates (pd not nil) the
// candidates' sums against the residual are taken from their pair
// products, their Gram sums from their exact outputs (their weights in
// bb.CW, as exactColumns computes them).
func (o streamOps) Pass(ctx context.Context, resL int, beta []float64, k int, pd *pairDraw) (*streamSums, error) {
	bb, nd := o.bb, o.nd
	nd.Params, nd.Bias = bb.Params, bb.Bias
	hidden := func(r, l int, hs []float32) { bb.Hidden(nd, 0, r, 0, l, hs) }
	return drive.StreamPass(bb.rowsFunc(ctx), bb.Eng, node.Activation(bb.cfg.Activation), driveImages(bb.x), bb.scan.n, bb.M, bb.D, bb.Nodes(), k,
		resL, beta, bb.CW, bb.CB, pd, hidden, &bb.Profile)
}
func (o streamOps) SetNorms(ee []float64) {
	o.bb.EE = ee
	o.bb.RSS = floats.Sum(ee)
}
func (o streamOps) AddSummed(s *streamSums, k int, order []int) []bool {
	return drive.AddSummed(o.bb.Eng, o.bb.M, s, k, order)
}
func (o streamOps) Solve() (int, []float64, error) {
	beta, err := o.bb.Eng.Solve(o.bb.Eng.L, o.bb.cfg.Ridge)
	return o.bb.Eng.L, beta, err
}

// RecordAt records steps (a block's) with the current training RMSE, as
// run records them after updateResidual; it returns record's answer.
func (o streamOps) RecordAt(steps []Step, progress func(Step)) bool {
	if len(steps) == 0 {
		return false
	}
	rmse := o.bb.RMSE()
	for i := range steps {
		steps[i].RMSE = rmse
	}
	return o.bb.Record(steps, progress)
}
func (o streamOps) AddCounts(tried, rejected int) {
	o.bb.Tried += tried
	o.bb.Reject += rejected
}

// streamPairs draws side x side pair candidates at scale lambda as
// pairCandidates draws them, standardises them (with Standardize) from
// their inputs' sums over a pass of their own over the stream, and leaves
// their exact weights over the image in bb.CW.
func (bb *blockBuilder) streamPairs(ctx context.Context, side int, lambda float64) (*pairDraw, error) {
	t0 := time.Now()
	pd := bb.DrawPairs(side, side, lambda)
	k, d := pd.K, bb.D
	if bb.cfg.Standardize {
		sum, err := pd.StreamMoments(bb.rowsFunc(ctx), driveImages(bb.x), bb.scan.n)
		if err != nil {
			return nil, err
		}
		bb.StandardizePairs(pd, sum, lambda)
	}
	bb.CW = grow(bb.CW, k*d)
	for j := 0; j < k; j++ {
		bb.NM.Weight(bb.CP[j*bb.NP:(j+1)*bb.NP], bb.CW[j*d:(j+1)*d])
	}
	bb.Profile.Draw += time.Since(t0)
	return pd, nil
}
