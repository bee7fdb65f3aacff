package scn

import (
	"math"
	"runtime"

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
func (e Memory) Total() int64 { return satAdd(e.Candidates, e.Factor, e.Solve, e.Model) }

// EstimateMemory returns the bytes a fit with c on n grey images of
// rows x cols with m outputs allocates beyond the images and targets
// themselves (the estimate follows the builder's buffers; small ones are
// left out): EstimateMemoryC with one channel.
func (c Config) EstimateMemory(n, rows, cols, m int) Memory {
	return c.EstimateMemoryC(n, rows, cols, 1, m)
}

// EstimateMemoryC is EstimateMemory for images of chans planes of
// rows x cols (d = chans*rows*cols values each; a matrix node has
// rows+cols+chans parameters with chans > 1).
func (c Config) EstimateMemoryC(n, rows, cols, chans, m int) Memory {
	return c.estimateMemory(n, rows, cols, chans, m, runOpts{})
}

// estimateMemory is EstimateMemoryC of a fit run with o.
func (c Config) estimateMemory(n, rows, cols, chans, m int, o runOpts) Memory {
	if len(c.Layers) > 0 {
		return c.deepMemory(n, rows, cols, chans, m)
	}
	if c.Local != nil {
		return c.localMemory(n, rows, cols, chans, m)
	}
	chans = max(chans, 1)
	N, M := float64(max(n, 1)), float64(max(m, 1))
	d1 := float64(max(rows, 1))
	d := float64(chans) * d1 * float64(max(cols, 1))
	L := float64(max(c.MaxNodes, 1))
	np := d
	if c.Kind.Input == Matrix {
		np = float64(newNodeMap(Matrix, max(rows, 1), max(cols, 1), chans).Size())
	}
	var e Memory
	k := float64(randomBlockSize)
	if c.Kind.Choice == Supervised {
		k = float64(max(c.Candidates, 1))
	}
	// cp, cw (float32), z (float32), then z64 (supervised) or hb (random),
	// both float64, and the per-chunk sums of the correlations.
	chunks := math.Ceil(N / corrChunk)
	// (The buffers are made with room to grow, which stays untouched and
	// so takes no memory.)
	e.Candidates = bytesOf(4*k*np + 4*k*d + 4*k*N + 8*k*N + 8*chunks*k*(M+1) + 8*N)
	// Q is stored in blocks of qBlockCols columns; R holds L(L+1)/2 values.
	lq := math.Min(L, N)
	lqBlocks := math.Ceil(lq/lsq.QBlockCols) * lsq.QBlockCols
	e.Factor = bytesOf(8*N*lqBlocks + 8*lq*(lq+1)/2 + 8*lq*M + 3*8*N*M)
	if c.blockMode() {
		e.Candidates, e.Factor = c.blockMemory(N, d, d1, np, M, L, o)
	}
	// A block fit with a ridge solves past rank in its engine.
	if L > N && !(c.blockMode() && c.Ridge > 0) {
		// Past rank (L > N) the output weights are the minimum-norm
		// solution over all hidden columns: H (N x L, with the columns a
		// supervised fit keeps beside it), the SVD's copy of it, U (N x k)
		// and V (L x k), k = min(N, L); with a ridge term H^T H (L x L)
		// instead of the SVD.
		kk := math.Min(N, L)
		if c.Ridge > 0 {
			e.Solve = bytesOf(2*8*N*L + 8*L*L + 8*L*M)
		} else {
			e.Solve = bytesOf(3*8*N*L + 8*N*kk + 8*L*kk + 8*L*M)
		}
		// The hidden outputs are computed in batches of images: W (L x d).
		e.Solve = satAdd(e.Solve, bytesOf(4*L*d+4*L*predictBatch))
	}
	const stepBytes = 64
	// The parameters, biases and output weights, and the model file's
	// bytes when it is written.
	e.Model = bytesOf(2*(4*L*np+4*L+8*L*M) + stepBytes*L)
	return e
}

// blockMemory returns the candidates' and the least-squares state's bytes
// of a block fit (drive_block.go, internal/lsq, drive_onepass.go) on N images of d pixels
// (d1 rows), np parameters per node, M outputs and L_max = L.
func (c Config) blockMemory(N, d, d1, np, M, L float64, o runOpts) (cand, factor int64) {
	b := math.Min(float64(max(c.BlockSize, 1)), L)
	rows := math.Min(N, float64(lsq.ShardRows))
	shards := math.Ceil(N / rows)
	// G and its factor share one L x L array; a block's sums (b x L) are
	// formed in a scratch array and reduced into another; the targets are
	// kept by output, H^T T is L x m.
	ls := 8*L*L + 2*8*b*L + 8*N*M + 8*L*M
	if c.onePassWith(o) {
		// One shard's outputs of every node (and their float64 copy for
		// float64 Gram products); each goroutine forms one block's
		// products at a time (b x L, float32 or float64).
		pass := 4 * L * rows
		perWorker := 4 * b * L
		switch {
		case c.BF16Gram:
			// The shard's outputs packed in bfloat16, computed a chunk
			// of nodes at a time; the shard's part of H^T T.
			pass = 2*L*rows + 4*math.Min(L, lsq.BF16PassChunk)*rows + 8*L*M
		case !c.Float32Gram:
			pass += 8 * L * rows
			perWorker = 8 * b * L
		}
		workers := math.Min(float64(runtime.GOMAXPROCS(0)), math.Ceil(L/b))
		// Every node's parameters and bias; the weights over the image of
		// one block (as drawn) and of the nodes being scored.
		nodes := 4*L*np + 4*L + 4*b*(np+d) + 4*math.Min(weightChunk, L)*d + c.momentBytes(N, d, b)
		return bytesOf(nodes), bytesOf(ls + pass + workers*perWorker)
	}
	// H in float32 in the shards (and one shard's float64 copy for
	// float64 Gram products).
	ls += 4 * N * L
	switch {
	case c.BF16Gram:
		ls += 2 * L * rows // a shard's outputs packed in bfloat16
	case !c.Float32Gram:
		ls += 8 * L * rows
	}
	k := b
	if c.Kind.Choice == Supervised {
		k = float64(max(c.Candidates, 1)) * b
		if c.Pairs {
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
	if c.Pairs {
		// Per goroutine scoring a shard: its pair products, its images
		// transposed (pixel-major: d per image) and the row products X v
		// (d1 x side per image); pairShard's scratch. The column
		// vectors expanded across the channels (side x d / d1).
		workers := math.Min(float64(runtime.GOMAXPROCS(0)), shards)
		side := math.Ceil(math.Sqrt(k))
		out = workers*4*rows*(k+d+d1*side) + 2*4*side*(d/d1)
	}
	moments := 0.0
	if !c.Pairs {
		moments = c.momentBytes(N, d, k) // pair scoring standardises from its own pass
	}
	// Weights over the image: of every candidate, or with pair scoring
	// only of the block's accepted ones (exactColumns).
	weights := 4 * k * d
	if c.Pairs {
		weights = 4 * b * d
	}
	cand = bytesOf(4*k*np + weights + out + 8*shards*k*(M+1) + moments)
	return cand, bytesOf(ls)
}

// momentBytes is what standardising k drawn candidates takes: the mean
// image (d float32) and their inputs on the first momentSample images
// (k x min(N, momentSample) float32), linear in the pixels.
func (c Config) momentBytes(N, d, k float64) float64 {
	if !c.Standardize {
		return 0
	}
	return 4*d + 4*k*math.Min(N, momentSample)
}

// EstimateBytes returns EstimateMemory(n, rows, cols, m).Total().
func (c Config) EstimateBytes(n, rows, cols, m int) int64 {
	return c.EstimateMemory(n, rows, cols, m).Total()
}

// EstimateBytesC returns EstimateMemoryC(n, rows, cols, chans, m).Total().
func (c Config) EstimateBytesC(n, rows, cols, chans, m int) int64 {
	total := c.EstimateMemoryC(n, rows, cols, chans, m).Total()
	if c.DirectLink {
		total += directBytes(n, rows, cols, chans, c.MaxNodes) // direct.go
	}
	return total
}

// PredictBytes returns the bytes Predict allocates for n images beyond the
// images themselves: the outputs, and one pass's working memory (a chunk
// of hidden outputs in float32 and float64, the outputs of the pass, and
// Score2D's packed nodes, with one more chunk of node inputs for a 2D model
// of several channels), which does not grow with L (a deep model's pass
// holds every layer's outputs).
func (m *Model) PredictBytes(n int) int64 {
	if m.Local != nil {
		return m.localPredictBytes(n)
	}
	c := float64(min(m.Nodes(), predictNodeChunk))
	if m.IsDeep() {
		// Every layer's outputs of a pass, and a layer's transposed input.
		c = float64(m.Nodes()) + float64(max(len(m.Bias), m.deepNodes()))/3
	}
	pack := 4 * (c + 32) * float64(m.Rows+m.Cols)
	if m.Kind.Input == Matrix && m.Chans() > 1 {
		pack += 4 * c * predictBatch
	}
	return bytesOf(8*float64(n)*float64(m.M) + (4+8)*c*predictBatch + 8*float64(m.M)*predictBatch + pack)
}

// satAdd adds byte counts, saturating at MaxInt64/2.
func satAdd(v ...int64) int64 {
	var s int64
	for _, x := range v {
		s += x
		if s >= math.MaxInt64/2 || x >= math.MaxInt64/2 {
			return math.MaxInt64 / 2
		}
	}
	return s
}

// deepMemory is EstimateMemory of a deep configuration: the first layer's
// fit with room for every layer's columns, and for each further layer its
// candidates on the previous layer's outputs with those outputs copied as
// its input (N x L_{k-1} float32); the largest of the candidates counts.
func (c Config) deepMemory(n, rows, cols, chans, m int) Memory {
	total, prev := c.MaxNodes, c.MaxNodes
	for _, l := range c.Layers {
		total += l
	}
	first := c
	first.Layers, first.MaxNodes = nil, total
	e := first.estimateMemory(n, rows, cols, chans, m, runOpts{blockByBlock: true})
	for _, l := range c.Layers {
		lc := c.layerConfig()
		lc.MaxNodes = total
		le := lc.estimateMemory(n, 1, prev, 1, m, runOpts{blockByBlock: true})
		e.Candidates = max(e.Candidates, satAdd(le.Candidates, bytesOf(4*float64(max(n, 1))*float64(prev))))
		prev = l
	}
	return e
}
