// Package memest is the arithmetic of the scn fits' memory estimates: the
// bytes a fit of global nodes allocates beyond its images and targets,
// part by part (Memory), from a description of the fit (Fit) that the root
// package fills from its Config and run options, with the buffer sizes
// its drivers use (Sizes); a streamed supervised fit's
// (Fit.StreamSupervised, stream.go); model selection's in memory and
// streamed (Selection); a fit of local nodes in memory and streamed, its
// augmentation and a local model's prediction (Local, Augment,
// LocalPredict, local.go); a global model's prediction (Predict) and the
// combination of a deep fit's layers' estimates (Deep, predict.go), whose
// layers' own estimates and a second layer of local nodes' stay in the
// root package beside the code whose buffers they count; the memory
// limit's shrink policy (Shrink, shrink.go: the block halved, then the
// candidates). FormatBytes renders byte counts for the messages that
// quote estimates and limits; Estimate (scn.Estimate) holds a fit's
// parts and their sums.
//
// It may import the standard library and internal/lsq (the engines'
// block and shard sizes) only; never the root package scn or any package
// above it.
package memest

import (
	"math"

	"github.com/scn2d/scn/internal/lsq"
)

// Memory is an estimate of the bytes a fit allocates beyond its training
// images and targets, by part, so that a caller can refuse a fit that
// would not fit in memory before starting it, and say which setting to
// change.
type Memory struct {
	// Candidates is one batch of candidates: their parameters, weights over
	// the image and hidden outputs on every image (float32 and float64).
	// It grows with T_max (Candidates) for supervised learners. A one-pass
	// block fit (random nodes with a ridge) holds all its nodes' parameters
	// and weights over the image instead, and scores them shard by shard.
	Candidates int64
	// Factor is the least-squares state: Q (N x min(L, N) float64), R, the
	// residual and the targets by output. For block fits: G with its
	// Cholesky factor (L x L float64), the block's sums, and H (N x L
	// float32); a one-pass block fit keeps no H, only the hidden outputs of
	// one row shard for every node and the pass's per-goroutine products.
	Factor int64
	// Solve is the solve past rank, with more nodes than images: H
	// (N x L) and its SVD, or H^T H (L x L) with a ridge term.
	Solve int64
	// Model is the fitted model: hidden parameters, biases, output weights
	// and the per-node trace.
	Model int64
}

// Total returns the sum of the parts.
func (e Memory) Total() int64 { return SatAdd(e.Candidates, e.Factor, e.Solve, e.Model) }

// Sizes are the buffer sizes of the drivers that an estimate counts.
type Sizes struct {
	RandomBlock  int // random nodes drawn and scored at a time (one node at a time fits)
	CorrChunk    int // images per chunk of the correlations' partial sums
	WeightChunk  int // nodes whose weights over the image a one-pass fit forms at a time
	MomentSample int // images standardisation reads
	PredictBatch int // images whose hidden outputs are formed at a time
	Workers      int // goroutines (GOMAXPROCS)
}

// Fit describes a fit of global nodes for its estimate.
type Fit struct {
	N, Rows, Cols, Chans, M int
	Nodes                   int  // L_max
	Params                  int  // parameters per node
	Supervised              bool // supervised node choice
	Candidates              int  // T_max
	Block                   bool // block by block (the Gram engine)
	Ridge                   bool // a ridge term above 0
	OnePass                 bool // a one-pass (or staged) block fit
	BlockSize               int
	BF16Gram, Float32Gram   bool
	Pairs, Standardize      bool
	Sizes                   Sizes
}

// Estimate returns the bytes of the fit f.
func (f Fit) Estimate() Memory {
	chans := max(f.Chans, 1)
	N, M := float64(max(f.N, 1)), float64(max(f.M, 1))
	d1 := float64(max(f.Rows, 1))
	d := float64(chans) * d1 * float64(max(f.Cols, 1))
	L := float64(max(f.Nodes, 1))
	np := float64(f.Params)
	var e Memory
	k := float64(f.Sizes.RandomBlock)
	if f.Supervised {
		k = float64(max(f.Candidates, 1))
	}
	// cp, cw (float32), z (float32), then z64 (supervised) or hb (random),
	// both float64, and the per-chunk sums of the correlations.
	chunks := math.Ceil(N / float64(f.Sizes.CorrChunk))
	// (The buffers are made with room to grow, which stays untouched and
	// so takes no memory.)
	e.Candidates = BytesOf(4*k*np + 4*k*d + 4*k*N + 8*k*N + 8*chunks*k*(M+1) + 8*N)
	// Q is stored in blocks of qBlockCols columns; R holds L(L+1)/2 values.
	lq := math.Min(L, N)
	lqBlocks := math.Ceil(lq/lsq.QBlockCols) * lsq.QBlockCols
	e.Factor = BytesOf(8*N*lqBlocks + 8*lq*(lq+1)/2 + 8*lq*M + 3*8*N*M)
	if f.Block {
		e.Candidates, e.Factor = f.blockMemory(N, d, d1, np, M, L)
	}
	// A block fit with a ridge solves past rank in its engine.
	if L > N && !(f.Block && f.Ridge) {
		// Past rank (L > N) the output weights are the minimum-norm
		// solution over all hidden columns: H (N x L, with the columns a
		// supervised fit keeps beside it), the SVD's copy of it, U (N x k)
		// and V (L x k), k = min(N, L); with a ridge term H^T H (L x L)
		// instead of the SVD.
		kk := math.Min(N, L)
		if f.Ridge {
			e.Solve = BytesOf(2*8*N*L + 8*L*L + 8*L*M)
		} else {
			e.Solve = BytesOf(3*8*N*L + 8*N*kk + 8*L*kk + 8*L*M)
		}
		// The hidden outputs are computed in batches of images: W (L x d).
		e.Solve = SatAdd(e.Solve, BytesOf(4*L*d+4*L*float64(f.Sizes.PredictBatch)))
	}
	const stepBytes = 64
	// The parameters, biases and output weights, and the model file's
	// bytes when it is written.
	e.Model = BytesOf(2*(4*L*np+4*L+8*L*M) + stepBytes*L)
	return e
}

// blockMemory returns the candidates' and the least-squares state's bytes
// of a block fit (the root package's block and one-pass drivers,
// internal/lsq's Gram engine) on N images of d pixels (d1 rows), np
// parameters per node, M outputs and L_max = L.
func (f Fit) blockMemory(N, d, d1, np, M, L float64) (cand, factor int64) {
	b := math.Min(float64(max(f.BlockSize, 1)), L)
	rows := math.Min(N, float64(lsq.ShardRows))
	shards := math.Ceil(N / rows)
	// G and its factor share one L x L array; a block's sums (b x L) are
	// formed in a scratch array and reduced into another; the targets are
	// kept by output, H^T T is L x m.
	ls := 8*L*L + 2*8*b*L + 8*N*M + 8*L*M
	if f.OnePass {
		// One shard's outputs of every node (and their float64 copy for
		// float64 Gram products); each goroutine forms one block's
		// products at a time (b x L, float32 or float64).
		pass := 4 * L * rows
		perWorker := 4 * b * L
		switch {
		case f.BF16Gram:
			// The shard's outputs packed in bfloat16, computed a chunk
			// of nodes at a time; the shard's part of H^T T.
			pass = 2*L*rows + 4*math.Min(L, lsq.BF16PassChunk)*rows + 8*L*M
		case !f.Float32Gram:
			pass += 8 * L * rows
			perWorker = 8 * b * L
		}
		workers := math.Min(float64(f.Sizes.Workers), math.Ceil(L/b))
		// Every node's parameters and bias; the weights over the image of
		// one block (as drawn) and of the nodes being scored.
		nodes := 4*L*np + 4*L + 4*b*(np+d) + 4*math.Min(float64(f.Sizes.WeightChunk), L)*d + f.momentBytes(N, d, b)
		return BytesOf(nodes), BytesOf(ls + pass + workers*perWorker)
	}
	// H in float32 in the shards (and one shard's float64 copy for
	// float64 Gram products).
	ls += 4 * N * L
	switch {
	case f.BF16Gram:
		ls += 2 * L * rows // a shard's outputs packed in bfloat16
	case !f.Float32Gram:
		ls += 8 * L * rows
	}
	k := b
	if f.Supervised {
		k = float64(max(f.Candidates, 1)) * b
		if f.Pairs {
			side := math.Ceil(math.Sqrt(k))
			k = side * side
		}
		// The residual by output, and the accepted columns.
		ls += 8*N*M + 4*b*N
	}
	// Parameters, weights, outputs on every image (pair scoring keeps
	// them a shard at a time on each goroutine), and the per-shard
	// correlations.
	out := 4 * k * N
	if f.Pairs {
		// Per goroutine scoring a shard: its pair products, its images
		// transposed (pixel-major: d per image) and the row products X v
		// (d1 x side per image); the pair scoring's scratch (internal/drive's pairs.go). The column
		// vectors expanded across the channels (side x d / d1).
		workers := math.Min(float64(f.Sizes.Workers), shards)
		side := math.Ceil(math.Sqrt(k))
		out = workers*4*rows*(k+d+d1*side) + 2*4*side*(d/d1)
	}
	moments := 0.0
	if !f.Pairs {
		moments = f.momentBytes(N, d, k) // pair scoring standardises from its own pass
	}
	// Weights over the image: of every candidate, or with pair scoring
	// only of the block's accepted ones (exactColumns).
	weights := 4 * k * d
	if f.Pairs {
		weights = 4 * b * d
	}
	cand = BytesOf(4*k*np + weights + out + 8*shards*k*(M+1) + moments)
	return cand, BytesOf(ls)
}

// momentBytes is what standardising k drawn candidates takes: the mean
// image (d float32) and their inputs on the first MomentSample images
// (k x min(N, MomentSample) float32), linear in the pixels.
func (f Fit) momentBytes(N, d, k float64) float64 {
	if !f.Standardize {
		return 0
	}
	return 4*d + 4*k*math.Min(N, float64(f.Sizes.MomentSample))
}

// SatAdd adds byte counts, saturating at MaxInt64/2.
func SatAdd(v ...int64) int64 {
	var s int64
	for _, x := range v {
		s += x
		if s >= math.MaxInt64/2 || x >= math.MaxInt64/2 {
			return math.MaxInt64 / 2
		}
	}
	return s
}

// BytesOf rounds a byte count up, saturating at MaxInt64/2.
func BytesOf(b float64) int64 {
	if !(b < math.MaxInt64/2) {
		return math.MaxInt64 / 2
	}
	return int64(math.Ceil(b))
}
