// Package local computes the hidden outputs of local (convolutional) nodes:
// a k x k filter over the C planes of an image, applied at every position
// of the (zero-padded) image with a stride, passed through an activation,
// and pooled over a p x p grid of regions of the resulting map. Each filter
// gives p*p outputs per pooling kind (average, max) and per side (with two
// sides, the activation of z and of -z: for ReLU the pair max(0, z),
// max(0, -z)).
//
// The filters are applied as one matrix product per chunk of images over
// their patches (im2col): the patches of a chunk, positions x C*k*k, times
// the filters' weights, F x C*k*k, by the project's scoring kernel
// (linalg.ScoreNT), then the activation and the pooling, filter by filter.
// BenchmarkApply compares it with direct separable kernels (see
// separable.go). Only one chunk's maps are held at a time: memory is
// the chunk's patches and maps, never N x positions x filters. The chunks
// are fixed by the shapes alone, and each image's outputs depend on that
// image only, so the outputs are the same bits whatever GOMAXPROCS is.
//
// whiten.go estimates the ZCA whitening of a filter size's patches from a
// sample of them (Whiten: the covariance summed in order, its
// eigendecomposition by gonum, the matrix and bias terms a bank folds into
// its filters). moments.go sums each plane's mean and deviation over
// images or maps (Moments), the planes' standardisation. The package imports internal/linalg, internal/par and
// gonum only.
package local

import (
	"errors"
	"fmt"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/par"
)

// Pooling says how a region of a filter's map is summarised.
type Pooling int

const (
	// Avg is the mean of the region.
	Avg Pooling = iota
	// Max is the largest value of the region.
	Max
	// AvgMax is both: the means, then the maxima.
	AvgMax
)

var poolingNames = []string{"avg", "max", "avg+max"}

// String returns the pooling's name: "avg", "max" or "avg+max".
func (p Pooling) String() string {
	if p < 0 || int(p) >= len(poolingNames) {
		return fmt.Sprintf("pooling(%d)", int(p))
	}
	return poolingNames[p]
}

// ParsePooling reads a pooling's name ("avg", "max", "avg+max"; "both" is
// avg+max).
func ParsePooling(s string) (Pooling, error) {
	if s == "both" || s == "max+avg" {
		return AvgMax, nil
	}
	for i, n := range poolingNames {
		if s == n {
			return Pooling(i), nil
		}
	}
	return 0, fmt.Errorf("unknown pooling %q (want avg, max or avg+max)", s)
}

// kinds returns the number of pooled values per region.
func (p Pooling) kinds() int {
	if p == AvgMax {
		return 2
	}
	return 1
}

// Spec is the geometry of a layer of local nodes.
type Spec struct {
	Size     int     // k: the filter is k x k (x C)
	Stride   int     // s >= 1: the step between positions, both ways
	Pad      int     // zero pixels added on every border (0: positions inside the image only)
	Pool     int     // p: the map is pooled over p x p regions
	Pooling  Pooling // what a region gives
	TwoSided bool    // each filter gives g(z) and g(-z)
}

// Shape is an input image's shape: Chans planes of Rows x Cols.
type Shape struct{ Rows, Cols, Chans int }

// ErrSpec is wrapped by every error about a geometry that cannot be applied.
var ErrSpec = errors.New("local: invalid local nodes")

// maxSide bounds filter sides, strides, padding and pool grids.
const maxSide = 1 << 12

// Validate reports why s cannot be applied to images of shape in, if it
// cannot: a filter larger than the padded image, a stride or a pool grid
// below 1, a pool grid larger than the map.
func (s Spec) Validate(in Shape) error {
	bad := func(format string, a ...any) error { return fmt.Errorf("%w: %s", ErrSpec, fmt.Sprintf(format, a...)) }
	switch {
	case in.Rows < 1 || in.Cols < 1 || in.Chans < 1:
		return bad("images of %d x %d x %d", in.Chans, in.Rows, in.Cols)
	case s.Size < 1 || s.Size > maxSide:
		return bad("filter size %d, want 1 ... %d", s.Size, maxSide)
	case s.Stride < 1 || s.Stride > maxSide:
		return bad("stride %d, want 1 ... %d", s.Stride, maxSide)
	case s.Pad < 0 || s.Pad >= s.Size:
		return bad("padding %d, want 0 ... %d (less than the filter size %d)", s.Pad, s.Size-1, s.Size)
	case s.Pool < 1 || s.Pool > maxSide:
		return bad("pool grid %d, want >= 1", s.Pool)
	case s.Pooling < Avg || s.Pooling > AvgMax:
		return bad("unknown pooling %d", int(s.Pooling))
	case s.Size > in.Rows+2*s.Pad || s.Size > in.Cols+2*s.Pad:
		return bad("filter of %d x %d is larger than the images (%d x %d, padded by %d)", s.Size, s.Size, in.Rows, in.Cols, s.Pad)
	}
	h, w := s.MapSize(in)
	if s.Pool > h || s.Pool > w {
		return bad("pool grid %d x %d is larger than the map of %d x %d (images %d x %d, filter %d, stride %d, padding %d)",
			s.Pool, s.Pool, h, w, in.Rows, in.Cols, s.Size, s.Stride, s.Pad)
	}
	return nil
}

// MapSize returns the rows and columns of a filter's map on images of
// shape in: (Rows + 2 Pad - Size) / Stride + 1 and likewise for columns.
func (s Spec) MapSize(in Shape) (h, w int) {
	return (in.Rows+2*s.Pad-s.Size)/s.Stride + 1, (in.Cols+2*s.Pad-s.Size)/s.Stride + 1
}

// Sides returns 2 for two-sided nodes, else 1.
func (s Spec) Sides() int {
	if s.TwoSided {
		return 2
	}
	return 1
}

// PerFilter returns the pooled outputs of one filter: Pool^2 per pooling
// kind and side.
func (s Spec) PerFilter() int { return s.Pool * s.Pool * s.Pooling.kinds() * s.Sides() }

// Weights returns the values of one filter's full weights, C*k*k.
func (s Spec) Weights(in Shape) int { return in.Chans * s.Size * s.Size }

// Region returns the rows [lo, hi) of region i of a grid of p over a map
// side of n: lo = floor(i n / p), hi = ceil((i+1) n / p), the regions of
// adaptive pooling (PyTorch's adaptive_avg_pool2d).
func Region(i, p, n int) (lo, hi int) {
	return i * n / p, ((i+1)*n + p - 1) / p
}

// Activation applies g(z + b) to every value of z in place.
type Activation func(z []float32, b float32)

// Layer is a bank of F filters with one geometry, ready to apply.
type Layer struct {
	Spec Spec
	In   Shape
	W    []float32 // F x C*k*k: filter f's weight for plane c, row a, column b at f*C*k*k + c*k*k + a*k + b
	Bias []float32 // F
	Act  Activation
	// ReLU says Act is max(0, z + b): the map is then activated and pooled
	// in one pass (the same bits as Act then PoolMap).
	ReLU bool
}

// Filters returns F.
func (l *Layer) Filters() int { return len(l.Bias) }

// Outputs returns the pooled outputs per image, F * PerFilter.
func (l *Layer) Outputs() int { return l.Filters() * l.Spec.PerFilter() }

// Check reports whether the layer's weights agree with its geometry.
func (l *Layer) Check() error {
	if err := l.Spec.Validate(l.In); err != nil {
		return err
	}
	if len(l.W) != len(l.Bias)*l.Spec.Weights(l.In) {
		return fmt.Errorf("%w: %d weights for %d filters of %d", ErrSpec, len(l.W), len(l.Bias), l.Spec.Weights(l.In))
	}
	if l.Act == nil {
		return fmt.Errorf("%w: no activation", ErrSpec)
	}
	return nil
}

// imageChunk is the images per task of Apply: fixed, so that which
// goroutine takes an image never changes its outputs.
const imageChunk = 4

// Apply writes the pooled outputs of the n images x (each C x Rows x Cols,
// one after another) into out: image i's outputs at out[i*ldo+off+j] for
// j < Outputs(), filter f's at f*PerFilter() + (side*kinds + kind)*p*p +
// region (regions row by row). It calls Check first and returns its error.
// Each image is one product of its patches (C*k*k x positions, the
// positions padded to a multiple of 32 with zero patches) by the filters
// (linalg.ProductTN32: five filters by 32 positions per kernel call where
// AVX-512 is available), so that its outputs depend on that image alone;
// the working memory is one image's patches and maps per goroutine.
func (l *Layer) Apply(x []float32, n int, out []float32, ldo, off int) error {
	if err := l.Check(); err != nil {
		return err
	}
	d := l.In.Chans * l.In.Rows * l.In.Cols
	if len(x) < n*d {
		return fmt.Errorf("%w: %d values for %d images of %d", ErrSpec, len(x), n, d)
	}
	if n > 0 && len(out) < (n-1)*ldo+off+l.Outputs() {
		return fmt.Errorf("%w: output of %d values for %d images of %d outputs", ErrSpec, len(out), n, l.Outputs())
	}
	h, w := l.Spec.MapSize(l.In)
	pos := h * w
	pos32 := (pos + 31) &^ 31
	kk := l.Spec.Weights(l.In)
	f := l.Filters()
	wt := make([]float32, kk*f) // the filters' weights, kk x F
	for j := 0; j < f; j++ {
		for t := 0; t < kk; t++ {
			wt[t*f+j] = l.W[j*kk+t]
		}
	}
	par.Chunks(n, imageChunk, func(_, lo, hi int) {
		cols := make([]float32, kk*pos32)
		z := make([]float32, f*pos32)
		var neg []float32
		if l.Spec.TwoSided {
			neg = make([]float32, pos)
		}
		for i := lo; i < hi; i++ {
			l.im2col(x[i*d:(i+1)*d], cols, pos32)
			linalg.ProductTN32(kk, f, pos32, wt, cols, pos32, z, pos32)
			for j := 0; j < f; j++ {
				l.pool(z[j*pos32:j*pos32+pos], neg, j, out[i*ldo:], off)
			}
		}
	})
	return nil
}

// im2col writes the patches of one image, transposed: value t of the patch
// at position q (row-major over the map) at cols[t*ld+q], zero where the
// patch leaves the image; positions pos ... ld-1 are zero.
func (l *Layer) im2col(img, cols []float32, ld int) {
	s, in := l.Spec, l.In
	h, w := s.MapSize(in)
	k := s.Size
	plane := in.Rows * in.Cols
	for c := 0; c < in.Chans; c++ {
		src := img[c*plane : (c+1)*plane]
		for a := 0; a < k; a++ {
			for b := 0; b < k; b++ {
				dst := cols[((c*k+a)*k+b)*ld : ((c*k+a)*k+b+1)*ld]
				clear(dst[h*w:])
				for pr := 0; pr < h; pr++ {
					rr := pr*s.Stride - s.Pad + a
					row := dst[pr*w : (pr+1)*w]
					if rr < 0 || rr >= in.Rows {
						clear(row)
						continue
					}
					sr := src[rr*in.Cols : (rr+1)*in.Cols]
					// Positions lo ... hi-1 read column pc*Stride - Pad + b
					// inside the image; the others read padding.
					lo, hi := colRange(w, in.Cols, s.Stride, b-s.Pad)
					clear(row[:lo])
					clear(row[hi:])
					if s.Stride == 1 {
						copy(row[lo:hi], sr[lo+b-s.Pad:])
						continue
					}
					for pc := lo; pc < hi; pc++ {
						row[pc] = sr[pc*s.Stride+b-s.Pad]
					}
				}
			}
		}
	}
}

// colRange returns the positions [lo, hi) of a map row of w whose column
// pc*stride + shift lies in [0, cols) (empty: lo = hi).
func colRange(w, cols, stride, shift int) (lo, hi int) {
	if shift < 0 {
		lo = (-shift + stride - 1) / stride
	}
	if cols-1-shift < 0 {
		return 0, 0
	}
	hi = min(w, (cols-1-shift)/stride+1)
	lo = min(lo, hi)
	return lo, hi
}

// pool applies filter j's activation to its map inputs z (one image) and
// writes the filter's pooled outputs to out (the image's row); neg is
// scratch of len(z) for two-sided nodes.
func (l *Layer) pool(z, neg []float32, j int, out []float32, off int) {
	s := l.Spec
	h, w := s.MapSize(l.In)
	p := s.Pool
	kinds := s.Pooling.kinds()
	b := l.Bias[j]
	base := off + j*s.PerFilter()
	if l.ReLU {
		poolReLU(z, b, h, w, p, s.Pooling, s.TwoSided, out[base:])
		return
	}
	if s.TwoSided {
		for i, v := range z {
			neg[i] = -v
		}
		l.Act(neg, -b)
		PoolMap(neg, h, w, p, s.Pooling, out[base+kinds*p*p:])
	}
	l.Act(z, b)
	PoolMap(z, h, w, p, s.Pooling, out[base:])
}

// PoolMap pools one h x w map over a p x p grid: the averages (Avg), the
// maxima (Max), or the averages then the maxima (AvgMax), into dst. The
// sums of the averages run row by row in float32, then divide by the
// region's size.
func PoolMap(m []float32, h, w, p int, kind Pooling, dst []float32) {
	pp := p * p
	for gi := 0; gi < p; gi++ {
		r0, r1 := Region(gi, p, h)
		for gj := 0; gj < p; gj++ {
			c0, c1 := Region(gj, p, w)
			var sum float32
			mx := m[r0*w+c0]
			for rr := r0; rr < r1; rr++ {
				for _, v := range m[rr*w+c0 : rr*w+c1] {
					sum += v
					mx = max(mx, v)
				}
			}
			kind.put(dst, gi*p+gj, pp, sum, float32((r1-r0)*(c1-c0)), mx)
		}
	}
}

// put stores the pooled values of one region at k of dst: the average
// (sum / size), the maximum mx, or both (the maximum pp further on).
func (kind Pooling) put(dst []float32, k, pp int, sum, size, mx float32) {
	switch kind {
	case Avg:
		dst[k] = sum / size
	case Max:
		dst[k] = mx
	default:
		dst[k], dst[pp+k] = sum/size, mx
	}
}

// poolReLU is Act (ReLU) then PoolMap on z and, two-sided, on -z, in one
// pass: max(v + b, 0) and max(-v - b, 0) are the values the activation
// gives, summed in the same order.
func poolReLU(z []float32, b float32, h, w, p int, kind Pooling, two bool, dst []float32) {
	pp := p * p
	neg := dst[kind.kinds()*pp:]
	for gi := 0; gi < p; gi++ {
		r0, r1 := Region(gi, p, h)
		for gj := 0; gj < p; gj++ {
			c0, c1 := Region(gj, p, w)
			var sp, sq, mp, mq float32
			if kind == Avg {
				// The sums alone (the common case).
				for rr := r0; rr < r1; rr++ {
					for _, v := range z[rr*w+c0 : rr*w+c1] {
						sp += max(v+b, 0)
						sq += max(-v-b, 0)
					}
				}
			} else {
				for rr := r0; rr < r1; rr++ {
					for _, v := range z[rr*w+c0 : rr*w+c1] {
						a := max(v+b, 0)
						c := max(-v-b, 0)
						sp += a
						sq += c
						mp = max(mp, a)
						mq = max(mq, c)
					}
				}
			}
			k := gi*p + gj
			size := float32((r1 - r0) * (c1 - c0))
			kind.put(dst, k, pp, sp, size, mp)
			if two {
				kind.put(neg, k, pp, sq, size, mq)
			}
		}
	}
}
