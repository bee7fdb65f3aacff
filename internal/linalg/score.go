package linalg

import (
	"github.com/scn2d/scn/internal/linalg/kernel"
	"github.com/scn2d/scn/internal/par"
)

// ScoreNT computes Z = W X^T in float32: W is k x d, X is n x d (both
// row-major, rows contiguous), Z is k x n with row stride ldz. It is the
// product that scores a batch of candidate nodes (k = T_max, n the number
// of images) and that predicts (k = L). Where AVX2 and FMA are available
// the project's kernels do it: three images by four candidates, or two by
// five, per call, with sixteen-lane AVX-512 forms where the processor has
// them; they measured faster than both gonum and OpenBLAS on these shapes
// (BenchmarkScoreNT). Elsewhere it falls back to Sgemm. Rows are split into
// fixed chunks, so the result does not depend on the number of goroutines.
func ScoreNT(k, n, d int, w, x, z []float32, ldz int) {
	if k == 0 || n == 0 {
		return
	}
	if !kernel.Available || d < 8 {
		Sgemm(false, true, k, n, d, 1, w, d, x, d, 0, z, ldz)
		return
	}
	par.Chunks(n, scoreChunk, func(_, lo, hi int) { scoreRows(k, d, w, x, z, ldz, lo, hi) })
}

// useAVX512 selects the AVX-512 kernels where the processor has them (a
// variable so that tests can run the AVX2 ones too). Every group of
// candidates goes through kernels of one width, so a candidate's output
// never depends on the group it was scored in; it may differ in the last
// bits between machines with and without AVX-512.
var useAVX512 = kernel.Available512

// scoreChunk is the images per chunk of ScoreNT.
const scoreChunk = 256

// scoreRows computes columns [lo, hi) of Z. The images are taken in blocks
// of about 512 KB, which stay in the L2 cache while every group of four or
// five candidates (their weights in L1) passes over them: the images are
// read from memory once per block, whatever k is, and the kernel's
// inner loop reads only the images from L2 (reading the weights from L2
// instead, as a loop over candidates inside the image pairs would, halves
// the rate at large k).
func scoreRows(k, d int, w, x, z []float32, ldz, lo, hi int) {
	wide := useAVX512
	d8 := d &^ 7 // the inputs the kernels take; the rest is added in Go
	if wide {
		d8 = d &^ 15
	}
	ib := max(2, min(hi-lo, (512<<10)/(4*d))&^1) // images per block, even
	var out [12]float32
	var wr [5][]float32
	var idx [3]int
	var xs [3][]float32
	for b0 := lo; b0 < hi; b0 += ib {
		b1 := min(hi, b0+ib)
		for j := 0; j < k; {
			// Five candidates at a time (two images per call) where four
			// would leave a padded group: T_max = 5 is one call, not two.
			// Otherwise four candidates and three images per call.
			gs, ni := 4, 3
			if rem := k - j; rem%4 != 0 && rem >= 5 {
				gs, ni = 5, 2
			}
			for g := range wr {
				r := min(j+g, k-1)
				wr[g] = w[r*d : (r+1)*d]
			}
			for i := b0; i < b1; i += ni {
				for r := 0; r < ni; r++ {
					idx[r] = min(i+r, b1-1) // the last images repeat at the end
					xs[r] = x[idx[r]*d : (idx[r]+1)*d]
				}
				switch {
				case ni == 2 && wide:
					kernel.Dot2x5AVX512(&xs[0][0], &xs[1][0], &wr[0][0], &wr[1][0], &wr[2][0], &wr[3][0], &wr[4][0], d8, &out[0])
				case ni == 2:
					kernel.Dot2x5(&xs[0][0], &xs[1][0], &wr[0][0], &wr[1][0], &wr[2][0], &wr[3][0], &wr[4][0], d8, &out[0])
				case wide:
					kernel.Dot3x4AVX512(&xs[0][0], &xs[1][0], &xs[2][0], &wr[0][0], &wr[1][0], &wr[2][0], &wr[3][0], d8, &out[0])
				default:
					kernel.Dot3x4(&xs[0][0], &xs[1][0], &xs[2][0], &wr[0][0], &wr[1][0], &wr[2][0], &wr[3][0], d8, &out[0])
				}
				for g := 0; g < gs && j+g < k; g++ {
					for r := 0; r < ni; r++ {
						v := out[ni*g+r]
						for t := d8; t < d; t++ { // the tail of fewer than 8 inputs
							v += xs[r][t] * wr[g][t]
						}
						z[(j+g)*ldz+idx[r]] = v
					}
				}
			}
			j += gs
		}
	}
}
