package drive

import (
	"math/rand/v2"
	"time"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
	"github.com/scn2d/scn/internal/par"
)

// MomentSample is the images the spread of a standardised node is
// measured on (the first ones).
const MomentSample = 10000

// Score computes the hidden outputs of the k candidates of weights cw
// (k x d) and biases cb on the n images pix into z (row j is candidate
// j's), adding the time taken to prof.
func Score(act node.Activation, k, n, d int, cw, cb, pix, z []float32, prof *Profile) {
	t1 := time.Now()
	linalg.ScoreNT(k, n, d, cw, pix, z, n)
	bias := cb
	par.Chunks(k, 8, func(_, lo, hi int) {
		for j := lo; j < hi; j++ {
			act.Apply(z[j*n:(j+1)*n], bias[j])
		}
	})
	prof.Scoring += time.Since(t1)
	prof.Products += int64(k)
	prof.Batches++
}

// Standardize scales each of the k drawn candidates (parameters cp, k x
// np, weights cw, k x d, biases cb) so that its input w^T x has spread
// lambda over the first ns images of pix and is centred, before its random
// bias: w <- s w and b <- b - s w^T xbar with s = lambda / sqrt(v), v the
// variance of w^T x about w^T xbar over those images (node.Spread). v is
// measured from the candidates' inputs on those images (one product of
// k x ns x d into scratch, k x ns), not from a d x d pixel covariance:
// w^T Sigma w is the same sum, but Sigma took d^2 floats (24 GB for
// 243 x 320 photos) and k d^2 multiply-adds a block. matrix says the
// nodes are 2D (node.Scale scales u, of rows values).
func Standardize(nm node.Map, matrix bool, rows, k, ns, d, np int, lambda float64, xbar, pix, cp, cb, cw, scratch []float32) {
	z := scratch
	linalg.ScoreNT(k, ns, d, cw, pix[:ns*d], z, ns) // row j: w_j^T x_i
	par.Chunks(k, 8, func(_, lo, hi int) {
		for j := lo; j < hi; j++ {
			w := cw[j*d : (j+1)*d]
			s, mean, ok := node.Spread(w, xbar, z[j*ns:(j+1)*ns], lambda)
			if !ok {
				continue // a node (nearly) blind to the data: left as drawn
			}
			p := cp[j*np : (j+1)*np]
			node.Scale(matrix, p, rows, s)
			nm.Weight(p, w)
			cb[j] = float32(float64(cb[j]) - s*mean)
		}
	})
}

// BlockCorrelations returns, for the k candidates' outputs z (k x n),
// h_j^T h_j (k values) and e_q^T h_j (m x k, eh[q*k+j]) against the
// residual e (m rows of n), summed over the row shards (partial sums per
// shard, reduced in shard order).
func BlockCorrelations(shards []lsq.Shard, z []float32, e []float64, n, m, k int) (hh, eh []float64) {
	size := k * (m + 1)
	part := make([]float64, len(shards)*size)
	par.Chunks(len(shards), 1, func(s, _, _ int) {
		sh := shards[s]
		acc := part[s*size : (s+1)*size]
		col := make([]float64, sh.Hi-sh.Lo)
		for j := 0; j < k; j++ {
			Correlate(z[j*n+sh.Lo:j*n+sh.Hi], col, e, n, m, sh, acc, k, j)
		}
	})
	sum := make([]float64, size)
	for s := range shards {
		lsq.Reduce(sum, part[s*size:(s+1)*size])
	}
	return sum[k*m:], sum[:k*m]
}

// Correlate writes candidate j's h^T h and e_q^T h over shard sh into acc
// (acc[k*m+j] and acc[q*k+j]) from its outputs z on the shard, through the
// float64 scratch col: the same sums, in the same order, for every scorer.
func Correlate(z []float32, col, e []float64, n, m int, sh lsq.Shard, acc []float64, k, j int) {
	node.CorrelateRows(z, col, e[sh.Lo:], n, m, acc, k, j)
}

// ChooseBlock returns up to b candidates of the k scored (hh, eh) that
// meet the supervisory inequality against the residual's column norms ee
// at the first r of ratios that admits b of them (or at its last r, with
// fewer), best first, and that r.
func ChooseBlock(hh, eh, ee []float64, m int, ratios []float64, k, b int) (order []int, ratio float64) {
	dead := make([]bool, k)
	for i, r := range ratios {
		order = node.Admissible(hh, eh, ee, m, r, dead)
		ratio = r
		if len(order) >= b || i == len(ratios)-1 {
			break
		}
	}
	return order[:min(b, len(order))], ratio
}

// WeightChunk is the nodes whose weights Hidden forms and scores at a time.
const WeightChunk = 256

// Hidden writes the hidden outputs of the drawn nodes [j0, j1) (parameters
// params, L x np, biases bias) on the images [lo, hi) of pix into h
// (node-major: j1-j0 rows of hi-lo), forming their weights with nm
// WeightChunk nodes at a time in the scratch *w. Each output is the bits
// Score gives it (ScoreNT computes every output alone, whatever the batch
// of nodes and images, and so does the activation).
func Hidden(nm node.Map, act node.Activation, d, np int, params, bias, pix []float32, w *[]float32, lo, hi, j0, j1 int, h []float32, prof *Profile) {
	t0 := time.Now()
	r := hi - lo
	for c0 := j0; c0 < j1; c0 += WeightChunk {
		c1 := min(j1, c0+WeightChunk)
		*w = lsq.Grow(*w, (c1-c0)*d)
		for j := c0; j < c1; j++ {
			nm.Weight(params[j*np:(j+1)*np], (*w)[(j-c0)*d:(j-c0+1)*d])
		}
		linalg.ScoreNT(c1-c0, r, d, *w, pix[lo*d:hi*d], h[(c0-j0)*r:], r)
	}
	par.Chunks(j1-j0, 8, func(_, a, b int) {
		for j := a; j < b; j++ {
			act.Apply(h[j*r:(j+1)*r], bias[j0+j])
		}
	})
	prof.Scoring += time.Since(t0)
}

// DrawParams draws k candidates at scale lambda with nm from rng
// (node.Draw with spec and the difference nodes' source diffs, nil for
// none): their parameters into cp (k x np), biases into cb and weights
// over the image into cw (k x d).
func DrawParams(rng *rand.Rand, nm node.Map, spec node.Spec, diffs *node.DiffSource, lambda float64, k, np, d int, cp, cb, cw []float32) {
	for j := 0; j < k; j++ {
		p := cp[j*np : (j+1)*np]
		node.Draw(rng, nm, spec, lambda, p, diffs)
		cb[j] = float32(lambda * (2*rng.Float64() - 1))
		nm.Weight(p, cw[j*d:(j+1)*d])
	}
}
