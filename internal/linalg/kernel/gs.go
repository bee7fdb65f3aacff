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
	for r := range out {
		row := a[r*lda : r*lda+n]
		s := out[r]
		for i := n8; i < n; i++ {
			s += row[i] * x[i]
		}
		out[r] = s
	}
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
	for r := range c {
		row, cr := a[r*lda:r*lda+n], c[r]
		for i := n8; i < n; i++ {
			y[i] += cr * row[i]
		}
	}
}
