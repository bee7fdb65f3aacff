package node

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
)

// FieldInterval returns a random interval [lo, hi) of [0, size) whose
// length is uniform on [minLen, maxLen], both clipped to [1, size].
func FieldInterval(rng *rand.Rand, size, minLen, maxLen int) (lo, hi int) {
	a, b := min(max(minLen, 1), size), min(max(maxLen, 1), size)
	if b < a {
		a, b = b, a
	}
	n := a + rng.IntN(b-a+1)
	lo = rng.IntN(size - n + 1)
	return lo, lo + n
}

// RankOne3 returns u (h), v (w) and c (chans) whose outer product
// u (x) v (x) c approximates the chans x h x w tensor d (row-major): v is
// the leading right singular vector of d unfolded as (chans*h) x w, then u
// and c are the best rank-1 approximation of Y (h x chans), Y[i][k] =
// sum_j d[k][i][j] v_j. It is exact when d has rank 1, deterministic, and
// signed as RankOne signs (v's and c's largest entries positive).
func RankOne3(d []float64, chans, h, w int) (u, v, c []float64) {
	_, v = RankOne(d, chans*h, w)
	y := make([]float64, h*chans)
	for k := 0; k < chans; k++ {
		for i := 0; i < h; i++ {
			row := d[(k*h+i)*w : (k*h+i+1)*w]
			var s float64
			for j, vj := range v {
				s += row[j] * vj
			}
			y[i*chans+k] = s
		}
	}
	u, c = RankOne(y, h, chans)
	return u, v, c
}

// RankOne returns u = sigma_1 u_1 and v = v_1 for the h x w matrix d
// (row-major): u v^T is d's best rank-1 approximation. v's largest entry in
// magnitude is made positive, so the pair does not depend on the start's
// sign.
//
// v_1 is found by power iteration on d^T d (u = d v): each step costs two
// passes over d, O(h w), where a full SVD costs O(h w min(h, w)); on a
// 243 x 320 photo an SVD per node took 90 ms and made the default preset's
// node draws most of a fit's time. The iteration starts from d's largest
// row, is deterministic, and stops when v moves by less than 1e-9 or after
// rankOneSteps steps (then v is a mix of the leading singular vectors,
// whose singular values are within a factor 1 - 1e-3 or so of each other:
// as good a rank-one direction for a node).
func RankOne(d []float64, h, w int) (u, v []float64) {
	u, v = make([]float64, h), make([]float64, w)
	best, bestNorm := 0, -1.0
	for i := 0; i < h; i++ {
		if n := floats.Dot(d[i*w:(i+1)*w], d[i*w:(i+1)*w]); n > bestNorm {
			best, bestNorm = i, n
		}
	}
	copy(v, d[best*w:(best+1)*w])
	if !Normalise(v) {
		// d is zero: any direction, u = 0.
		v[0] = 1
		return u, v
	}
	next := make([]float64, w)
	for step := 0; step < rankOneSteps; step++ {
		for i := range u {
			u[i] = floats.Dot(d[i*w:(i+1)*w], v)
		}
		clear(next)
		for i, ui := range u {
			floats.AddScaled(next, ui, d[i*w:(i+1)*w])
		}
		if !Normalise(next) {
			break
		}
		moved := floats.Distance(next, v, 2)
		v, next = next, v
		if moved < 1e-9 {
			break
		}
	}
	big := floats.MaxIdx(v)
	if small := floats.MinIdx(v); -v[small] > v[big] {
		floats.Scale(-1, v)
	}
	for i := range u {
		u[i] = floats.Dot(d[i*w:(i+1)*w], v)
	}
	return u, v
}

// rankOneSteps bounds RankOne's power iteration.
const rankOneSteps = 300

// Normalise scales x to unit norm, reporting false if x is zero or not
// finite.
func Normalise(x []float64) bool {
	n := floats.Norm(x, 2)
	if !(n > 0) || math.IsInf(n, 0) {
		return false
	}
	floats.Scale(1/n, x)
	return true
}
