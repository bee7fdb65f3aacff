package node

import (
	"math"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/par"
)

// ScorePairs sets z[(t*tu+s)*n + i] = u_s^T X_i v_t for the tu row vectors
// u (tu x rows) and tv column vectors v (tv x ch*cols: v_t (x) w_t with
// ch > 1 channels), on the n images pix (each ch planes of rows x cols),
// shard by shard of lsq.ShardRows images (in parallel); see PairShard.
//
// Pair scoring of 2D candidates (the root package's Config.Pairs): a 2D
// candidate's input is u^T X v. Drawing T_u row vectors u_s and T_v column
// vectors v_t and taking all T_u x T_v pairs (u_s, v_t) as candidates, the
// products share work:
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
func ScorePairs(pix []float32, n, rows, cols, ch int, u []float32, tu int, v []float32, tv int, z []float32) {
	ut, vt := lsq.Transposed(u, tu, rows), lsq.Transposed(v, tv, ch*cols)
	shards := (n + lsq.ShardRows - 1) / lsq.ShardRows
	par.Chunks(shards, 1, func(sh, _, _ int) {
		lo := sh * lsq.ShardRows
		var sc PairScratch
		PairShard(pix, rows, cols, ch, lo, min(n, lo+lsq.ShardRows), ut, tu, vt, tv, z[lo:], n, &sc)
	})
}

// PairScratch is one goroutine's buffers for PairShard.
type PairScratch struct{ xt, y []float32 }

// PairShard sets out[(t*tu+s)*ldo + i] = u_s^T X_{lo+i} v_t for the images
// [lo, hi) of pix (each ch planes of rows x cols), from U^T (rows x tu) and
// V^T (ch*cols x tv). The shard's images
// are transposed (pixel-major, a row's pixels of every channel together)
// so that both stages are products with the images as the long, contiguous
// dimension (linalg.ProductTN32):
//
//	Y[a][t][i] = sum_cb v_t[c,b] X_i[c][a][b]  (stage one, for each row a)
//	z[t,s][i]  = sum_a u_s[a] Y[a][t][i]       (stage two, for each t)
func PairShard(pix []float32, rows, cols, ch, lo, hi int, ut []float32, tu int, vt []float32, tv int, out []float32, ldo int, sc *PairScratch) {
	ch = max(ch, 1)
	d1 := rows
	d2 := ch * cols // a row across the channels
	d := d1 * d2
	r := hi - lo
	sc.xt = lsq.Grow(sc.xt, d*r) // pixel p of image i at p*r+i
	xt := sc.xt
	plane := rows * cols
	for i := 0; i < r; i++ {
		img := pix[(lo+i)*d : (lo+i+1)*d]
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
	sc.y = lsq.Grow(sc.y, d1*tv*r)
	y := sc.y
	for a := 0; a < d1; a++ {
		linalg.ProductTN32(d2, tv, r, vt, xt[a*d2*r:], r, y[a*tv*r:], r)
	}
	for t := 0; t < tv; t++ {
		linalg.ProductTN32(d1, tu, r, ut, y[t*r:], tv*r, out[t*tu*ldo:], ldo)
	}
}

// ExpandChannels returns the tv column vectors v (each d2 values, then
// ch channel weights when ch > 1) as v_t (x) w_t, ch*d2 values each (entry
// c*d2 + b is w_c v_b, computed as the node's weight computes it); with
// ch = 1, v itself.
func ExpandChannels(v []float32, tv, d2, ch int) []float32 {
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

// PairSide returns the side of the pair grid for k candidates: ceil(sqrt(k)).
func PairSide(k int) int {
	s := int(math.Sqrt(float64(k)))
	for s*s < k {
		s++
	}
	return max(s, 1)
}
