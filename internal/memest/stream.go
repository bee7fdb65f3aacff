package memest

import (
	"math"

	"github.com/scn2d/scn/internal/lsq"
)

// StreamSupervised returns what a streamed supervised fit of global nodes
// allocates beside the images it keeps, from the description f (its N is
// not used: the estimate does not grow with N): G with its factor (L x L)
// and H^T T; a block step's K candidates (parameters, weights over the
// image, their inputs on the first MomentSample images when standardised);
// one row shard's outputs of every node and candidate ((L+K) x
// lsq.ShardRows float32, and float64 with float64 Gram products, as the
// residual's product takes them too); the candidates' sums K x (L+K)
// float64 and one shard's part of them; the shard's residual; pair
// candidates' products and scratch on one shard; the block's sums; the
// model.
func (f Fit) StreamSupervised() int64 {
	chans := max(f.Chans, 1)
	d1 := float64(max(f.Rows, 1))
	d := float64(chans) * d1 * float64(max(f.Cols, 1))
	M := float64(max(f.M, 1))
	L := float64(max(f.Nodes, 1))
	np := float64(f.Params)
	b := math.Min(float64(max(f.BlockSize, 1)), L)
	k := float64(max(f.Candidates, 1)) * b
	side := 0.0
	if f.Pairs {
		side = math.Ceil(math.Sqrt(k))
		k = side * side
	}
	r := float64(lsq.ShardRows)
	lk := L + k
	engine := 8*L*L + 8*L + 2*8*L*M + 2*8*b*L
	cand := 4*k*np + 4*k*d + 4*k + 4*float64(f.Sizes.WeightChunk)*d
	if f.Standardize && !f.Pairs {
		cand += 4*d + 4*k*float64(f.Sizes.MomentSample)
	}
	shard := 4*lk*r + 8*M*r*2
	part := 4 * k * lk
	if !f.Float32Gram && !f.BF16Gram {
		shard += 8*lk*r + 8*L*r
		part = 8 * k * lk
	}
	sums := 8*k*lk + part + 8*k*M*2 + 8*k*(M+1)*2
	if f.Pairs {
		// The pair products of one shard (and of the standardising pass),
		// the shard's images transposed and its row products.
		shard += 2*4*k*r + 4*d*r + 4*d1*side*r
	}
	model := 2*(4*L*np+4*L+8*L*M) + 64*L
	return BytesOf(engine + cand + shard + sums + model)
}

// Selection describes model selection on top of a fit for its estimates.
type Selection struct {
	N, Rows, Cols, Chans, M int
	Nodes                   int     // L_max
	Folds                   int     // k of k-fold cross-validation (<= 1: a hold-out share)
	Validation              float64 // the held-out share
	GridPairs               int     // (l, alpha) pairs of the grid a streamed selection keeps weights for
	PredictBatch            int     // images whose hidden outputs are formed at a time
}

// Bytes returns what selection in memory takes on top of the fit (the
// direct links' features aside): the images and targets of the split,
// the held-out hidden outputs (kept while scoring, and twice more for the
// final weights: a copy and its transpose for their Gram matrix), three
// L x L matrices (the normal equations, their factor for one ridge term,
// and the final solve's), and the nodes' weights over the image that
// scoring expands with a batch of outputs. A hold-out holds out its share
// rounded up per class (at most M more images); k-fold a fold, counted as
// every image.
func (s Selection) Bytes() int64 {
	held := int64(s.N)
	if s.Folds <= 1 {
		held = int64(math.Ceil(s.Validation*float64(s.N))) + int64(s.M)
	}
	l := int64(s.Nodes)
	d := int64(max(s.Chans, 1)) * int64(s.Rows) * int64(s.Cols)
	return int64(s.N)*(d*4+int64(s.M)*8) + 3*held*l*8 + 3*l*l*8 + 4*l*(d+int64(s.PredictBatch))
}

// Stream returns what a streamed selection takes beside the streamed fit:
// the split (the labels and the held-out mark, 17 bytes per image while
// it is made), the held-out normal equations (L x L and L x M float64),
// the output weights of every pair of the grid, the nodes' weights over
// the image and a batch of hidden outputs (float32, and float64 twice),
// and the refit's normal equations and factor (two L x L).
func (s Selection) Stream() int64 {
	L := float64(max(s.Nodes, 1))
	M := float64(max(s.M, 1))
	d := float64(max(s.Chans, 1)) * float64(max(s.Rows, 1)) * float64(max(s.Cols, 1))
	pairs := float64(s.GridPairs)
	return BytesOf(17*float64(s.N) + 3*8*L*L + 8*L*M + 8*pairs*L*M + 4*L*d + (4+8+8)*L*float64(s.PredictBatch))
}
