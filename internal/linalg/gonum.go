//go:build !openblas

package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

const backend = "gonum"

var impl gonum.Implementation

func tr(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

func sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	impl.Sgemm(tr(transA), tr(transB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func dgemm(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	impl.Dgemm(tr(transA), tr(transB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
