package linalg

import (
	"sync"

	"github.com/scn2d/scn/internal/linalg/kernel"
)

// Score2D sets z[j*ldz+r] = u_j^T X_r v_j in float32 for c nodes of a 2D
// map and n images: node j's u (d1 values) then v (d2) start at
// params[j*np], and image r is x[r*d1*d2:] (d1 rows of d2 values). It
// scores the nodes in their own u^T X v form, with no d1 x d2 weights:
// X_r v_j row by row, then the rows weighted by u_j. That takes the
// multiplications of the expanded product (d1 d2 + d1 per node and image)
// but reads only (d1 + d2) values per node, which stay in cache: for a
// few images, the expanded weights (L x d1 d2) would have to come from
// memory. Each output is one fixed sequence of operations on its own node
// and image (the kernels' lanes are independent, and the AVX2 and AVX-512
// forms run the same FMAs), so it does not depend on the other nodes or
// images of the call. It runs in the calling goroutine: its caller, the
// prediction, runs whole passes in parallel instead.
func Score2D(c, n, d1, d2 int, params []float32, np int, x, z []float32, ldz int) {
	Score2DStride(c, n, d1, d2, params, np, x, d1*d2, z, ldz)
}

// Score2DStride is Score2D with image r at x[r*ldx:] (ldx >= d1*d2): one
// plane of images of several planes (N x C x H x W, ldx = C*d1*d2, x
// starting at the plane), scored with the same bits as Score2D gives for
// the plane alone.
func Score2DStride(c, n, d1, d2 int, params []float32, np int, x []float32, ldx int, z []float32, ldz int) {
	if c == 0 || n == 0 {
		return
	}
	groups := (c + 31) / 32
	size := groups * 32 * (d1 + d2)
	buf, _ := packPool.Get().(*[]float32)
	if buf == nil || cap(*buf) < size {
		s := make([]float32, size)
		buf = &s
	}
	defer packPool.Put(buf)
	pack := (*buf)[:size]
	// Pack each group of 32 nodes lane by lane: u as d1 x 32, then v as
	// d2 x 32, lanes past c zero.
	w := d1 + d2
	for g := 0; g < groups; g++ {
		grp := pack[g*32*w : (g+1)*32*w]
		lanes := min(32, c-g*32)
		if lanes == 32 && useAVX512 {
			kernel.Pack32AVX512(&params[g*32*np], np, w, &grp[0])
			continue
		}
		clear(grp)
		for lane := 0; lane < lanes; lane++ {
			for t, v := range params[(g*32+lane)*np : (g*32+lane)*np+w] {
				grp[t*32+lane] = v
			}
		}
	}
	d := d1 * d2
	var out [32]float32
	for r := 0; r < n; r++ {
		xr := x[r*ldx : r*ldx+d]
		for g := 0; g < groups; g++ {
			ut := pack[g*32*w : g*32*w+32*d1]
			vt := pack[g*32*w+32*d1 : (g+1)*32*w]
			out = [32]float32{}
			switch {
			case useAVX512:
				kernel.Mat2D32AVX512(&xr[0], d2, d1, d2, &vt[0], &ut[0], &out[0])
			case kernel.Available:
				kernel.Mat2D16(&xr[0], d2, d1, d2, &vt[0], &ut[0], &out[0])
				kernel.Mat2D16(&xr[0], d2, d1, d2, &vt[16], &ut[16], &out[16])
			default:
				mat2DGo(xr, d1, d2, vt, ut, &out)
			}
			for lane := 0; lane < 32 && g*32+lane < c; lane++ {
				z[(g*32+lane)*ldz+r] = out[lane]
			}
		}
	}
}

// packPool keeps Score2D's packed nodes between calls.
var packPool sync.Pool

// mat2DGo is the kernels' computation in Go, for processors without AVX2
// (without fused multiply-adds, so not the same bits). For each lane
// (node) and row i, row_i = sum over k of x[i][k] v[k] in order of k from
// +0; then out += u[i] row_i in order of i: the plain loop over rows, a
// row of 32 lanes at a time (TestMat2DGoIsThePlainLoop). It computes two
// lanes by three rows at once, six sums in registers (the most Go's amd64
// register allocator holds without spilling), each x value read once for
// two lanes and each v value once for three rows.
func mat2DGo(x []float32, d1, d2 int, vt, ut []float32, out *[32]float32) {
	vt, ut = vt[:32*d2], ut[:32*d1]
	for l := 0; l < 32; l += 2 {
		o0, o1 := out[l], out[l+1]
		i := 0
		for ; i+3 <= d1; i += 3 {
			x0 := x[i*d2 : i*d2+d2]
			s00, s01, s10, s11, s20, s21 := mat2D3x2(x0, x[(i+1)*d2:], x[(i+2)*d2:], vt[l:])
			u := ut[i*32+l : i*32+l+66]
			o0 += u[0] * s00
			o1 += u[1] * s01
			o0 += u[32] * s10
			o1 += u[33] * s11
			o0 += u[64] * s20
			o1 += u[65] * s21
		}
		for ; i < d1; i++ {
			var s0, s1 float32
			j := l
			for _, a := range x[i*d2 : i*d2+d2] {
				s0 += a * vt[j]
				s1 += a * vt[j+1]
				j += 32
			}
			o0 += ut[i*32+l] * s0
			o1 += ut[i*32+l+1] * s1
		}
		out[l], out[l+1] = o0, o1
	}
}

// mat2D3x2 returns mat2DGo's row sums of rows x0, x1, x2 (d2 = len(x0)
// values each) for the two lanes whose v values start v (32 apart): s_rg
// for row r and lane g, each in order of k from +0.
func mat2D3x2(x0, x1, x2, v []float32) (s00, s01, s10, s11, s20, s21 float32) {
	x1, x2 = x1[:len(x0)], x2[:len(x0)]
	j := 0
	for k, a := range x0 {
		b, c := x1[k], x2[k]
		p, q := v[j], v[j+1]
		j += 32
		s00 += a * p
		s10 += b * p
		s20 += c * p
		s01 += a * q
		s11 += b * q
		s21 += c * q
	}
	return
}
