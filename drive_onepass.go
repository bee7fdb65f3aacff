package scn

import (
	"context"

	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
)

// One-pass block fits: see internal/drive's onepass.go (RunOnePass,
// RunStaged); this file holds the choice of the path and the block
// builder's steps those loops call.

// onePassFits is false only in tests that compare the one-pass path with
// the block-by-block one.
var onePassFits = true

// onePass reports whether a fit of c takes the one-pass path: a block fit
// of random nodes with a ridge.
func (c Config) onePass() bool {
	return onePassFits && c.blockMode() && c.Kind.Choice == Random && c.Ridge > 0
}

// drawnNodes are the nodes of a one-pass fit, drawn before the pass
// (drive.Drawn).
type drawnNodes = drive.Drawn

// weightChunk is the nodes whose weights hidden forms and scores at a time
// (drive.WeightChunk).
const weightChunk = drive.WeightChunk

// hidden writes the hidden outputs of the drawn nodes [j0, j1) on the
// images [lo, hi) into h (node-major: j1-j0 rows of hi-lo). Each output is
// the bits score gives it (ScoreNT computes every output alone, whatever
// the batch of nodes and images, and so does the activation): drive.Hidden.
func (bb *blockBuilder) hidden(nd *drawnNodes, lo, hi, j0, j1 int, h []float32) {
	drive.Hidden(bb.nm, node.Activation(bb.cfg.Activation), bb.d, bb.np, nd.Params, nd.Bias, bb.x.Pix, &nd.W, lo, hi, j0, j1, h, &bb.prof)
}

// runOnePass is run for the fits that take one pass (onePass,
// drive.RunOnePass; in stages with runOpts.stages, drive.RunStaged).
func (bb *blockBuilder) runOnePass(ctx context.Context, progress func(Step)) (StopReason, error) {
	return drive.RunOnePass(ctx, bb.spec(), onePassOps{blockOps{bb}}, progress)
}

// onePassOps are the block builder's steps as the one-pass loops call them
// (drive.OnePassOps).
type onePassOps struct{ blockOps }

func (o onePassOps) NP() int               { return o.bb.np }
func (o onePassOps) Engine() *lsq.Gram     { return o.bb.eng }
func (o onePassOps) Deficient() bool       { return o.bb.deficient }
func (o onePassOps) Streamed() bool        { return o.bb.stream != nil }
func (o onePassOps) Stages() func(int) int { return o.bb.opts.stages }
func (o onePassOps) DrawBatch(b int, lambda float64) ([]float32, []float32) {
	o.bb.drawParams(b, lambda)
	return o.bb.cp, o.bb.cb
}
func (o onePassOps) SetBatch(cp, cb []float32)       { o.bb.cp, o.bb.cb = cp, cb }
func (o onePassOps) SetNodes(params, bias []float32) { o.bb.params, o.bb.bias = params, bias }
func (o onePassOps) ScoreBatch(b int) []float32 {
	bb := o.bb
	bb.cw = grow(bb.cw, b*bb.d)
	for j := 0; j < b; j++ {
		bb.nm.Weight(bb.cp[j*bb.np:(j+1)*bb.np], bb.cw[j*bb.d:(j+1)*bb.d])
	}
	bb.score(b)
	return bb.z[:b*bb.n]
}
func (o onePassOps) RandomSteps(b int, lambda float64, ok []bool) []Step {
	return o.bb.randomSteps(b, lambda, ok)
}
func (o onePassOps) Hidden(nd *drawnNodes, lo, hi, j0, j1 int, h []float32) {
	o.bb.hidden(nd, lo, hi, j0, j1, h)
}
func (o onePassOps) AccumulateStream(ctx context.Context, nd *drawnNodes, hidden func(lo, hi, j0, j1 int, h []float32)) error {
	return o.bb.accumulateStream(ctx, nd, hidden)
}
