package kernel

// DotRows4 sets out[r] = sum_{i<n} a[r*lda+i] * x[i] for r = 0..3: four
// dot products against one vector, the rows of a read once each. With AVX2
// and FMA the first n &^ 7 elements go through an assembly kernel with
// eight independent sums; the rest are added after them in order. The
// result depends only on the inputs, never on the caller's parallelism.
func DotRows4(a []float64, lda int, x []float64, n int, out *[4]float64) {
	*out = [4]float64{}
	if n <= 0 {
		return
	}
	_ = a[3*lda+n-1]
	_ = x[n-1]
	n8 := 0
	if Available && n >= 8 {
		n8 = n &^ 7
		DotN4(&a[0], lda, &x[0], n8, &out[0])
	}
	// The four rows together, each summed in order (the plain loop's
	// bits): four independent sums, x read once.
	xs := x[n8:n]
	r0, r1, r2, r3 := a[n8:n], a[lda+n8:lda+n], a[2*lda+n8:2*lda+n], a[3*lda+n8:3*lda+n]
	r0, r1, r2, r3 = r0[:len(xs)], r1[:len(xs)], r2[:len(xs)], r3[:len(xs)]
	s0, s1, s2, s3 := out[0], out[1], out[2], out[3]
	for i, v := range xs {
		s0 += r0[i] * v
		s1 += r1[i] * v
		s2 += r2[i] * v
		s3 += r3[i] * v
	}
	*out = [4]float64{s0, s1, s2, s3}
}

// AxpyRows4 sets y[i] += c[0]*a[i] + c[1]*a[lda+i] + c[2]*a[2*lda+i] +
// c[3]*a[3*lda+i] for i < n, reading y once for four rows of a.
func AxpyRows4(a []float64, lda int, c *[4]float64, y []float64, n int) {
	if n <= 0 {
		return
	}
	_ = a[3*lda+n-1]
	_ = y[n-1]
	n8 := 0
	if Available && n >= 8 {
		n8 = n &^ 7
		AxpyN4(&a[0], lda, &c[0], &y[0], n8)
	}
	// One pass over y adding the four rows in order (the bits of four
	// passes, one per row).
	ys := y[n8:n]
	r0, r1, r2, r3 := a[n8:n], a[lda+n8:lda+n], a[2*lda+n8:2*lda+n], a[3*lda+n8:3*lda+n]
	r0, r1, r2, r3 = r0[:len(ys)], r1[:len(ys)], r2[:len(ys)], r3[:len(ys)]
	c0, c1, c2, c3 := c[0], c[1], c[2], c[3]
	for i, v := range ys {
		v += c0 * r0[i]
		v += c1 * r1[i]
		v += c2 * r2[i]
		v += c3 * r3[i]
		ys[i] = v
	}
}
