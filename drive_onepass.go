package scn

import (
	"context"

	"github.com/scn2d/scn/internal/drive"
)

// One-pass block fits: see internal/drive's onepass.go (RunOnePass,
// RunStaged) and builder.go (OnePass: the block builder's steps those
// loops call); this file holds the choice of the path.

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

// runOnePass is run for the fits that take one pass (onePass,
// drive.RunOnePass; in stages with runOpts.stages, drive.RunStaged).
func (bb *blockBuilder) runOnePass(ctx context.Context, progress func(Step)) (StopReason, error) {
	o := drive.OnePass{Block: bb.Block, StagesOf: bb.opts.stages}
	if bb.stream != nil {
		o.Stream = bb.accumulateStream
	}
	return drive.RunOnePass(ctx, bb.Spec, o, progress)
}
