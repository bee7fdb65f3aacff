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
		xr := x[r*d : (r+1)*d]
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
// (without fused multiply-adds, so not the same bits).
func mat2DGo(x []float32, d1, d2 int, vt, ut []float32, out *[32]float32) {
	var row [32]float32
	for i := 0; i < d1; i++ {
		row = [32]float32{}
		for k, xv := range x[i*d2 : (i+1)*d2] {
			vk := vt[k*32 : k*32+32]
			for lane := range row {
				row[lane] += xv * vk[lane]
			}
		}
		ui := ut[i*32 : i*32+32]
		for lane := range row {
			out[lane] += ui[lane] * row[lane]
		}
	}
}
