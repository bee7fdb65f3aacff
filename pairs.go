package scn

import (
	"math"
	"time"

	"github.com/scn2d/scn/internal/linalg"
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

// scorePairs sets z[(t*tu+s)*n + i] = u_s^T X_i v_t for the tu row vectors
// u (tu x rows) and tv column vectors v (tv x cols), on the images x. It
// works shard by shard of shardRows images (in parallel), with the shard's
// images transposed (pixel-major) so that both stages are products with
// the images as the long, contiguous dimension (linalg.ProductTN32):
//
//	Y[a][t][i] = sum_b v_t[b] X_i[a][b]      (stage one, for each row a)
//	z[t,s][i]  = sum_a u_s[a] Y[a][t][i]     (stage two, for each t)
func scorePairs(x Images, u []float32, tu int, v []float32, tv int, z []float32) {
	n, d1, d2 := x.Len(), x.Rows, x.Cols
	d := d1 * d2
	ut := make([]float32, d1*tu) // U^T: d1 x tu
	for s := 0; s < tu; s++ {
		for a := 0; a < d1; a++ {
			ut[a*tu+s] = u[s*d1+a]
		}
	}
	vt := make([]float32, d2*tv) // V^T: d2 x tv
	for t := 0; t < tv; t++ {
		for b := 0; b < d2; b++ {
			vt[b*tv+t] = v[t*d2+b]
		}
	}
	shards := (n + shardRows - 1) / shardRows
	forChunks(shards, 1, func(sh, _, _ int) {
		lo := sh * shardRows
		hi := min(n, lo+shardRows)
		r := hi - lo
		xt := make([]float32, d*r) // pixel-major: pixel p of image i at p*r+i
		for i := 0; i < r; i++ {
			for p, v := range x.Pix[(lo+i)*d : (lo+i+1)*d] {
				xt[p*r+i] = v
			}
		}
		y := make([]float32, d1*tv*r)
		for a := 0; a < d1; a++ {
			linalg.ProductTN32(d2, tv, r, vt, xt[a*d2*r:], r, y[a*tv*r:], r)
		}
		for t := 0; t < tv; t++ {
			linalg.ProductTN32(d1, tu, r, ut, y[t*r:], tv*r, z[t*tu*n+lo:], n)
		}
	})
}

// pairSide returns the side of the pair grid for k candidates: ceil(sqrt(k)).
func pairSide(k int) int {
	s := int(math.Sqrt(float64(k)))
	for s*s < k {
		s++
	}
	return max(s, 1)
}

// drawPairs draws tu row vectors and tv column vectors at scale lambda and
// scores all tu x tv pairs; candidate j = t*tu + s is the pair (u_s, v_t).
// Standardised candidates are centred and scaled to spread lambda with
// their inputs' mean and spread over the training images (computed from the
// pair outputs themselves). bb.z then holds the candidates' hidden outputs
// (up to the rounding of the pair products: see exactColumns).
func (bb *blockBuilder) drawPairs(tu, tv int, lambda float64) {
	c := bb.cfg
	d1, d2, n := bb.x.Rows, bb.x.Cols, bb.n
	k := tu * tv
	bb.k = k
	bb.cp = grow(bb.cp, k*bb.np)
	bb.cb = grow(bb.cb, k)
	bb.z = grow(bb.z, n*k)
	t0 := time.Now()
	mm := matrixMap{d1, d2}
	u := make([]float32, tu*d1)
	v := make([]float32, tv*d2)
	tmp := make([]float32, d1+d2)
	for s := 0; s < tu; s++ {
		drawNode(bb.rng, mm, c, lambda, tmp)
		copy(u[s*d1:], tmp[:d1])
	}
	for t := 0; t < tv; t++ {
		drawNode(bb.rng, mm, c, lambda, tmp)
		copy(v[t*d2:], tmp[d1:])
	}
	for t := 0; t < tv; t++ {
		for s := 0; s < tu; s++ {
			j := t*tu + s
			p := bb.cp[j*bb.np : (j+1)*bb.np]
			copy(p[:d1], u[s*d1:(s+1)*d1])
			copy(p[d1:], v[t*d2:(t+1)*d2])
			bb.cb[j] = float32(lambda * (2*bb.rng.Float64() - 1))
		}
	}
	t1 := time.Now()
	scorePairs(bb.x, u, tu, v, tv, bb.z)
	act := c.Activation
	forChunks(k, 8, func(_, lo, hi int) {
		for j := lo; j < hi; j++ {
			zj := bb.z[j*n : (j+1)*n]
			if c.Standardize {
				var s1, s2 float64
				for _, x := range zj {
					s1 += float64(x)
					s2 += float64(x) * float64(x)
				}
				mean := s1 / float64(n)
				sd := math.Sqrt(max(s2/float64(n)-mean*mean, 0))
				if sd > 0 {
					sc, b0 := lambda/sd, bb.cb[j]
					for i, x := range zj {
						zj[i] = float32((float64(x) - mean) * sc)
					}
					scaleNode(Matrix, bb.cp[j*bb.np:(j+1)*bb.np], d1, sc)
					bb.cb[j] = float32(float64(b0) - sc*mean)
					act.applyRow(zj, b0)
					continue
				}
			}
			act.applyRow(zj, bb.cb[j])
		}
	})
	bb.prof.Draw += t1.Sub(t0)
	bb.prof.Scoring += time.Since(t1)
	bb.prof.Products += int64(tv) // stage one: tv full products
	bb.prof.Batches++
}

// exactColumns returns the hidden outputs (len(idx) rows of N) of the
// candidates idx, computed from their parameters with the kernel that
// predicts, so that they are the model's bits.
func (bb *blockBuilder) exactColumns(idx []int) []float32 {
	k, n, d := len(idx), bb.n, bb.d
	w := make([]float32, k*d)
	for i, j := range idx {
		bb.nm.weight(bb.cp[j*bb.np:(j+1)*bb.np], w[i*d:(i+1)*d])
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
