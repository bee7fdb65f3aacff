package scn

import (
	"runtime"

	"github.com/scn2d/scn/internal/memest"
)

// Memory is an estimate of the bytes a fit allocates beyond its training
// images and targets, by part (Candidates, Factor, Solve, Model; Total
// sums them), so that a caller can refuse a fit that would not fit in
// memory before starting it, and say which setting to change. The
// arithmetic of a fit of global nodes is internal/memest's.
type Memory = memest.Memory

// EstimateMemory returns the bytes a fit with c on n grey images of
// rows x cols with m outputs allocates beyond the images and targets
// themselves (the estimate follows the builder's buffers; small ones are
// left out): EstimateMemoryC with one channel.
//
// Deprecated: use Config.Estimate, which takes the set's Shape; its Fit
// is this estimate.
func (c Config) EstimateMemory(n, rows, cols, m int) Memory {
	return c.EstimateMemoryC(n, rows, cols, 1, m)
}

// EstimateMemoryC is EstimateMemory for images of chans planes of
// rows x cols (d = chans*rows*cols values each; a matrix node has
// rows+cols+chans parameters with chans > 1).
//
// Deprecated: use Config.Estimate, which takes the set's Shape; its Fit
// is this estimate.
func (c Config) EstimateMemoryC(n, rows, cols, chans, m int) Memory {
	return c.estimate(n, rows, cols, chans, m, nil).Fit
}

// estimateMemory is EstimateMemoryC of a fit run with o.
func (c Config) estimateMemory(n, rows, cols, chans, m int, o runOpts) Memory {
	switch c.mode(o) {
	case modeDeep:
		return c.deepMemory(n, rows, cols, chans, m)
	case modeLocal:
		return c.localMemory(n, rows, cols, chans, m)
	}
	return c.memFit(n, rows, cols, chans, m, o).Estimate()
}

// memFit describes a fit of c's global nodes run with o for memest
// (Fit.Estimate; a streamed supervised fit's Fit.StreamSupervised).
func (c Config) memFit(n, rows, cols, chans, m int, o runOpts) memest.Fit {
	chans = max(chans, 1)
	np := chans * max(rows, 1) * max(cols, 1)
	if c.Kind.Input == Matrix {
		np = newNodeMap(Matrix, max(rows, 1), max(cols, 1), chans).Size()
	}
	return memest.Fit{
		N: n, Rows: rows, Cols: cols, Chans: chans, M: m,
		Nodes: c.MaxNodes, Params: np, Supervised: c.Kind.Choice == Supervised, Candidates: c.Candidates,
		Block: c.blockMode(), Ridge: c.Ridge > 0, OnePass: c.mode(o) == modeOnePass, BlockSize: c.BlockSize,
		BF16Gram: c.BF16Gram, Float32Gram: c.Float32Gram, Pairs: c.Pairs, Standardize: c.Standardize,
		Sizes: driverSizes(),
	}
}

// driverSizes are the drivers' buffer sizes that memory estimates count.
func driverSizes() memest.Sizes {
	return memest.Sizes{
		RandomBlock: randomBlockSize, CorrChunk: corrChunk, WeightChunk: weightChunk,
		MomentSample: momentSample, PredictBatch: predictBatch, Workers: runtime.GOMAXPROCS(0),
	}
}

// EstimateBytes returns EstimateMemory(n, rows, cols, m).Total().
//
// Deprecated: use Config.Estimate, which takes the set's Shape.
func (c Config) EstimateBytes(n, rows, cols, m int) int64 {
	return c.estimate(n, rows, cols, 1, m, nil).Fit.Total()
}

// EstimateBytesC returns EstimateMemoryC(n, rows, cols, chans, m).Total(),
// with the direct links' features (Config.DirectLink).
//
// Deprecated: use Config.Estimate, which takes the set's Shape; its
// FitBytes is this estimate.
func (c Config) EstimateBytesC(n, rows, cols, chans, m int) int64 {
	return c.estimate(n, rows, cols, chans, m, nil).FitBytes()
}

// PredictBytes returns the bytes Predict allocates for n images beyond the
// images themselves: the outputs, and one pass's working memory (a chunk
// of hidden outputs in float32 and float64, the outputs of the pass, and
// Score2D's packed nodes, with one more chunk of node inputs for a 2D model
// of several channels), which does not grow with L (a deep model's pass
// holds every layer's outputs; internal/memest's Predict).
func (m *Model) PredictBytes(n int) int64 {
	if m.Local != nil {
		return m.localPredictBytes(n)
	}
	pr := memest.Predict{
		N: n, Nodes: m.Nodes(), M: m.M, Rows: m.Rows, Cols: m.Cols, Chans: m.Chans(),
		Deep: m.IsDeep(), Matrix: m.Kind.Input == Matrix, NodeChunk: predictNodeChunk, Batch: predictBatch,
	}
	if pr.Deep {
		pr.Width = max(len(m.Bias), m.deepNodes())
	}
	return pr.Bytes()
}

// deepMemory is EstimateMemory of a deep configuration: the first layer's
// fit with room for every layer's columns, and for each further layer its
// candidates on the previous layer's outputs with those outputs copied as
// its input (N x L_{k-1} float32); the largest of the candidates counts
// (memest.Deep).
func (c Config) deepMemory(n, rows, cols, chans, m int) Memory {
	return memest.Deep(n, c.MaxNodes, c.Layers, func(total, prev, k int) Memory {
		if k == 0 {
			first := c
			first.Layers, first.MaxNodes = nil, total
			return first.estimateMemory(n, rows, cols, chans, m, runOpts{blockByBlock: true})
		}
		lc := c.layerConfig()
		lc.MaxNodes = total
		return lc.estimateMemory(n, 1, prev, 1, m, runOpts{blockByBlock: true})
	})
}
