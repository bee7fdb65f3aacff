package linalg

// scoreRowsGo computes columns [lo, hi) of Z with scoreGo's kernel, on
// arm64 four nodes by four images (dot4x4): arm64 has 32 float registers,
// and the Go compiler fuses each s += v*x into one FMADD, so sixteen sums
// and eight values fit without spilling, and sixteen independent sums
// keep cores with four multiply-add pipes of latency 4 busy, where
// amd64's two by three (six sums) would leave them more than half idle.
// The sums are the same bits as amd64's grouping would give on arm64
// (each in index order from +0, TestScoreGoIsThePlainSum). The last k
// mod 4 nodes go one by one, six images at a time.
//
// Not measured on arm64 hardware (there was none): the choice rests on
// the register count and the published pipe counts and latencies.
func scoreRowsGo(k, d int, w, x, z []float32, ldz, lo, hi int, sp spans) {
	ib := max(4, min(hi-lo, (256<<10)/(4*max(d, 1)))) // images per block
	var ws [4][]float32
	var out [16]float32
	for b0 := lo; b0 < hi; b0 += ib {
		b1 := min(hi, b0+ib)
		j := 0
		for ; j+4 <= k; j += 4 {
			a, e := d, 0 // the union of the group's stretches
			for g := range ws {
				if s0, s1 := sp.stretch(sp.node(j+g), d); s0 < s1 {
					a, e = min(a, s0), max(e, s1)
				}
			}
			if a >= e {
				a, e = 0, 0
			}
			for g := range ws {
				r := sp.node(j + g)
				ws[g] = w[r*d+a : r*d+e]
			}
			for i := b0; i < b1; i += 4 {
				i1, i2, i3 := min(i+1, b1-1), min(i+2, b1-1), min(i+3, b1-1) // the last image repeats
				dot4x4(ws[0], ws[1], ws[2], ws[3], x[i*d+a:i*d+e], x[i1*d+a:i1*d+e], x[i2*d+a:i2*d+e], x[i3*d+a:i3*d+e], &out)
				for g := 0; g < 4; g++ {
					zr := z[sp.node(j+g)*ldz:]
					for r := 0; r < 4 && i+r < b1; r++ {
						zr[i+r] = out[4*g+r] + 0
					}
				}
			}
		}
		for ; j < k; j++ {
			r := sp.node(j)
			a, e := sp.stretch(r, d)
			if a >= e {
				a, e = 0, 0
			}
			scoreOneGo(d, a, e, w[r*d+a:r*d+e], x, z[r*ldz:], b0, b1)
		}
	}
}

// dot4x4 sets out[4*g+r] to the dot product of w_g and x_r, each summed
// in index order from +0; all eight slices have the length of w0.
func dot4x4(w0, w1, w2, w3, x0, x1, x2, x3 []float32, out *[16]float32) {
	n := len(w0)
	w1, w2, w3 = w1[:n], w2[:n], w3[:n]
	x0, x1, x2, x3 = x0[:n], x1[:n], x2[:n], x3[:n]
	var s00, s01, s02, s03, s10, s11, s12, s13 float32
	var s20, s21, s22, s23, s30, s31, s32, s33 float32
	for t, v := range w0 {
		a, b, c, e := x0[t], x1[t], x2[t], x3[t]
		s00 += v * a
		s01 += v * b
		s02 += v * c
		s03 += v * e
		v = w1[t]
		s10 += v * a
		s11 += v * b
		s12 += v * c
		s13 += v * e
		v = w2[t]
		s20 += v * a
		s21 += v * b
		s22 += v * c
		s23 += v * e
		v = w3[t]
		s30 += v * a
		s31 += v * b
		s32 += v * c
		s33 += v * e
	}
	*out = [16]float32{s00, s01, s02, s03, s10, s11, s12, s13, s20, s21, s22, s23, s30, s31, s32, s33}
}
