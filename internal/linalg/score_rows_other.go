//go:build !arm64

package linalg

// scoreRowsGo computes columns [lo, hi) of Z with scoreGo's kernel.
func scoreRowsGo(k, d int, w, x, z []float32, ldz, lo, hi int, sp spans) {
	ib := max(3, min(hi-lo, (256<<10)/(4*max(d, 1)))) // images per block
	var rows [2]int
	var out [6]float32
	for b0 := lo; b0 < hi; b0 += ib {
		b1 := min(hi, b0+ib)
		for j := 0; j < k; j += 2 {
			a, e := d, 0 // the union of the group's stretches
			for g := range rows {
				rows[g] = sp.node(min(j+g, k-1))
				if j+g < k {
					if s0, s1 := sp.stretch(rows[g], d); s0 < s1 {
						a, e = min(a, s0), max(e, s1)
					}
				}
			}
			if a >= e {
				a, e = 0, 0
			}
			w0 := w[rows[0]*d+a : rows[0]*d+e]
			if j+1 == k { // a last single node: six images at a time
				scoreOneGo(d, a, e, w0, x, z[sp.node(j)*ldz:], b0, b1)
				continue
			}
			w1 := w[rows[1]*d+a : rows[1]*d+e]
			for i := b0; i < b1; i += 3 {
				i1, i2 := min(i+1, b1-1), min(i+2, b1-1) // the last image repeats
				dot2x3(w0, w1, x[i*d+a:i*d+e], x[i1*d+a:i1*d+e], x[i2*d+a:i2*d+e], &out)
				for g := 0; g < 2 && j+g < k; g++ {
					zr := z[sp.node(j+g)*ldz:]
					for r := 0; r < 3 && i+r < b1; r++ {
						zr[i+r] = out[3*g+r] + 0
					}
				}
			}
		}
	}
}
