//go:build openblas

package linalg

// #cgo pkg-config: openblas
// #include <cblas.h>
// void openblas_set_num_threads(int);
// char* openblas_get_corename(void);
import "C"

import (
	"strings"
	"unsafe"

	"github.com/scn2d/scn/internal/par"
)

const backend = "openblas"

// class names OpenBLAS's kernels: it picks them by CPU model at start
// (or as OPENBLAS_CORETYPE says), and their sums round differently.
func class() string {
	return "openblas-" + strings.ToLower(C.GoString(C.openblas_get_corename()))
}

// OpenBLAS runs single-threaded: its own threads spin after each call and
// steal the cores from the Go code that runs between calls. Large products
// are split by rows into fixed chunks, one single-threaded call per chunk on
// up to GOMAXPROCS goroutines; each row of the result is computed by the
// same call shape whatever the number of goroutines, so results do not
// depend on it.
func init() { C.openblas_set_num_threads(1) }

// rowChunk is the rows per call of a split product.
const rowChunk = 256

// colChunk is the columns per call of a product split by columns.
const colChunk = 2048

// splitRows calls f(lo, hi) on fixed chunks of rows of [0, m), in parallel
// when the product is large enough to pay for it.
func splitRows(m, work int, f func(lo, hi int)) { split(m, rowChunk, work, f) }

// splitCols is splitRows for chunks of columns.
func splitCols(n, work int, f func(lo, hi int)) { split(n, colChunk, work, f) }

// split calls f on the fixed chunks of [0, m) (par.Chunks), in the calling
// goroutine when the product is too small to pay for goroutines.
func split(m, chunk, work int, f func(lo, hi int)) {
	workers := 0 // GOMAXPROCS
	if work < 1<<20 {
		workers = 1
	}
	par.ChunksOn(workers, m, chunk, func(_, lo, hi int) { f(lo, hi) })
}

func trans(t bool) C.enum_CBLAS_TRANSPOSE {
	if t {
		return C.CblasTrans
	}
	return C.CblasNoTrans
}

// The callers check that m and n are positive, so every slice holds at
// least one element and &a[0] is safe.

func sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if k == 0 {
		scaleRows(m, n, beta, c, ldc)
		return
	}
	if transA { // rows of op(A) are columns of A: not split
		C.cblas_sgemm(C.CblasRowMajor, trans(transA), trans(transB), C.blasint(m), C.blasint(n), C.blasint(k),
			C.float(alpha), (*C.float)(unsafe.Pointer(&a[0])), C.blasint(lda),
			(*C.float)(unsafe.Pointer(&b[0])), C.blasint(ldb),
			C.float(beta), (*C.float)(unsafe.Pointer(&c[0])), C.blasint(ldc))
		return
	}
	if m <= rowChunk && n > colChunk {
		// A short, wide product (candidate scoring: W X^T): split the columns.
		splitCols(n, m*n*k, func(lo, hi int) {
			boff := lo
			if transB {
				boff = lo * ldb
			}
			C.cblas_sgemm(C.CblasRowMajor, C.CblasNoTrans, trans(transB), C.blasint(m), C.blasint(hi-lo), C.blasint(k),
				C.float(alpha), (*C.float)(unsafe.Pointer(&a[0])), C.blasint(lda),
				(*C.float)(unsafe.Pointer(&b[boff])), C.blasint(ldb),
				C.float(beta), (*C.float)(unsafe.Pointer(&c[lo])), C.blasint(ldc))
		})
		return
	}
	splitRows(m, m*n*k, func(lo, hi int) {
		C.cblas_sgemm(C.CblasRowMajor, C.CblasNoTrans, trans(transB), C.blasint(hi-lo), C.blasint(n), C.blasint(k),
			C.float(alpha), (*C.float)(unsafe.Pointer(&a[lo*lda])), C.blasint(lda),
			(*C.float)(unsafe.Pointer(&b[0])), C.blasint(ldb),
			C.float(beta), (*C.float)(unsafe.Pointer(&c[lo*ldc])), C.blasint(ldc))
	})
}

func dgemm(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if k == 0 {
		scaleRows(m, n, beta, c, ldc)
		return
	}
	if transA {
		C.cblas_dgemm(C.CblasRowMajor, trans(transA), trans(transB), C.blasint(m), C.blasint(n), C.blasint(k),
			C.double(alpha), (*C.double)(unsafe.Pointer(&a[0])), C.blasint(lda),
			(*C.double)(unsafe.Pointer(&b[0])), C.blasint(ldb),
			C.double(beta), (*C.double)(unsafe.Pointer(&c[0])), C.blasint(ldc))
		return
	}
	splitRows(m, m*n*k, func(lo, hi int) {
		C.cblas_dgemm(C.CblasRowMajor, C.CblasNoTrans, trans(transB), C.blasint(hi-lo), C.blasint(n), C.blasint(k),
			C.double(alpha), (*C.double)(unsafe.Pointer(&a[lo*lda])), C.blasint(lda),
			(*C.double)(unsafe.Pointer(&b[0])), C.blasint(ldb),
			C.double(beta), (*C.double)(unsafe.Pointer(&c[lo*ldc])), C.blasint(ldc))
	})
}

func trsmRLT(m, n int, a []float64, lda int, b []float64, ldb int) {
	C.cblas_dtrsm(C.CblasRowMajor, C.CblasRight, C.CblasLower, C.CblasTrans, C.CblasNonUnit,
		C.blasint(m), C.blasint(n), 1, (*C.double)(unsafe.Pointer(&a[0])), C.blasint(lda),
		(*C.double)(unsafe.Pointer(&b[0])), C.blasint(ldb))
}

func trsmLL(trans_ bool, n, m int, a []float64, lda int, b []float64, ldb int) {
	C.cblas_dtrsm(C.CblasRowMajor, C.CblasLeft, C.CblasLower, trans(trans_), C.CblasNonUnit,
		C.blasint(n), C.blasint(m), 1, (*C.double)(unsafe.Pointer(&a[0])), C.blasint(lda),
		(*C.double)(unsafe.Pointer(&b[0])), C.blasint(ldb))
}

func gemmNT64(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	dgemm(false, true, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func gramNT32(m, n, k int, a, b []float32, c []float32, ldc int) {
	sgemm(false, true, m, n, k, 1, a, k, b, k, 0, c, ldc)
}
