package scn

import (
	"time"

	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/node"
)

// Pair scoring of 2D candidates (Config.Pairs): the kernels are
// internal/node's (ScorePairs, PairShard, whose doc says how the pair
// products share work); the block driver's pair steps are
// internal/drive's (DrawPairs, PairCandidates, ExactColumns), on the
// block builder's state here.

// scorePairs is node.ScorePairs on the images x.
func scorePairs(x Images, u []float32, tu int, v []float32, tv int, z []float32) {
	node.ScorePairs(x.Pix, x.Len(), x.Rows, x.Cols, x.Chans(), u, tu, v, tv, z)
}

// pairDraw is a batch of pair candidates as drawn (drive.PairDraw).
type pairDraw = drive.PairDraw

// driveImages is x as internal/drive reads images.
func driveImages(x Images) drive.Images {
	return drive.Images{Pix: x.Pix, N: x.Len(), Rows: x.Rows, Cols: x.Cols, Ch: x.Chans()}
}

// pairCandidates draws tu row vectors and tv column vectors at scale lambda
// and returns the statistics of all tu x tv pairs as candidates (candidate
// j = t*tu + s is the pair (u_s, v_t)): h_j^T h_j and e_q^T h_j (eh[q*k+j])
// against the residual (drive.PairCandidates). The accepted ones' outputs
// are computed again by exactColumns.
func (bb *blockBuilder) pairCandidates(tu, tv int, lambda float64) (hh, eh []float64) {
	t0 := time.Now()
	pd := bb.drawPairs(tu, tv, lambda)
	return drive.PairCandidates(pd, driveImages(bb.x), bb.eng.Shards, bb.e, bb.m, node.Activation(bb.cfg.Activation),
		bb.cfg.Standardize, lambda, bb.np, bb.cp, bb.cb, t0, &bb.prof)
}

// drawPairs draws tu row vectors and tv column vectors at scale lambda and
// the bias of each of their tu x tv pairs into bb.cp and bb.cb
// (drive.DrawPairs).
func (bb *blockBuilder) drawPairs(tu, tv int, lambda float64) *pairDraw {
	k := tu * tv
	bb.k = k
	bb.cp = grow(bb.cp, k*bb.np)
	bb.cb = grow(bb.cb, k)
	return drive.DrawPairs(bb.rng, nodeSpec(bb.cfg), bb.diffs, driveImages(bb.x), tu, tv, lambda, bb.np, bb.cp, bb.cb)
}

// standardizePairs centres and scales each pair candidate to spread lambda
// from its inputs' sums over the bb.n training images
// (drive.PairDraw.Standardize).
func (bb *blockBuilder) standardizePairs(pd *pairDraw, sum []float64, lambda float64) {
	pd.Standardize(sum, lambda, bb.n, bb.x.Rows, bb.np, bb.cp, bb.cb)
}

// exactColumns returns the hidden outputs (len(idx) rows of N) of the
// candidates idx, computed from their parameters with the kernel that
// predicts (drive.ExactColumns).
func (bb *blockBuilder) exactColumns(idx []int) []float32 {
	return drive.ExactColumns(bb.nm, node.Activation(bb.cfg.Activation), driveImages(bb.x), bb.d, bb.np, bb.cp, bb.cb, idx, &bb.hb32, &bb.prof)
}
