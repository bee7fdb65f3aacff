package linalg

import (
	"github.com/scn2d/scn/internal/linalg/kernel"
	"github.com/scn2d/scn/internal/par"
	"sort"
)

// ScoreNT computes Z = W X^T in float32: W is k x d, X is n x d (both
// row-major, rows contiguous), Z is k x n with row stride ldz. It is the
// product that scores a batch of candidate nodes (k = T_max, n the number
// of images) and that predicts (k = L). Where AVX2 and FMA are available
// the project's kernels do it: three images by four candidates, or two by
// five, per call, with sixteen-lane AVX-512 forms where the processor has
// them; they measured faster than both gonum and OpenBLAS on these shapes
// (BenchmarkScoreNT). Elsewhere (the purego build, other architectures)
// a Go kernel does it (scoreGo); with the kernels, d < 8 falls back to
// Sgemm. Rows are split into fixed chunks, so the result does not depend
// on the number of goroutines.
func ScoreNT(k, n, d int, w, x, z []float32, ldz int) {
	if k == 0 || n == 0 {
		return
	}
	if !kernel.Available {
		scoreGo(k, n, d, w, x, z, ldz)
		return
	}
	if d < 8 {
		Sgemm(false, true, k, n, d, 1, w, d, x, d, 0, z, ldz)
		return
	}
	var g spans // every node over all inputs, in order
	if n >= spanMinImages {
		lanes := 8
		if useAVX512 {
			lanes = 16
		}
		g = spansOf(k, d, w, lanes)
	}
	par.Chunks(n, scoreChunk, func(_, lo, hi int) { scoreRows(k, d, w, x, z, ldz, lo, hi, g) })
}

// spans orders a ScoreNT call's nodes for the kernels and says which
// inputs each kernel call must cover. Receptive-field nodes (Config's
// FieldMax) are zero outside a rectangle of the image, so their nonzero
// weights lie in one stretch of the flattened image, about as long as the
// rectangle is tall times the image width. The kernels keep one
// accumulator of eight (sixteen) lanes per output, lane t mod 8 (16) for
// input t, so a sum taken over a stretch that starts and ends on a
// multiple of the lane count, and holds every nonzero weight, has the
// bits of the sum over all d inputs: the products left out are zeros, and
// adding a zero to an accumulator that starts at +0 changes nothing. Each
// kernel call covers the union of its nodes' stretches. The nodes are sorted by where
// their stretch starts, then by where it ends, so that the four or five
// nodes of one kernel call have nearly the same stretch.
type spans struct {
	order  []int // the nodes in the order they are scored; nil: in index order, over all inputs
	lo, hi []int // each node's stretch [lo, hi), by node
}

// spanMinImages is the fewest images for which ScoreNT looks for the
// nodes' stretches: finding them reads every weight once, which for a
// pass of a few images (a server's) costs about what it saves. Either way
// the outputs are the same bits.
const spanMinImages = 8

// node returns the node scored i-th.
func (sp spans) node(i int) int {
	if sp.order == nil {
		return i
	}
	return sp.order[i]
}

// stretch returns node j's stretch; d8 is the kernels' part of the inputs.
func (sp spans) stretch(j, d8 int) (lo, hi int) {
	if sp.order == nil {
		return 0, d8
	}
	return sp.lo[j], sp.hi[j]
}

// spansOf finds the stretches of w's k rows (d values each) for the
// kernels of one width (lanes, a power of two; 1 for the Go kernel).
func spansOf(k, d int, w []float32, lanes int) spans {
	d8 := d &^ (lanes - 1)
	g := spans{order: make([]int, k), lo: make([]int, k), hi: make([]int, k)}
	for j := range k {
		g.order[j] = j
		row := w[j*d : j*d+d8]
		a := 0
		for a < d8 && row[a] == 0 {
			a++
		}
		b := d8
		for b > a && row[b-1] == 0 {
			b--
		}
		if a == b { // nothing to sum in the kernels' part
			a, b = 0, 0
		}
		g.lo[j] = a &^ (lanes - 1)
		g.hi[j] = min(d8, (b+lanes-1)&^(lanes-1))
	}
	sort.SliceStable(g.order, func(a, b int) bool {
		ja, jb := g.order[a], g.order[b]
		if g.lo[ja] != g.lo[jb] {
			return g.lo[ja] < g.lo[jb]
		}
		return g.hi[ja] < g.hi[jb]
	})
	return g
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
func scoreRows(k, d int, w, x, z []float32, ldz, lo, hi int, sp spans) {
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
			a, b := d8, 0 // the union of the group's stretches
			for g := range wr {
				r := sp.node(min(j+g, k-1))
				wr[g] = w[r*d : (r+1)*d]
				if g < gs {
					lo, hi := sp.stretch(r, d8)
					if lo < hi {
						a, b = min(a, lo), max(b, hi)
					}
				}
			}
			if a >= b {
				a, b = 0, 0
			}
			for i := b0; i < b1; i += ni {
				for r := 0; r < ni; r++ {
					idx[r] = min(i+r, b1-1) // the last images repeat at the end
					xs[r] = x[idx[r]*d : (idx[r]+1)*d]
				}
				switch {
				case ni == 2 && wide:
					kernel.Dot2x5AVX512(&xs[0][a], &xs[1][a], &wr[0][a], &wr[1][a], &wr[2][a], &wr[3][a], &wr[4][a], b-a, &out[0])
				case ni == 2:
					kernel.Dot2x5(&xs[0][a], &xs[1][a], &wr[0][a], &wr[1][a], &wr[2][a], &wr[3][a], &wr[4][a], b-a, &out[0])
				case wide:
					kernel.Dot3x4AVX512(&xs[0][a], &xs[1][a], &xs[2][a], &wr[0][a], &wr[1][a], &wr[2][a], &wr[3][a], b-a, &out[0])
				default:
					kernel.Dot3x4(&xs[0][a], &xs[1][a], &xs[2][a], &wr[0][a], &wr[1][a], &wr[2][a], &wr[3][a], b-a, &out[0])
				}
				for g := 0; g < gs && j+g < k; g++ {
					for r := 0; r < ni; r++ {
						v := out[ni*g+r]
						for t := d8; t < d; t++ { // the tail of fewer than 8 inputs
							v += xs[r][t] * wr[g][t]
						}
						z[sp.node(j+g)*ldz+idx[r]] = v
					}
				}
			}
			j += gs
		}
	}
}
