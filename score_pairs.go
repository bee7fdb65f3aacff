package scn

import (
	"math"
	"sync"
	"time"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
)

// Pair scoring of 2D candidates (Config.Pairs). A 2D candidate's input is
// u^T X v. Drawing T_u row vectors u_s and T_v column vectors v_t and taking
// all T_u x T_v pairs (u_s, v_t) as candidates, the products share work:
//
//	Y_t = X v_t            (d1 values per image and column vector)
//	z_st = u_s^T Y_t       (one value per image and pair)
//
// costs N d1 d2 T_v + N d1 T_u T_v multiply-adds for T_u T_v candidates,
// against N d1 d2 T_u T_v one pair at a time: for 28 x 28 images and
// T_u = T_v = 32, 1024 candidates cost what 74 cost before. Both stages are
// the scoring kernel (linalg.ScoreNT) on zero-padded rows, shard by shard.
//
// The outputs so computed sum in another order than the kernel that
// predicts (vec(u v^T)^T vec(X)), so the columns of the nodes a block
// accepts are computed again with that kernel: the model's nodes give the
// same bits in training and in prediction, as on every other path.
//
// With C > 1 channels a candidate is sum_c w_c u^T X_c v: each column
// vector v_t is drawn with its channel weights w_t, and the pair products
// take v_t (x) w_t (C*d2 values: entry c*d2 + b is w_c v_b) against each
// image row a read across its channels (X_c[a][b] at c*d2 + b), so that
// stage one is Y_t = sum_c w_c X_c v_t and stage two is unchanged. A grey
// image (C = 1) is the same computation as before.

// scorePairs sets z[(t*tu+s)*n + i] = u_s^T X_i v_t for the tu row vectors
// u (tu x rows) and tv column vectors v (tv x C*cols: v_t (x) w_t with C > 1
// channels), on the images x, shard by shard of lsq.ShardRows images (in
// parallel); see pairShard.
func scorePairs(x Images, u []float32, tu int, v []float32, tv int, z []float32) {
	n := x.Len()
	ut, vt := lsq.Transposed(u, tu, x.Rows), lsq.Transposed(v, tv, x.Chans()*x.Cols)
	shards := (n + lsq.ShardRows - 1) / lsq.ShardRows
	forChunks(shards, 1, func(sh, _, _ int) {
		lo := sh * lsq.ShardRows
		var sc pairScratch
		pairShard(x, lo, min(n, lo+lsq.ShardRows), ut, tu, vt, tv, z[lo:], n, &sc)
	})
}

// pairScratch is one goroutine's buffers for pairShard.
type pairScratch struct{ xt, y []float32 }

// pairShard sets out[(t*tu+s)*ldo + i] = u_s^T X_{lo+i} v_t for the images
// [lo, hi), from U^T (rows x tu) and V^T (C*cols x tv). The shard's images
// are transposed (pixel-major, a row's pixels of every channel together)
// so that both stages are products with the images as the long, contiguous
// dimension (linalg.ProductTN32):
//
//	Y[a][t][i] = sum_cb v_t[c,b] X_i[c][a][b]  (stage one, for each row a)
//	z[t,s][i]  = sum_a u_s[a] Y[a][t][i]       (stage two, for each t)
func pairShard(x Images, lo, hi int, ut []float32, tu int, vt []float32, tv int, out []float32, ldo int, sc *pairScratch) {
	d1, ch := x.Rows, x.Chans()
	d2 := ch * x.Cols // a row across the channels
	d := d1 * d2
	r := hi - lo
	sc.xt = grow(sc.xt, d*r) // pixel p of image i at p*r+i
	xt := sc.xt
	plane, cols := x.Rows*x.Cols, x.Cols
	for i := 0; i < r; i++ {
		img := x.Pix[(lo+i)*d : (lo+i+1)*d]
		if ch == 1 {
			for p, v := range img {
				xt[p*r+i] = v
			}
			continue
		}
		for c := 0; c < ch; c++ {
			for a := 0; a < d1; a++ {
				for b, v := range img[c*plane+a*cols : c*plane+(a+1)*cols] {
					xt[(a*d2+c*cols+b)*r+i] = v
				}
			}
		}
	}
	sc.y = grow(sc.y, d1*tv*r)
	y := sc.y
	for a := 0; a < d1; a++ {
		linalg.ProductTN32(d2, tv, r, vt, xt[a*d2*r:], r, y[a*tv*r:], r)
	}
	for t := 0; t < tv; t++ {
		linalg.ProductTN32(d1, tu, r, ut, y[t*r:], tv*r, out[t*tu*ldo:], ldo)
	}
}

// expandChannels returns the tv column vectors v (each d2 values, then
// ch channel weights when ch > 1) as v_t (x) w_t, ch*d2 values each (entry
// c*d2 + b is w_c v_b, computed as the node's weight computes it); with
// ch = 1, v itself.
func expandChannels(v []float32, tv, d2, ch int) []float32 {
	if ch <= 1 {
		return v
	}
	out := make([]float32, tv*ch*d2)
	for t := 0; t < tv; t++ {
		vt, wt := v[t*(d2+ch):t*(d2+ch)+d2], v[t*(d2+ch)+d2:(t+1)*(d2+ch)]
		for c, wc := range wt {
			for b, vb := range vt {
				out[(t*ch+c)*d2+b] = vb * wc
			}
		}
	}
	return out
}

// pairSide returns the side of the pair grid for k candidates: ceil(sqrt(k)).
func pairSide(k int) int {
	s := int(math.Sqrt(float64(k)))
	for s*s < k {
		s++
	}
	return max(s, 1)
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
	pd.ut, pd.vt = lsq.Transposed(u, tu, d1), lsq.Transposed(expandChannels(v, tv, d2, mm.Ch), tv, mm.Ch*d2)
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
