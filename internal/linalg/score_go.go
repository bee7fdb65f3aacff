package linalg

import "github.com/scn2d/scn/internal/par"

// scoreGo is ScoreNT without the assembly kernels (the purego build and
// every architecture but amd64). Each output is the float32 sum of its
// products in index order from +0, over the node's nonzero stretch, plus
// +0: so it is the same bits as the plain loop over all d inputs plus +0
// (the products left out are zeros: adding them to a sum that starts at
// +0 leaves +0, and at the end they can only turn a -0 sum into +0, which
// the final +0 does anyway), whatever the grouping of nodes and images.
// The kernel takes two nodes by three images, six independent sums (the
// Go compiler does not vectorise; independent sums hide the latency of
// the additions), an odd k's last node by six images, and the images in
// blocks that stay in L2; on arm64 four nodes by four images
// (score_rows_arm64.go).
func scoreGo(k, n, d int, w, x, z []float32, ldz int) {
	var g spans
	if n >= spanMinImages {
		g = spansOf(k, d, w, 1)
	}
	par.Chunks(n, scoreChunk, func(_, lo, hi int) { scoreRowsGo(k, d, w, x, z, ldz, lo, hi, g) })
}

// dot2x3 sets out[3*g+r] to the dot product of w_g and x_r, each summed
// in index order from +0; all five slices have the length of w0. Six sums
// and five values fit the fifteen float registers Go's amd64 ABI leaves;
// with more the compiler spills (3 x 3 and 4 x 3 ran at half the speed,
// 2 x 2 at three quarters: fewer sums in flight).
func dot2x3(w0, w1, x0, x1, x2 []float32, out *[6]float32) {
	n := len(w0)
	w1 = w1[:n]
	x0, x1, x2 = x0[:n], x1[:n], x2[:n]
	var s00, s01, s02, s10, s11, s12 float32
	for t, v := range w0 {
		a, b, c := x0[t], x1[t], x2[t]
		s00 += v * a
		s01 += v * b
		s02 += v * c
		u := w1[t]
		s10 += u * a
		s11 += u * b
		s12 += u * c
	}
	*out = [6]float32{s00, s01, s02, s10, s11, s12}
}

// dot1x6 sets out[r] to the dot product of w and x_r, each summed in index
// order from +0; all seven slices have the length of w.
func dot1x6(w, x0, x1, x2, x3, x4, x5 []float32, out *[6]float32) {
	n := len(w)
	x0, x1, x2, x3, x4, x5 = x0[:n], x1[:n], x2[:n], x3[:n], x4[:n], x5[:n]
	var s0, s1, s2, s3, s4, s5 float32
	for t, v := range w {
		s0 += v * x0[t]
		s1 += v * x1[t]
		s2 += v * x2[t]
		s3 += v * x3[t]
		s4 += v * x4[t]
		s5 += v * x5[t]
	}
	*out = [6]float32{s0, s1, s2, s3, s4, s5}
}

// scoreOneGo sets zr[i] for images i in [b0, b1) to one node's sums over
// inputs [a, e) (w0, the node's weights there), six images at a time.
func scoreOneGo(d, a, e int, w0, x, zr []float32, b0, b1 int) {
	var out6 [6]float32
	var xs [6][]float32
	for i := b0; i < b1; i += 6 {
		for r := range xs {
			ir := min(i+r, b1-1) // the last image repeats
			xs[r] = x[ir*d+a : ir*d+e]
		}
		dot1x6(w0, xs[0], xs[1], xs[2], xs[3], xs[4], xs[5], &out6)
		for r := 0; r < 6 && i+r < b1; r++ {
			zr[i+r] = out6[r] + 0
		}
	}
}
