// Package linalg holds the few dense kernels the learners spend their time in,
// behind one small set of functions so that the implementation can be switched
// at build time: pure Go (gonum) by default, OpenBLAS with the build tag
// "openblas".
//
// All matrices are row-major. The functions follow the BLAS conventions of
// gonum's blas package (row-major, leading dimensions), so that either backend
// can serve them unchanged. Each backend must give results that do not depend
// on the number of goroutines or threads (the project promises bit-for-bit
// determinism for a given seed).
package linalg

import "github.com/scn2d/scn/internal/par"

// Sgemm computes C = alpha * op(A) * op(B) + beta * C in float32, where op(X)
// is X or its transpose; op(A) is m x k, op(B) is k x n and C is m x n.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dgemm computes C = alpha * op(A) * op(B) + beta * C in float64, with the
// shapes of Sgemm.
func Dgemm(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	dgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Backend names the implementation compiled in: "gonum" or "openblas".
func Backend() string { return backend }

// Class names the backend's kernels as they bear on results: "gonum", or
// for OpenBLAS the core type whose kernels it runs ("openblas-haswell",
// "openblas-skylakex", "openblas-cooperlake", "openblas-zen", ...), which
// it chooses by CPU model unless OPENBLAS_CORETYPE says otherwise. Results
// of the OpenBLAS build are the same bits only within a class.
func Class() string { return class() }

// TrsmRightLowerT sets B = B A^-T in float64: A is n x n lower triangular
// (non-unit diagonal, leading dimension lda), B is m x n (ldb). Each row of
// B is solved on its own, so the rows are split into fixed chunks run in
// parallel and the result does not depend on the number of goroutines.
func TrsmRightLowerT(m, n int, a []float64, lda int, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	par.Chunks(m, trsmChunk, func(_, lo, hi int) {
		trsmRLT(hi-lo, n, a, lda, b[lo*ldb:], ldb)
	})
}

// trsmChunk is the rows of B per call of TrsmRightLowerT.
const trsmChunk = 64

// TrsmLeftLower sets B = A^-1 B (trans false) or B = A^-T B (trans true) in
// float64: A is n x n lower triangular (lda), B is n x m (ldb).
func TrsmLeftLower(trans bool, n, m int, a []float64, lda int, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	trsmLL(trans, n, m, a, lda, b, ldb)
}
