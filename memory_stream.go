package scn

import (
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/memest"
)

// EstimateStreamMemory returns the bytes a FitStream of c on images of
// rows x cols with m outputs allocates (the source's own buffers aside):
// for a random learner, the fit's state at momentSample images (G, one
// row shard's outputs of every node, the nodes); for a supervised one,
// what a block step's pass holds; and the first
// momentSample images it keeps and one row shard of images and targets.
// It does not grow with N.
//
// Deprecated: use Config.EstimateStream, which takes the set's Shape; its
// Stream is this estimate.
func (c Config) EstimateStreamMemory(rows, cols, m int) int64 {
	return c.streamBytes(rows, cols, 1, m)
}

// EstimateStreamMemoryC is EstimateStreamMemory for images of chans planes
// (colour: 3).
//
// Deprecated: use Config.EstimateStream, which takes the set's Shape; its
// Stream is this estimate.
func (c Config) EstimateStreamMemoryC(rows, cols, chans, m int) int64 {
	return c.streamBytes(rows, cols, chans, m)
}

// streamBytes is EstimateStream's Stream: EstimateStreamMemoryC.
func (c Config) streamBytes(rows, cols, chans, m int) int64 {
	if c.mode(runOpts{}) == modeLocal {
		return c.localStreamBytes(rows, cols, chans, m)
	}
	d := float64(max(rows, 1)) * float64(max(cols, 1)) * float64(max(chans, 1))
	fit := c.estimate(momentSample, rows, cols, chans, m, nil).FitBytes()
	if c.Kind.Choice == Supervised {
		// What a block step's pass holds (drive_stream_supervised.go: G
		// with its factor, a block step's candidates, one row shard's
		// outputs, the candidates' sums, the model; internal/memest's
		// Fit.StreamSupervised).
		fit = c.memFit(0, rows, cols, chans, m, runOpts{}).StreamSupervised()
	}
	return memest.SatAdd(fit, memest.StreamKeep(momentSample+lsq.ShardRows, d, m))
}
