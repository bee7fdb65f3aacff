//go:build !openblas

package linalg

import (
	"github.com/scn2d/scn/internal/linalg/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

const backend = "gonum"

// class is the backend: gonum's Go code does not depend on the CPU model.
func class() string { return backend }

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

// ownGemm64 selects the project's GemmNT64 and TrsmRightLowerT: with the
// AVX-512 kernel, or without AVX2 (the purego build, other architectures)
// with its Go form; gonum's on amd64 with AVX2 only.
var ownGemm64 = kernel.Available512 || !kernel.Available

func trsmRLT(m, n int, a []float64, lda int, b []float64, ldb int) {
	if ownGemm64 {
		trsmRLTOwn(m, n, a, lda, b, ldb)
		return
	}
	impl.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, m, n, 1, a, lda, b, ldb)
}

func trsmLL(trans bool, n, m int, a []float64, lda int, b []float64, ldb int) {
	impl.Dtrsm(blas.Left, blas.Lower, tr(trans), blas.NonUnit, n, m, 1, a, lda, b, ldb)
}

func gemmNT64(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if ownGemm64 {
		gemmNT64Own(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	dgemm(false, true, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func gramNT32(m, n, k int, a, b []float32, c []float32, ldc int) {
	ScoreNT(m, n, k, a, b, c, ldc)
}
