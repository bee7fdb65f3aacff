package scn

import (
	"math"
	"sync"
	"time"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
)

// Pair scoring of 2D candidates (Config.Pairs): the kernels are
// internal/node's (ScorePairs, PairShard, whose doc says how the pair
// products share work); this file holds the block driver's pair steps.

// scorePairs is node.ScorePairs on the images x.
func scorePairs(x Images, u []float32, tu int, v []float32, tv int, z []float32) {
	node.ScorePairs(x.Pix, x.Len(), x.Rows, x.Cols, x.Chans(), u, tu, v, tv, z)
}

// pairScratch is one goroutine's buffers for pairShard.
type pairScratch = node.PairScratch

// pairShard is node.PairShard on the images [lo, hi) of x.
func pairShard(x Images, lo, hi int, ut []float32, tu int, vt []float32, tv int, out []float32, ldo int, sc *pairScratch) {
	node.PairShard(x.Pix, x.Rows, x.Cols, x.Chans(), lo, hi, ut, tu, vt, tv, out, ldo, sc)
}

// pairCandidates draws tu row vectors and tv column vectors at scale lambda
// and returns the statistics of all tu x tv pairs as candidates (candidate
// j = t*tu + s is the pair (u_s, v_t)): h_j^T h_j and e_q^T h_j (eh[q*k+j])
// against the residual, as correlations does for drawn candidates. Their
// outputs are never stored whole: each shard's pair products are formed,
// put through the activation and reduced to the shard's sums, then dropped
// (the accepted ones are computed again by exactColumns). Standardised
// candidates are centred and scaled to spread lambda with their inputs'
// mean and spread over the training images, from a first pass over the
// shards.
func (bb *blockBuilder) pairCandidates(tu, tv int, lambda float64) (hh, eh []float64) {
	c := bb.cfg
	m := bb.m
	t0 := time.Now()
	pd := bb.drawPairs(tu, tv, lambda)
	k := pd.k
	shards := bb.eng.Shards
	pool := sync.Pool{New: func() any { return new(pairScratch) }}
	outs := sync.Pool{New: func() any { return new([]float32) }}
	products := func(s int) ([]float32, func()) {
		sh := shards[s]
		sc := pool.Get().(*pairScratch)
		buf := outs.Get().(*[]float32)
		*buf = grow(*buf, k*(sh.Hi-sh.Lo))
		pairShard(bb.x, sh.Lo, sh.Hi, pd.ut, tu, pd.vt, tv, *buf, sh.Hi-sh.Lo, sc)
		pool.Put(sc)
		return *buf, func() { outs.Put(buf) }
	}
	t1 := time.Now()
	// Pass one (standardised nodes): each candidate's mean and spread.
	if c.Standardize {
		part := make([]float64, len(shards)*2*k)
		forChunks(len(shards), 1, func(s, _, _ int) {
			z, done := products(s)
			defer done()
			pd.moments(z, shards[s].Hi-shards[s].Lo, part[s*2*k:(s+1)*2*k])
		})
		sum := make([]float64, 2*k)
		for s := range shards {
			lsq.Reduce(sum, part[s*2*k:(s+1)*2*k])
		}
		bb.standardizePairs(pd, sum, lambda)
	}
	// Pass two: the activations and their sums against the residual.
	size := k * (m + 1)
	part := make([]float64, len(shards)*size)
	forChunks(len(shards), 1, func(s, _, _ int) {
		z, done := products(s)
		defer done()
		sh := shards[s]
		r := sh.Hi - sh.Lo
		acc := part[s*size : (s+1)*size]
		col := make([]float64, r)
		for j := 0; j < k; j++ {
			zj := z[j*r : (j+1)*r]
			bb.pairActivation(pd, j, zj)
			bb.correlate(zj, col, sh, acc, k, j)
		}
	})
	sum := make([]float64, size)
	for s := range shards {
		lsq.Reduce(sum, part[s*size:(s+1)*size])
	}
	bb.prof.Draw += t1.Sub(t0)
	bb.prof.Scoring += time.Since(t1)
	bb.prof.Products += int64(tv) // stage one: tv full products per pass
	bb.prof.Batches++
	return sum[k*m:], sum[:k*m]
}

// pairDraw is a batch of pair candidates as drawn (drawPairs): U^T and
// V^T for pairShard, the random part of each bias, and, once
// standardised, each candidate's input mean and scale (0: left as drawn).
type pairDraw struct {
	tu, tv, k   int
	ut, vt      []float32
	b0          []float32
	scale, mean []float64
}

// drawPairs draws tu row vectors and tv column vectors at scale lambda and
// the bias of each of their tu x tv pairs (candidate j = t*tu + s is the
// pair (u_s, v_t)), into bb.cp and bb.cb: the first part of
// pairCandidates, whose random numbers it draws in their order.
func (bb *blockBuilder) drawPairs(tu, tv int, lambda float64) *pairDraw {
	c := bb.cfg
	d1, d2 := bb.x.Rows, bb.x.Cols
	k := tu * tv
	bb.k = k
	bb.cp = grow(bb.cp, k*bb.np)
	bb.cb = grow(bb.cb, k)
	mm := matrixMap{Rows: d1, Cols: d2, Ch: bb.x.Chans()}
	np := mm.Size()
	nv := np - d1 // v, then the channel weights w if any
	u := make([]float32, tu*d1)
	v := make([]float32, tv*nv)
	tmp := make([]float32, np)
	for s := 0; s < tu; s++ {
		drawNode(bb.rng, mm, c, lambda, tmp, bb.diffs)
		copy(u[s*d1:], tmp[:d1])
	}
	for t := 0; t < tv; t++ {
		drawNode(bb.rng, mm, c, lambda, tmp, bb.diffs)
		copy(v[t*nv:], tmp[d1:])
	}
	pd := &pairDraw{tu: tu, tv: tv, k: k, b0: make([]float32, k), scale: make([]float64, k), mean: make([]float64, k)}
	for t := 0; t < tv; t++ {
		for s := 0; s < tu; s++ {
			j := t*tu + s
			p := bb.cp[j*bb.np : (j+1)*bb.np]
			copy(p[:d1], u[s*d1:(s+1)*d1])
			copy(p[d1:], v[t*nv:(t+1)*nv])
			pd.b0[j] = float32(lambda * (2*bb.rng.Float64() - 1))
			bb.cb[j] = pd.b0[j]
		}
	}
	pd.ut, pd.vt = lsq.Transposed(u, tu, d1), lsq.Transposed(node.ExpandChannels(v, tv, d2, mm.Ch), tv, mm.Ch*d2)
	return pd
}

// moments writes one shard's sums of the pair products z (k rows of r
// images) into acc: acc[j] = sum of candidate j's inputs, acc[k+j] the sum
// of their squares.
func (pd *pairDraw) moments(z []float32, r int, acc []float64) {
	k := pd.k
	for j := 0; j < k; j++ {
		var s1, s2 float64
		for _, x := range z[j*r : (j+1)*r] {
			s1 += float64(x)
			s2 += float64(x) * float64(x)
		}
		acc[j], acc[k+j] = s1, s2
	}
}

// standardizePairs centres and scales each pair candidate to spread lambda
// from its inputs' sums over the bb.n training images (moments, reduced
// over the shards): its parameters in bb.cp and bias in bb.cb, its scale
// and mean in pd.
func (bb *blockBuilder) standardizePairs(pd *pairDraw, sum []float64, lambda float64) {
	k, n, d1 := pd.k, bb.n, bb.x.Rows
	for j := 0; j < k; j++ {
		mu := sum[j] / float64(n)
		sd := math.Sqrt(max(sum[k+j]/float64(n)-mu*mu, 0))
		if sd*sd > 1e-10*(sd*sd+mu*mu) && !math.IsInf(sd, 0) {
			pd.scale[j], pd.mean[j] = lambda/sd, mu
			scaleNode(Matrix, bb.cp[j*bb.np:(j+1)*bb.np], d1, pd.scale[j])
			bb.cb[j] = float32(float64(pd.b0[j]) - pd.scale[j]*mu)
		}
	}
}

// pairActivation turns candidate j's pair products zj into its outputs:
// standardised as standardizePairs found, then the activation.
func (bb *blockBuilder) pairActivation(pd *pairDraw, j int, zj []float32) {
	if pd.scale[j] > 0 {
		for i, x := range zj {
			zj[i] = float32((float64(x) - pd.mean[j]) * pd.scale[j])
		}
	}
	bb.cfg.Activation.applyRow(zj, pd.b0[j])
}

// exactColumns returns the hidden outputs (len(idx) rows of N) of the
// candidates idx, computed from their parameters with the kernel that
// predicts, so that they are the model's bits.
func (bb *blockBuilder) exactColumns(idx []int) []float32 {
	k, n, d := len(idx), bb.n, bb.d
	w := make([]float32, k*d)
	for i, j := range idx {
		bb.nm.Weight(bb.cp[j*bb.np:(j+1)*bb.np], w[i*d:(i+1)*d])
	}
	bb.hb32 = grow(bb.hb32, k*n)
	hb := bb.hb32
	t0 := time.Now()
	linalg.ScoreNT(k, n, d, w, bb.x.Pix, hb, n)
	act := bb.cfg.Activation
	forChunks(k, 8, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			act.applyRow(hb[i*n:(i+1)*n], bb.cb[idx[i]])
		}
	})
	bb.prof.Scoring += time.Since(t0)
	bb.prof.Products += int64(k)
	return hb
}
