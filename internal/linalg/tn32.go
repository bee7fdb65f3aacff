package linalg

import "github.com/scn2d/scn/internal/linalg/kernel"

// ProductTN32 sets P = B^T H in float32, P m x r (row q at p[q*ldp:]), B l x m
// (row-major), H l x r (rows ldh apart): the outputs of l hidden nodes with
// output weights B on r images, the product of the block engine's
// residual. Each element is the sum over j in order, computed on one
// goroutine (callers split the images), so it depends on nothing else.
// With AVX-512 the project's kernel does five outputs by 32 images per
// call; elsewhere (and for the last images of a row) a loop in Go.
func ProductTN32(l, m, r int, b []float32, h []float32, ldh int, p []float32, ldp int) {
	var bp []float32 // B packed five columns at a time
	var out [160]float32
	r32 := 0
	if kernel.Available512 && l > 0 {
		r32 = r &^ 31
		bp = make([]float32, l*5)
	}
	for q0 := 0; q0 < m; q0 += 5 {
		qn := min(5, m-q0)
		if r32 > 0 {
			for j := 0; j < l; j++ {
				for g := 0; g < 5; g++ {
					v := float32(0)
					if g < qn {
						v = b[j*m+q0+g]
					}
					bp[j*5+g] = v
				}
			}
			for i := 0; i < r32; i += 32 {
				kernel.AxpyT5x32AVX512(&h[i], ldh, l, &bp[0], &out[0])
				for g := 0; g < qn; g++ {
					copy(p[(q0+g)*ldp+i:(q0+g)*ldp+i+32], out[g*32:(g+1)*32])
				}
			}
		}
		for g := 0; g < qn; g++ {
			pq := p[(q0+g)*ldp : (q0+g)*ldp+r]
			for i := r32; i < r; i++ {
				var s float32
				for j := 0; j < l; j++ {
					s += b[j*m+q0+g] * h[j*ldh+i]
				}
				pq[i] = s
			}
		}
	}
}
