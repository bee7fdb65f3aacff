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
			productTN32Go(l, m, q0+g, r32, r, b, h, ldh, p[(q0+g)*ldp:(q0+g)*ldp+r])
		}
	}
}

// productTN32Go sets pq[i] = sum_{j<l} b[j*m+q] * h[j*ldh+i] for i in [i0,
// i1), each sum from +0 in order of j, as ProductTN32's plain loop would;
// it runs over the images in chunks of 512, each chunk's sums staying in
// L1 while the rows of h stream past four at a time, rather than one
// column of h (ldh apart) per output.
func productTN32Go(l, m, q, i0, i1 int, b, h []float32, ldh int, pq []float32) {
	const chunk = 512
	for c0 := i0; c0 < i1; c0 += chunk {
		acc := pq[c0:min(i1, c0+chunk)]
		clear(acc)
		j := 0
		for ; j+4 <= l; j += 4 { // four rows per pass over acc, added in order
			b0, b1, b2, b3 := b[j*m+q], b[(j+1)*m+q], b[(j+2)*m+q], b[(j+3)*m+q]
			h0 := h[j*ldh+c0 : j*ldh+c0+len(acc)]
			h1 := h[(j+1)*ldh+c0 : (j+1)*ldh+c0+len(acc)]
			h2 := h[(j+2)*ldh+c0 : (j+2)*ldh+c0+len(acc)]
			h3 := h[(j+3)*ldh+c0 : (j+3)*ldh+c0+len(acc)]
			for i, v := range acc {
				v += b0 * h0[i]
				v += b1 * h1[i]
				v += b2 * h2[i]
				v += b3 * h3[i]
				acc[i] = v
			}
		}
		for ; j < l; j++ {
			bj := b[j*m+q]
			hj := h[j*ldh+c0 : j*ldh+c0+len(acc)]
			for i, v := range hj {
				acc[i] += bj * v
			}
		}
	}
}
