package scn

import (
	"math"

	"github.com/scn2d/scn/internal/lsq"
)

// EstimateStreamMemory returns the bytes a FitStream of c on images of
// rows x cols with m outputs allocates (the source's own buffers aside):
// for a random learner, the fit's state at momentSample images (G, one
// row shard's outputs of every node, the nodes); for a supervised one,
// what a block step's pass holds (streamSupervisedBytes); and the first
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
	keep := float64(momentSample + lsq.ShardRows)
	fit := c.estimate(momentSample, rows, cols, chans, m, nil).FitBytes()
	if c.Kind.Choice == Supervised {
		fit = c.streamSupervisedBytes(rows, cols, chans, m)
	}
	return satAdd(fit, bytesOf(keep*(4*d+8*float64(max(m, 1)))))
}

// streamSupervisedBytes is what a streamed supervised fit allocates beside
// the images it keeps (drive_stream_supervised.go): G with its factor
// (L x L) and H^T T; a block step's K candidates (parameters, weights over
// the image, their inputs on the first momentSample images when
// standardised); one row shard's outputs of every node and candidate
// ((L+K) x lsq.ShardRows float32, and float64 with float64 Gram products, as
// the residual's product takes them too); the candidates' sums K x (L+K)
// float64 and one shard's part of them; the shard's residual; pair
// candidates' products and scratch on one shard; the block's sums; the
// model.
func (c Config) streamSupervisedBytes(rows, cols, chans, m int) int64 {
	chans = max(chans, 1)
	d1 := float64(max(rows, 1))
	d := float64(chans) * d1 * float64(max(cols, 1))
	M := float64(max(m, 1))
	L := float64(max(c.MaxNodes, 1))
	np := d
	if c.Kind.Input == Matrix {
		np = float64(newNodeMap(Matrix, max(rows, 1), max(cols, 1), chans).Size())
	}
	b := math.Min(float64(max(c.BlockSize, 1)), L)
	k := float64(max(c.Candidates, 1)) * b
	side := 0.0
	if c.Pairs {
		side = math.Ceil(math.Sqrt(k))
		k = side * side
	}
	r := float64(lsq.ShardRows)
	lk := L + k
	engine := 8*L*L + 8*L + 2*8*L*M + 2*8*b*L
	cand := 4*k*np + 4*k*d + 4*k + 4*weightChunk*d
	if c.Standardize && !c.Pairs {
		cand += 4*d + 4*k*momentSample
	}
	shard := 4*lk*r + 8*M*r*2
	part := 4 * k * lk
	if !c.Float32Gram && !c.BF16Gram {
		shard += 8*lk*r + 8*L*r
		part = 8 * k * lk
	}
	sums := 8*k*lk + part + 8*k*M*2 + 8*k*(M+1)*2
	if c.Pairs {
		// The pair products of one shard (and of the standardising pass),
		// the shard's images transposed and its row products.
		shard += 2*4*k*r + 4*d*r + 4*d1*side*r
	}
	model := 2*(4*L*np+4*L+8*L*M) + 64*L
	return bytesOf(engine + cand + shard + sums + model)
}
