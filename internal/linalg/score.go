package linalg

import (
	"runtime"
	"sync"

	"github.com/scn2d/scn/internal/linalg/kernel"
)

// ScoreNT computes Z = W X^T in float32: W is k x d, X is n x d (both
// row-major, rows contiguous), Z is k x n with row stride ldz. It is the
// product that scores a batch of candidate nodes: k is small (T_max), n is
// the number of images. Where AVX2 and FMA are available a hand-written
// kernel does it, two images and four candidates at a time, streaming X
// once per four candidates; it measured faster than both gonum and
// OpenBLAS on this shape (internal/linalg/BENCH.md). Elsewhere it falls
// back to Sgemm. Rows are split into fixed chunks, so the result does not
// depend on the number of goroutines.
func ScoreNT(k, n, d int, w, x, z []float32, ldz int) {
	if k == 0 || n == 0 {
		return
	}
	if !kernel.Available || d < 8 {
		Sgemm(false, true, k, n, d, 1, w, d, x, d, 0, z, ldz)
		return
	}
	parallelChunks(n, scoreChunk, func(lo, hi int) { scoreRows(k, d, w, x, z, ldz, lo, hi) })
}

// scoreChunk is the images per chunk of ScoreNT.
const scoreChunk = 256

// scoreRows computes columns [lo, hi) of Z. Candidates are taken in blocks
// of about 200 KB of weights, so that a block stays in the L2 cache while
// the chunk's images stream past it; each image pair is reused from L1 for
// the whole block.
func scoreRows(k, d int, w, x, z []float32, ldz, lo, hi int) {
	d8 := d &^ 7
	kb := max(4, min(64, (50000/d)&^3))
	var out [10]float32
	var wr [5][]float32
	for j0 := 0; j0 < k; j0 += kb {
		j1 := min(k, j0+kb)
		for i := lo; i < hi; i += 2 {
			i1 := min(i+1, hi-1) // an odd last image is paired with itself
			x0, x1 := x[i*d:(i+1)*d], x[i1*d:(i1+1)*d]
			for j := j0; j < j1; {
				// Five candidates at a time where four would leave a
				// padded group (T_max = 5 is one call, not two).
				gs := 4
				if rem := j1 - j; rem%4 != 0 && rem >= 5 {
					gs = 5
				}
				for g := range wr {
					r := min(j+g, j1-1)
					wr[g] = w[r*d : (r+1)*d]
				}
				if gs == 5 {
					kernel.Dot2x5(&x0[0], &x1[0], &wr[0][0], &wr[1][0], &wr[2][0], &wr[3][0], &wr[4][0], d8, &out[0])
				} else {
					kernel.Dot2x4(&x0[0], &x1[0], &wr[0][0], &wr[1][0], &wr[2][0], &wr[3][0], d8, &out[0])
				}
				for g := 0; g < gs && j+g < j1; g++ {
					s0, s1 := out[2*g], out[2*g+1]
					for t := d8; t < d; t++ { // the tail of fewer than 8 inputs
						s0 += x0[t] * wr[g][t]
						s1 += x1[t] * wr[g][t]
					}
					z[(j+g)*ldz+i] = s0
					z[(j+g)*ldz+i1] = s1
				}
				j += gs
			}
		}
	}
}

// parallelChunks calls f on fixed chunks of [0, n) on up to GOMAXPROCS
// goroutines.
func parallelChunks(n, chunk int, f func(lo, hi int)) {
	chunks := (n + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 {
		for lo := 0; lo < n; lo += chunk {
			f(lo, min(n, lo+chunk))
		}
		return
	}
	next := make(chan int, chunks)
	for c := 0; c < chunks; c++ {
		next <- c
	}
	close(next)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				f(c*chunk, min(n, (c+1)*chunk))
			}
		}()
	}
	wg.Wait()
}
