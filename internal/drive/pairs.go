package drive

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
	"github.com/scn2d/scn/internal/par"
)

// Images are float32 image rows and their shape, as the pair products
// read them: N images of Rows x Cols x Ch (Ch >= 1), image i at
// Pix[i*Rows*Cols*Ch:].
type Images struct {
	Pix               []float32
	N, Rows, Cols, Ch int
}

// PairDraw is a batch of pair candidates as drawn (DrawPairs): U^T and
// V^T for node.PairShard, the random part of each bias, and, once
// standardised, each candidate's input mean and scale (0: left as drawn).
type PairDraw struct {
	Tu, Tv, K   int
	Ut, Vt      []float32
	B0          []float32
	Scale, Mean []float64
}

// DrawPairs draws tu row vectors and tv column vectors at scale lambda
// (node.Draw with spec and the difference nodes' source diffs, nil for
// none) and the bias of each of their tu x tv pairs (candidate j = t*tu +
// s is the pair (u_s, v_t)) into cp (k x cnp, cnp the batch's parameters
// per node) and cb (k), drawing its random numbers from rng in that order.
func DrawPairs(rng *rand.Rand, spec node.Spec, diffs *node.DiffSource, x Images, tu, tv int, lambda float64, cnp int, cp, cb []float32) *PairDraw {
	d1, d2 := x.Rows, x.Cols
	k := tu * tv
	mm := node.Matrix{Rows: d1, Cols: d2, Ch: x.Ch}
	np := mm.Size()
	nv := np - d1 // v, then the channel weights w if any
	u := make([]float32, tu*d1)
	v := make([]float32, tv*nv)
	tmp := make([]float32, np)
	for s := 0; s < tu; s++ {
		node.Draw(rng, mm, spec, lambda, tmp, diffs)
		copy(u[s*d1:], tmp[:d1])
	}
	for t := 0; t < tv; t++ {
		node.Draw(rng, mm, spec, lambda, tmp, diffs)
		copy(v[t*nv:], tmp[d1:])
	}
	pd := &PairDraw{Tu: tu, Tv: tv, K: k, B0: make([]float32, k), Scale: make([]float64, k), Mean: make([]float64, k)}
	for t := 0; t < tv; t++ {
		for s := 0; s < tu; s++ {
			j := t*tu + s
			p := cp[j*cnp : (j+1)*cnp]
			copy(p[:d1], u[s*d1:(s+1)*d1])
			copy(p[d1:], v[t*nv:(t+1)*nv])
			pd.B0[j] = float32(lambda * (2*rng.Float64() - 1))
			cb[j] = pd.B0[j]
		}
	}
	pd.Ut, pd.Vt = lsq.Transposed(u, tu, d1), lsq.Transposed(node.ExpandChannels(v, tv, d2, mm.Ch), tv, mm.Ch*d2)
	return pd
}

// Moments writes one shard's sums of the pair products z (K rows of r
// images) into acc: acc[j] = sum of candidate j's inputs, acc[K+j] the sum
// of their squares.
func (pd *PairDraw) Moments(z []float32, r int, acc []float64) {
	k := pd.K
	for j := 0; j < k; j++ {
		var s1, s2 float64
		for _, x := range z[j*r : (j+1)*r] {
			s1 += float64(x)
			s2 += float64(x) * float64(x)
		}
		acc[j], acc[k+j] = s1, s2
	}
}

// Standardize centres and scales each pair candidate to spread lambda
// from its inputs' sums over the n training images (Moments, reduced over
// the shards): its parameters in cp (K x np, u of rows values first) and
// bias in cb, its scale and mean in pd.
func (pd *PairDraw) Standardize(sum []float64, lambda float64, n, rows, np int, cp, cb []float32) {
	k, d1 := pd.K, rows
	for j := 0; j < k; j++ {
		mu := sum[j] / float64(n)
		sd := math.Sqrt(max(sum[k+j]/float64(n)-mu*mu, 0))
		if sd*sd > 1e-10*(sd*sd+mu*mu) && !math.IsInf(sd, 0) {
			pd.Scale[j], pd.Mean[j] = lambda/sd, mu
			node.Scale(true, cp[j*np:(j+1)*np], d1, pd.Scale[j])
			cb[j] = float32(float64(pd.B0[j]) - pd.Scale[j]*mu)
		}
	}
}

// Activation turns candidate j's pair products zj into its outputs:
// standardised as Standardize found, then the activation act.
func (pd *PairDraw) Activation(act node.Activation, j int, zj []float32) {
	if pd.Scale[j] > 0 {
		for i, x := range zj {
			zj[i] = float32((float64(x) - pd.Mean[j]) * pd.Scale[j])
		}
	}
	act.Apply(zj, pd.B0[j])
}

// Shard is node.PairShard of pd's pairs on the images [lo, hi) of x.
func (pd *PairDraw) Shard(x Images, lo, hi int, out []float32, ldo int, sc *node.PairScratch) {
	node.PairShard(x.Pix, x.Rows, x.Cols, x.Ch, lo, hi, pd.Ut, pd.Tu, pd.Vt, pd.Tv, out, ldo, sc)
}

// PairCandidates returns the statistics of all pairs of pd as candidates
// on the images x: h_j^T h_j and e_q^T h_j (eh[q*k+j]) against the
// residual e (m rows of x.N), as BlockCorrelations does for drawn
// candidates, summed over the row shards in order. Their outputs are never
// stored whole: each shard's pair products are formed, put through the
// activation and reduced to the shard's sums, then dropped. With
// standardize, the candidates are first centred and scaled to spread
// lambda with their inputs' mean and spread over the images, from a first
// pass over the shards (PairDraw.Standardize: cp and cb, K x np and K,
// change with them). t0 is when the draw began (prof's Draw runs from it).
func PairCandidates(pd *PairDraw, x Images, shards []lsq.Shard, e []float64, m int, act node.Activation, standardize bool, lambda float64, np int, cp, cb []float32, t0 time.Time, prof *Profile) (hh, eh []float64) {
	k, n := pd.K, x.N
	pool := sync.Pool{New: func() any { return new(node.PairScratch) }}
	outs := sync.Pool{New: func() any { return new([]float32) }}
	products := func(s int) ([]float32, func()) {
		sh := shards[s]
		sc := pool.Get().(*node.PairScratch)
		buf := outs.Get().(*[]float32)
		*buf = lsq.Grow(*buf, k*(sh.Hi-sh.Lo))
		pd.Shard(x, sh.Lo, sh.Hi, *buf, sh.Hi-sh.Lo, sc)
		pool.Put(sc)
		return *buf, func() { outs.Put(buf) }
	}
	t1 := time.Now()
	// Pass one (standardised nodes): each candidate's mean and spread.
	if standardize {
		part := make([]float64, len(shards)*2*k)
		par.Chunks(len(shards), 1, func(s, _, _ int) {
			z, done := products(s)
			defer done()
			pd.Moments(z, shards[s].Hi-shards[s].Lo, part[s*2*k:(s+1)*2*k])
		})
		sum := make([]float64, 2*k)
		for s := range shards {
			lsq.Reduce(sum, part[s*2*k:(s+1)*2*k])
		}
		pd.Standardize(sum, lambda, n, x.Rows, np, cp, cb)
	}
	// Pass two: the activations and their sums against the residual.
	size := k * (m + 1)
	part := make([]float64, len(shards)*size)
	par.Chunks(len(shards), 1, func(s, _, _ int) {
		z, done := products(s)
		defer done()
		sh := shards[s]
		r := sh.Hi - sh.Lo
		acc := part[s*size : (s+1)*size]
		col := make([]float64, r)
		for j := 0; j < k; j++ {
			zj := z[j*r : (j+1)*r]
			pd.Activation(act, j, zj)
			Correlate(zj, col, e, n, m, sh, acc, k, j)
		}
	})
	sum := make([]float64, size)
	for s := range shards {
		lsq.Reduce(sum, part[s*size:(s+1)*size])
	}
	prof.Draw += t1.Sub(t0)
	prof.Scoring += time.Since(t1)
	prof.Products += int64(pd.Tv) // stage one: tv full products per pass
	prof.Batches++
	return sum[k*m:], sum[:k*m]
}

// ExactColumns returns the hidden outputs (len(idx) rows of x.N, in the
// scratch *hb) of the candidates idx of the batch cp (K x np), cb,
// computed from their parameters with nm and the kernel that predicts, so
// that they are the model's bits.
func ExactColumns(nm node.Map, act node.Activation, x Images, d, np int, cp, cb []float32, idx []int, hb *[]float32, prof *Profile) []float32 {
	k, n := len(idx), x.N
	w := make([]float32, k*d)
	for i, j := range idx {
		nm.Weight(cp[j*np:(j+1)*np], w[i*d:(i+1)*d])
	}
	*hb = lsq.Grow(*hb, k*n)
	h := *hb
	t0 := time.Now()
	linalg.ScoreNT(k, n, d, w, x.Pix, h, n)
	par.Chunks(k, 8, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			act.Apply(h[i*n:(i+1)*n], cb[idx[i]])
		}
	})
	prof.Scoring += time.Since(t0)
	prof.Products += int64(k)
	return h
}
