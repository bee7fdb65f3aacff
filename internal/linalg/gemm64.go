package linalg

import (
	"github.com/scn2d/scn/internal/linalg/kernel"
	"github.com/scn2d/scn/internal/par"
)

// GemmNT64 sets C = beta C + alpha A B^T in float64: A is m x k (lda), B is
// n x k (ldb), C is m x n (ldc). It is the product of the block engine's
// Cholesky updates. The OpenBLAS build calls dgemm; the pure-Go build uses
// the project's AVX-512 kernel (three rows of A by four of B per call)
// where the processor has it, gonum's dgemm on amd64 with AVX2 only, and
// the same blocking with a Go kernel without AVX2 (the purego build, every
// other architecture). Rows of C are split into
// fixed chunks, so the result does not depend on the number of goroutines.
func GemmNT64(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	gemmNT64(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// gemmChunk is the rows of C per parallel chunk of the own kernel.
const gemmChunk = 48

// gemmNT64Own is GemmNT64 with the AVX-512 kernel (or its Go form), on
// fixed row chunks.
func gemmNT64Own(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	par.Chunks(m, gemmChunk, func(_, lo, hi int) {
		gemmNT64Serial(hi-lo, n, k, alpha, a[lo*lda:], lda, b, ldb, beta, c[lo*ldc:], ldc)
	})
}

// Cache blocking of gemmNT64Serial: columns of C (rows of B) by
// gemmNB, the inner dimension by gemmKB, so that a block of B (64 rows of
// 4 KB) stays in L2 and the kernel's seven rows in L1.
const (
	gemmNB = 64
	gemmKB = 512
)

// gemmNT64Serial is GemmNT64 on one goroutine. Each C element is the sum,
// in order, of its inner blocks' kernel sums (plus the tail), so it depends
// only on the shapes.
func gemmNT64Serial(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	scaleRows(m, n, beta, c, ldc)
	var out [12]float64
	var xs [3]*float64
	var ws [4]*float64
	for j0 := 0; j0 < n; j0 += gemmNB {
		j1 := min(n, j0+gemmNB)
		for k0 := 0; k0 < k; k0 += gemmKB {
			k1 := min(k, k0+gemmKB)
			kk := (k1 - k0) &^ 7
			for i := 0; i < m; i += 3 {
				for j := j0; j < j1; j += 4 {
					if kk > 0 {
						if kernel.Available512 {
							for r := range xs {
								xs[r] = &a[min(i+r, m-1)*lda+k0]
							}
							for g := range ws {
								ws[g] = &b[min(j+g, j1-1)*ldb+k0]
							}
							kernel.Dot3x4PDAVX512(xs[0], xs[1], xs[2], ws[0], ws[1], ws[2], ws[3], kk, &out[0])
						} else {
							dot3x4Go(a, lda, b, ldb, min(i, m-1), min(i+1, m-1), min(i+2, m-1), j, min(j+1, j1-1), min(j+2, j1-1), min(j+3, j1-1), k0, kk, &out)
						}
					} else {
						out = [12]float64{}
					}
					for g := 0; g < 4 && j+g < j1; g++ {
						w := b[(j+g)*ldb : (j+g)*ldb+k1]
						for r := 0; r < 3 && i+r < m; r++ {
							x := a[(i+r)*lda : (i+r)*lda+k1]
							s := out[3*g+r]
							for t := k0 + kk; t < k1; t++ {
								s += x[t] * w[t]
							}
							c[(i+r)*ldc+j+g] += alpha * s
						}
					}
				}
			}
		}
	}
}

// dot3x4Go is kernel.Dot3x4PDAVX512 in Go, for the Go build of
// gemmNT64Serial: out[3*g+r] = the sum over t < kk of a[ir*lda+k0+t] *
// b[jg*ldb+k0+t] in order of t from +0 (the plain loop's bits; the tail
// gemmNT64Serial adds after it continues the same sum), for rows i0..i2
// of a and j0..j3 of b. It runs as two passes of three rows by two
// columns: six sums and five values fit amd64's fifteen float registers,
// twelve sums would not.
func dot3x4Go(a []float64, lda int, b []float64, ldb int, i0, i1, i2, j0, j1, j2, j3, k0, kk int, out *[12]float64) {
	x0 := a[i0*lda+k0 : i0*lda+k0+kk]
	x1 := a[i1*lda+k0 : i1*lda+k0+kk]
	x2 := a[i2*lda+k0 : i2*lda+k0+kk]
	for h, jj := range [2][2]int{{j0, j1}, {j2, j3}} {
		w0 := b[jj[0]*ldb+k0 : jj[0]*ldb+k0+kk]
		w1 := b[jj[1]*ldb+k0 : jj[1]*ldb+k0+kk]
		w0, w1 = w0[:len(x0)], w1[:len(x0)]
		x1, x2 := x1[:len(x0)], x2[:len(x0)]
		var s00, s01, s02, s10, s11, s12 float64
		for t, u := range x0 {
			v, z := x1[t], x2[t]
			p := w0[t]
			s00 += u * p
			s01 += v * p
			s02 += z * p
			p = w1[t]
			s10 += u * p
			s11 += v * p
			s12 += z * p
		}
		o := out[6*h : 6*h+6]
		o[0], o[1], o[2], o[3], o[4], o[5] = s00, s01, s02, s10, s11, s12
	}
}

// trsmRLTOwn is TrsmRightLowerT on one chunk of rows of B by blocks of
// trsmBlock columns: the update by the columns solved so far is one
// GemmNT64 product, the diagonal block a small substitution.
func trsmRLTOwn(m, n int, a []float64, lda int, b []float64, ldb int) {
	for j0 := 0; j0 < n; j0 += trsmBlock {
		jb := min(trsmBlock, n-j0)
		if j0 > 0 {
			gemmNT64Serial(m, jb, j0, -1, b, ldb, a[j0*lda:], lda, 1, b[j0:], ldb)
		}
		for i := 0; i < m; i++ {
			row := b[i*ldb : i*ldb+n]
			for j := j0; j < j0+jb; j++ {
				s := row[j]
				aj := a[j*lda : j*lda+j]
				for t := j0; t < j; t++ {
					s -= row[t] * aj[t]
				}
				row[j] = s / a[j*lda+j]
			}
		}
	}
}

// trsmBlock is the column block of trsmRLTOwn.
const trsmBlock = 64

// GramNT32 sets C = A B^T in float32: A is m x k, B is n x k (rows
// contiguous, k apart), C is m x n (ldc). It forms the block engine's Gram
// products. The OpenBLAS build calls sgemm (rows of C in fixed chunks);
// the pure-Go build uses the scoring kernels (ScoreNT). Either way the
// result does not depend on the number of goroutines.
func GramNT32(m, n, k int, a, b []float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	gramNT32(m, n, k, a, b, c, ldc)
}

// scaleRows sets the m x n matrix C (ldc) to beta * C, zero for beta = 0
// (NaNs and infinities in C included, as BLAS does).
func scaleRows[T float32 | float64](m, n int, beta T, c []T, ldc int) {
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		for j := range row {
			if beta == 0 {
				row[j] = 0
			} else {
				row[j] *= beta
			}
		}
	}
}
