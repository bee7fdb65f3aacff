package lsq

import (
	"math"

	"github.com/scn2d/scn/internal/bigmem"
	"github.com/scn2d/scn/internal/linalg/kernel"
	"gonum.org/v1/gonum/floats"
)

// Grow returns s resized to n, reusing its storage when it can and
// otherwise leaving room to grow by half, so that buffers that grow with L
// are reallocated O(log L) times, not once per node.
func Grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n, n+n/2)
}

// Transpose sets dst (c x r) to the transpose of src (r x c), both
// row-major.
func Transpose[T any](src []T, r, c int, dst []T) {
	for i := 0; i < r; i++ {
		for j, v := range src[i*c : (i+1)*c] {
			dst[j*r+i] = v
		}
	}
}

// Transposed returns the transpose (c x r) of src (r x c), both row-major.
func Transposed[T any](src []T, r, c int) []T {
	dst := make([]T, r*c)
	Transpose(src, r, c, dst)
	return dst
}

// ColDots returns the dot product of each column of a and b (n x m,
// row-major), each summed in order of rows.
func ColDots(a, b []float64, m int) []float64 {
	out := make([]float64, m)
	for i := range a {
		out[i%m] += a[i] * b[i]
	}
	return out
}

// AddVec returns a + b in a new slice (bigmem: it may be large).
func AddVec(a, b []float64) []float64 {
	out := bigmem.Float64s(len(a))
	for i := range a {
		out[i] = a[i] + b[i]
	}
	return out
}

// RowDots sets out[j] to the dot product of x with row j of a (rows of
// stride lda, len(x) values used), for j < rows, four rows at a time.
func RowDots(a []float64, lda, rows int, x, out []float64) {
	var o [4]float64
	j := 0
	for ; j+4 <= rows; j += 4 {
		kernel.DotRows4(a[j*lda:], lda, x, len(x), &o)
		copy(out[j:j+4], o[:])
	}
	for ; j < rows; j++ {
		out[j] = floats.Dot(a[j*lda:j*lda+len(x)], x)
	}
}

// Dot returns the dot product of a and b, summed in order (a plain loop:
// its bits are those of the code that uses it, unlike floats.Dot's
// unrolled sums).
func Dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// SumChunks sets dst to the sum, in chunk order, of the chunks consecutive
// parts of len(dst) values in part, and returns it.
func SumChunks(part []float64, chunks int, dst []float64) []float64 {
	clear(dst)
	for c := 0; c < chunks; c++ {
		for j, v := range part[c*len(dst) : (c+1)*len(dst)] {
			dst[j] += v
		}
	}
	return dst
}

// Ratios sets dst[k] to num[k] / den[k] where den[k] > 0 and to 0
// elsewhere (a zero, negative or NaN denominator): the step sizes of
// conjugate gradients, one per right-hand side, a converged or
// degenerate column taking no step.
func Ratios(dst, num, den []float64) {
	for k := range dst {
		dst[k] = 0
		if den[k] > 0 {
			dst[k] = num[k] / den[k]
		}
	}
}

// Finite32 reports whether every value of v is finite (no NaN or
// infinity): the check a model's float32 parameters get when it is read
// or validated.
func Finite32(v []float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}
