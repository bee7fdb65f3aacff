package scn

import (
	"context"
	"time"

	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
)

// Block increments (Dai, Li, Zhou, Chai, Information Sciences 484 (2019)
// 367-386): the choice and the loops are internal/drive's (blockrun.go:
// RunBlocks, SupervisedBlock; block.go: ChooseBlock), and so are the block
// builder's state and steps (builder.go: Block); this file makes one from
// a configuration and a problem, and its path.

// blockBuilder is the state of a block fit: internal/drive's Block with
// the configuration and images it was made from.
type blockBuilder struct {
	*drive.Block
	cfg    Config
	x      Images
	opts   runOpts     // how the fit runs (runOpts)
	stream Source      // a streamed fit's training set (FitStream), else nil
	scan   *streamScan // what the streamed fit's first pass found
}

func newBlockBuilder(c Config, p Problem, o runOpts) *blockBuilder {
	bb := newBlockBuilderOn(c, p, lsq.NewGramH(p.T, p.X.Len(), p.M, c.Ridge, c.Float32Gram || c.BF16Gram, c.MaxNodes, c.mode(o) != modeOnePass))
	bb.opts = o
	if o.check != nil {
		bb.Check = func() bool { return o.check(bb.partial()) }
	}
	return bb
}

// newBlockBuilderOn is newBlockBuilder with the engine eng (a streamed
// fit's, empty, for the whole stream: p then holds its first images).
func newBlockBuilderOn(c Config, p Problem, eng *lsq.Gram) *blockBuilder {
	nm := newNodeMap(c.Kind.Input, p.X.Rows, p.X.Cols, p.X.Channels)
	if v, ok := nm.(vectorMap); ok {
		nm = fieldVector{Vector: v, Rows: p.X.Rows, Cols: p.X.Cols, Ch: p.X.Chans()}
	}
	n := p.X.Len()
	bb := &blockBuilder{Block: drive.NewBlock(eng, n, p.X.Dim(), p.M, nm, newRand(c.Seed), c.Kind.Choice == Supervised, c.BF16Gram), x: p.X}
	bb.Img = func() drive.Images { return driveImages(bb.x) }
	bb.setConfig(c)
	if c.Standardize {
		bb.XBar, bb.NS = meanImage(p.X), min(n, momentSample)
	}
	if c.Differences {
		bb.Diffs = newDiffSource(p)
	}
	return bb
}

// setConfig makes c the configuration of the nodes the builder adds.
func (bb *blockBuilder) setConfig(c Config) {
	bb.cfg = c
	bb.Spec = drive.BlockSpec{
		Supervised: c.Kind.Choice == Supervised, MaxNodes: c.MaxNodes, BlockSize: c.BlockSize,
		Candidates: c.Candidates, Tolerance: c.Tolerance, Ridge: c.Ridge, Scales: c.Scales, Pairs: c.Pairs,
	}
	bb.Ratios, bb.Act, bb.Node, bb.Matrix = c.Ratios, node.Activation(c.Activation), nodeSpec(c), c.Kind.Input == Matrix
}

// Grow adds blocks of nodes until a stopping rule holds (drive.RunBlocks,
// or drive.RunOnePass for the fits that can take one pass over the data).
func (bb *blockBuilder) Grow(ctx context.Context, progress func(Step)) (StopReason, error) {
	if bb.cfg.mode(bb.opts) == modeOnePass {
		return bb.runOnePass(ctx, progress)
	}
	return drive.RunBlocks(ctx, bb.Spec, bb.Block, progress)
}

// meanImage returns the mean of the images of x, pixel by pixel
// (node.MeanImage).
func meanImage(x Images) []float32 {
	mi := node.NewMeanImage(x.Dim())
	mi.Add(x.Pix, x.Len())
	return mi.Mean()
}

// momentSample is the images the spread of a standardised node is
// measured on (drive.MomentSample).
const momentSample = drive.MomentSample

// partial returns the path of the nodes so far, without output weights.
func (bb *blockBuilder) partial() *Path {
	if bb.T == nil {
		bb.T = lsq.Transposed(bb.Eng.TC, bb.M, bb.N)
	}
	return partialPath(bb.cfg, bb.x, bb.M, bb.Params, bb.Bias, len(bb.Bias), bb.NP, bb.Eng, bb.T, bb.Eng.L, bb.Deficient, bb.Independent)
}

// path assembles the fitted model of a block fit and its path.
func (bb *blockBuilder) path(stop StopReason) (*Path, error) {
	t0 := time.Now()
	s := Summary{Nodes: len(bb.Bias), Samples: bb.N, Stop: stop, TrainRMSE: bb.RMSE(), Tried: bb.Tried, Rejected: bb.Reject, Trace: bb.Trace}
	return finishPath(bb.partial(), s, bb.cfg, &bb.Profile, t0)
}

// pairDraw is a batch of pair candidates as drawn (drive.PairDraw).
type pairDraw = drive.PairDraw

// driveImages is x as internal/drive reads images.
func driveImages(x Images) drive.Images {
	return drive.Images{Pix: x.Pix, N: x.Len(), Rows: x.Rows, Cols: x.Cols, Ch: x.Chans()}
}
