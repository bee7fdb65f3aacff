// Package direct is the pure part of direct links (scn's
// Config.DirectLink, Model.Direct): an output layer that reads the input
// features F beside the hidden outputs H, f(X) = H beta + F W.
//
// It owns the features (the pixels themselves, or their averages over p x p
// blocks of each plane: Features, Rows, Into), the plan of their pooling
// and of the prefixes model selection scores with them (Plan, Cap, Dim and
// their thresholds), the primal ridge solves of every prefix from one
// Cholesky factor (PrimalBetas) and the normal equations of [F H] summed
// batch by batch (Normal, solve.go), the dual system's coefficients
// (DualCoef) and solves (Dual on A = [F H] formed, PixelDual on the pixels
// beside H, solve.go), and the pixel kernels F F^T and F^T C formed strip
// by strip over the float32 pixels (PixelKernel, PixelT); model
// selection's held-out outputs of every prefix with direct links, primal
// or dual (PrimalScores, DualKernels, DualScores, DualGrid: select.go); and the solve of
// a model's prefix with direct links: its normal equations (NormalOf), [F H]
// formed (Dense) and the choice of minimum-norm, primal or dual solve
// (Solve, model.go), reading the hidden outputs through Hidden. The root
// package keeps the model's side: its hidden outputs, the model with
// direct links, the file and the indicator term.
//
// It may import the standard library, gonum, internal/linalg and
// internal/lsq only; never the root package scn or any package above it.
package direct

import (
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Images are images as the root package's scn.Images holds them (the same
// fields, so one converts to the other): N images of Channels (0 means 1)
// planes of Rows x Cols, image i at Pix[i*Dim():].
type Images struct {
	Rows, Cols int
	Channels   int
	Pix        []float32
}

// shape returns the number of images n, their planes (1 for grey) and
// the values d of each (planes x Rows x Cols).
func (im Images) shape() (n, chans, d int) {
	chans = max(im.Channels, 1)
	d = chans * im.Rows * im.Cols
	if im.Rows > 0 && im.Cols > 0 {
		n = len(im.Pix) / d
	}
	return n, chans, d
}

// batch is the images whose features Into forms at a time.
const batch = 128

// Thresholds of Plan.
const (
	// DualN: at most this many images, and fewer than the unknowns,
	// solve the dual (N x N) system on the pixels as they are.
	DualN = 2048
	// MaxFeatures: beyond the dual's reach, the pixels are pooled
	// until there are at most this many features.
	MaxFeatures = 1024
	// MaxCols: the primal systems of model selection are scored up to
	// this many unknowns (features plus nodes): each ridge term costs a
	// Cholesky factorisation of that size.
	MaxCols = 3072
	// MaxFlops bounds the multiply-adds of the normal equations N k^2
	// that model selection forms for direct links (k unknowns): on many
	// images the features are pooled until N D^2 is at most a quarter of
	// it, and prefixes past sqrt(MaxFlops / N) unknowns are not
	// scored with direct links (MNIST: 14 x 14 pooled pixels, prefixes up
	// to 412 nodes; where thousands of nodes are fitted, the linear part
	// matters little).
	MaxFlops = 2e10
)

// Plan returns the pooling of the direct features for n images of
// chans x rows x cols: 1 (the pixels as they are) when n <= DualN
// (the dual system is then N x N whatever D is), else the smallest block
// side p that leaves at most MaxFeatures values D with N D^2 at most
// a quarter of MaxFlops (1 when the pixels already do).
func Plan(n, chans, rows, cols int) int {
	if n <= DualN {
		return 1
	}
	fits := func(p int) bool {
		d := float64(Dim(chans, rows, cols, p))
		return d <= MaxFeatures && float64(n)*d*d <= MaxFlops/4
	}
	p := 1
	for !fits(p) && p < min(rows, cols) {
		p++
	}
	return p
}

// Cap returns the most nodes whose direct-link systems model
// selection scores on n training images with d features: within
// MaxCols unknowns and MaxFlops for the normal equations.
func Cap(n, d int) int {
	k := min(MaxCols, int(math.Sqrt(MaxFlops/float64(max(n, 1)))))
	return max(0, k-d)
}

// Dim returns the features of images of chans x rows x cols pooled
// by p x p blocks.
func Dim(chans, rows, cols, pool int) int {
	pool = max(pool, 1)
	return max(chans, 1) * (rows / pool) * (cols / pool)
}

// Features writes the features of images lo .. lo+rows-1 of x,
// feature-major: dst[k*rows+i] is feature k of image lo+i.
func Features(x Images, pool, lo, rows int, dst []float64) {
	_, c, d := x.shape()
	r, w := x.Rows, x.Cols
	if pool <= 1 {
		for i := 0; i < rows; i++ {
			for k, v := range x.Pix[(lo+i)*d : (lo+i+1)*d] {
				dst[k*rows+i] = float64(v)
			}
		}
		return
	}
	pr, pc := r/pool, w/pool
	inv := 1 / float64(pool*pool)
	for i := 0; i < rows; i++ {
		img := x.Pix[(lo+i)*d : (lo+i+1)*d]
		for ch := 0; ch < c; ch++ {
			plane := img[ch*r*w : (ch+1)*r*w]
			for a := 0; a < pr; a++ {
				for b := 0; b < pc; b++ {
					var s float64
					for y := a * pool; y < (a+1)*pool; y++ {
						for _, v := range plane[y*w+b*pool : y*w+(b+1)*pool] {
							s += float64(v)
						}
					}
					dst[((ch*pr+a)*pc+b)*rows+i] = s * inv
				}
			}
		}
	}
}

// Rows returns the features of every image of x, N x D row-major.
func Rows(x Images, pool int) *mat.Dense {
	n, _, _ := x.shape()
	d := Dim(x.Channels, x.Rows, x.Cols, pool)
	out := mat.NewDense(n, max(d, 1), nil)
	Into(x, pool, out.RawMatrix())
	return out
}

// Into writes the features of every image of x into the first D
// columns of raw's rows.
func Into(x Images, pool int, raw blas64.General) {
	n, _, _ := x.shape()
	d := Dim(x.Channels, x.Rows, x.Cols, pool)
	buf := make([]float64, d*batch)
	for lo := 0; lo < n; lo += batch {
		rows := min(batch, n-lo)
		Features(x, pool, lo, rows, buf[:d*rows])
		for k := 0; k < d; k++ {
			for i := 0; i < rows; i++ {
				raw.Data[(lo+i)*raw.Stride+k] = buf[k*rows+i]
			}
		}
	}
}

// PrimalBetas solves (G + alpha I) w = A^T T for the unknowns of every
// prefix k0 + l (l in grid) of the k unknowns with one Cholesky
// factorisation (the leading block of a factor is the factor of the leading
// block): the direct features come first, so each prefix is the features
// with the first l nodes. An entry is nil when the factor fails.
func PrimalBetas(g, at []float64, k, mm, k0 int, grid []int, alpha float64) [][]float64 {
	out := make([][]float64, len(grid))
	sizes := make([]int, len(grid))
	for i, l := range grid {
		sizes[i] = k0 + l
	}
	lsq.PrefixRidgeFlat(g, at, k, mm, sizes, alpha, out)
	return out
}

// DualCoef solves (K + alpha I) A = T for A (n x M); K is left unchanged.
func DualCoef(kk []float64, n int, t []float64, mm int, alpha float64) ([]float64, error) {
	out := make([][]float64, 1)
	if !lsq.PrefixRidgeFlat(kk, t, n, mm, []int{n}, alpha, out) {
		return nil, fmt.Errorf("scn: direct links: the dual system of %d images is singular at ridge %g", n, alpha)
	}
	return out[0], nil
}

// pixelStrip is the pixel columns per strip of PixelKernel and PixelT.
const pixelStrip = 2048

// PixelKernel adds A B^T of the pixels of a (na images) and b (nb images)
// to k (na x nb), by strips of pixelStrip columns widened to float64 (so
// that no float64 copy of the images is made), summed in order.
func PixelKernel(a, b Images, k []float64) {
	na, _, d := a.shape()
	nb, _, _ := b.shape()
	sa := make([]float64, na*pixelStrip)
	sb := make([]float64, nb*pixelStrip)
	forStrips(d, func(c0, w int) {
		strip(a, c0, w, sa)
		strip(b, c0, w, sb)
		linalg.GemmNT64(na, nb, w, 1, sa, w, sb, w, 1, k, nb)
	})
}

// forStrips calls f with the first column and the width of each strip of
// pixelStrip of d columns, in order.
func forStrips(d int, f func(c0, w int)) {
	for c0 := 0; c0 < d; c0 += pixelStrip {
		f(c0, min(pixelStrip, d-c0))
	}
}

// strip writes pixel columns c0 .. c0+w-1 of every image of x to s (N x w).
func strip(x Images, c0, w int, s []float64) {
	n, _, d := x.shape()
	for i := 0; i < n; i++ {
		for j, v := range x.Pix[i*d+c0 : i*d+c0+w] {
			s[i*w+j] = float64(v)
		}
	}
}

// PixelT returns X^T c (D x M) of the pixels of x and c (N x M), strip by
// strip.
func PixelT(x Images, c []float64, mm int) []float64 {
	n, _, d := x.shape()
	out := make([]float64, d*mm)
	s := make([]float64, n*pixelStrip)
	forStrips(d, func(c0, w int) {
		strip(x, c0, w, s)
		linalg.Dgemm(true, false, w, mm, n, 1, s, w, c, mm, 0, out[c0*mm:], mm)
	})
	return out
}

// Bytes is the memory direct links add to a fit or a selection on n
// images of chans x rows x cols with l nodes: in the dual form [F H] of
// every image (the final solve's; the folds' features are smaller) and two
// N x N kernels; in the primal form three k x k matrices (the training
// part's normal equations, a factor, the final solve's) and the held-out
// features.
func Bytes(n, rows, cols, chans, l int) int64 {
	pool := Plan(n, chans, rows, cols)
	d := Dim(chans, rows, cols, pool)
	if n <= DualN && d+l > n {
		return 8 * (int64(n)*int64(d+l) + 2*int64(n)*int64(n))
	}
	k := int64(d + min(l, max(Cap(n, d), l)))
	return 8 * (3*k*k + int64(n)*int64(d))
}
