package localnet

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/scn2d/scn/internal/cfgerr"
	"github.com/scn2d/scn/internal/local"
)

// PadSame, as Geometry.Pad, pads every border by half the filter size
// (k/2, rounded down): an odd filter's map is then as large as the image.
const PadSame = -1

// MaxFilters bounds Geometry.Filters and Second.Filters.
const MaxFilters = 1 << 16

// MaxOutputs bounds the hidden outputs a geometry gives (the root's
// maxNodes, the most hidden nodes of any model).
const MaxOutputs = 1 << 20

// Geometry makes the hidden nodes local (convolutional): the third axis of
// the learner grid, {vector, matrix} x {random, supervised} x {global,
// local}. A local node is a k x k filter over the image's C planes,
// applied at every position of the image (zero-padded by Pad, every Stride
// pixels), passed through the configuration's activation and pooled over a
// Pool x Pool grid of regions of its map: each filter gives Pool^2 hidden
// outputs per pooling kind (2 for avg+max pooling) and side (2 when
// TwoSided: g(z) and g(-z), for ReLU the pair max(0, z), max(0, -z)). The
// filter of a matrix learner (2DRVFL, 2DSCN) is separable, u v^T times
// channel weights w (2k + C numbers, as the paper's 2D node u^T X v); a
// vector learner's filter is full (C k^2 numbers). Random learners draw
// every filter; supervised ones choose each block of filters among
// Candidates times as many by the block form of the supervisory inequality
// on the pooled outputs the filters add (see fit.go). The output weights
// are the ridge solution of the block engine (Config.Ridge > 0).
//
// The root package names it scn.Local.
type Geometry struct {
	// Sizes are the filter sides k: Filters filters of each.
	Sizes []int
	// Filters is the number of filters per size.
	Filters int
	// Stride is the step between positions (>= 1).
	Stride int
	// Pad is the zero pixels added on every border, or PadSame.
	Pad int
	// Pool is the pool grid's side p.
	Pool int
	// Pooling is what each region gives.
	Pooling local.Pooling
	// TwoSided gives each filter the outputs of z and -z.
	TwoSided bool
	// Standardize centres each pooled output and divides it by its
	// standard deviation over the training images (recorded in the model
	// and applied to every image it predicts).
	Standardize bool
	// Whiten draws the filters in the space of ZCA-whitened patches
	// (Coates, Lee & Ng 2011): W = V (D + WhitenEps I)^-1/2 V^T from the
	// covariance of the k x k x C patches (planes standardised) sampled
	// from the training images with the seed; a filter f applied to the
	// whitened patch W (p - mu) is the filter W f applied to the patch p,
	// so the whitening is folded into the weights the model applies
	// (whiten.go). Each bank records its matrix; a 2D learner's filter
	// stays separable in the whitened space (2k + C numbers per filter,
	// plus one C k^2 x C k^2 matrix per bank).
	Whiten bool
	// WhitenEps is the whitening's regulariser eps > 0, in the units of
	// the standardised planes' variance (scn train --whiten: 0.1); set
	// only with Whiten.
	WhitenEps float64
	// Second, when set, is a second layer of local nodes on the first
	// layer's maps (second.go).
	Second *Second
}

// Default returns the local nodes scn train --local uses unless told
// otherwise: 256 filters of 5 x 5, stride 1, padded to keep the image's
// size, average pooling over a 3 x 3 grid, two-sided, standardised.
func Default() *Geometry {
	return &Geometry{Sizes: []int{5}, Filters: 256, Stride: 1, Pad: PadSame, Pool: 3, Pooling: local.Avg, TwoSided: true, Standardize: true}
}

// PadFor returns the zero pixels added on every border for filters of
// side k (k/2 for PadSame).
func (l *Geometry) PadFor(k int) int {
	if l.Pad == PadSame {
		return k / 2
	}
	return l.Pad
}

// SpecOf returns the geometry of the filters of side k of l.
func SpecOf(l *Geometry, k int) local.Spec {
	return local.Spec{Size: k, Stride: l.Stride, Pad: l.PadFor(k), Pool: l.Pool, Pooling: l.Pooling, TwoSided: l.TwoSided}
}

// PerFilter returns the pooled outputs of one filter.
func (l *Geometry) PerFilter() int { return SpecOf(l, 1).PerFilter() }

// Validate reports the first impossible setting, if any.
func (l *Geometry) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: local nodes: %s", cfgerr.ErrConfig, fmt.Sprintf(format, a...))
	}
	switch {
	case len(l.Sizes) == 0:
		return bad("no filter size")
	case len(l.Sizes) > 16:
		return bad("%d filter sizes, want at most 16", len(l.Sizes))
	case l.Filters < 1 || l.Filters > MaxFilters:
		return bad("filters = %d, want 1 ... %d", l.Filters, MaxFilters)
	case l.Stride < 1:
		return bad("stride %d, want >= 1", l.Stride)
	case l.Pad < PadSame:
		return bad("padding %d, want >= 0 (or same)", l.Pad)
	case l.Pool < 1:
		return bad("pool grid %d, want >= 1", l.Pool)
	case l.Pooling < local.Avg || l.Pooling > local.AvgMax:
		return bad("unknown pooling %d", int(l.Pooling))
	case l.Whiten && !(l.WhitenEps > 0 && l.WhitenEps <= 1e6):
		return bad("whitening eps = %v, want a number > 0 (and at most 1e6)", l.WhitenEps)
	case !l.Whiten && l.WhitenEps != 0:
		return bad("whitening eps = %v without whitening (set Whiten)", l.WhitenEps)
	}
	for i, k := range l.Sizes {
		if k < 1 || k > 1024 {
			return bad("filter size %d, want 1 ... 1024", k)
		}
		if l.Pad >= k {
			return bad("padding %d is not less than the filter size %d", l.Pad, k)
		}
		for _, q := range l.Sizes[:i] {
			if q == k {
				return bad("filter size %d given twice", k)
			}
		}
	}
	if float64(l.Filters)*float64(len(l.Sizes))*float64(l.PerFilter()) > MaxOutputs {
		return bad("%d filters x %d sizes x %d pooled outputs exceed %d hidden outputs", l.Filters, len(l.Sizes), l.PerFilter(), MaxOutputs)
	}
	if l.Second != nil {
		return l.Second.validate(l)
	}
	return nil
}

// ForImages reports whether the local nodes can be applied to images of
// chans planes of rows x cols: a clear error for a filter larger than the
// (padded) image or a pool grid larger than the map.
func (l *Geometry) ForImages(rows, cols, chans int) error {
	if err := l.Validate(); err != nil {
		return err
	}
	for _, k := range l.Sizes {
		if err := SpecOf(l, k).Validate(local.Shape{Rows: rows, Cols: cols, Chans: max(chans, 1)}); err != nil {
			return fmt.Errorf("%w: %v", cfgerr.ErrConfig, err)
		}
		if l.Whiten && (k > rows || k > cols) {
			return fmt.Errorf("%w: local nodes: whitening patches of %d x %d, larger than the images (%d x %d)", cfgerr.ErrConfig, k, k, rows, cols)
		}
	}
	if l.Second != nil {
		return l.secondForImages(rows, cols)
	}
	return nil
}

// Outputs returns the hidden outputs the output layer reads: filters x
// sizes x pooled outputs per filter; with a second layer, its filters x
// pooled outputs per filter, after the first layer's with Concat.
func (l *Geometry) Outputs() int {
	if l.Second != nil {
		n := l.secondOutputs()
		if l.Second.Concat {
			n += l.Filters * l.PerFilter()
		}
		return n
	}
	return l.Filters * len(l.Sizes) * l.PerFilter()
}

// String describes the local nodes as scn train's flags would:
// "256 x 5x5 stride 1 pad same, avg pool 3x3, two-sided, standardised".
func (l *Geometry) String() string {
	var sizes []string
	for _, k := range l.Sizes {
		sizes = append(sizes, fmt.Sprintf("%dx%d", k, k))
	}
	pad := strconv.Itoa(l.Pad)
	if l.Pad == PadSame {
		pad = "same"
	}
	s := fmt.Sprintf("%d x %s stride %d pad %s, %s pool %dx%d", l.Filters, strings.Join(sizes, ","), l.Stride, pad, l.Pooling, l.Pool, l.Pool)
	if l.TwoSided {
		s += ", two-sided"
	}
	if l.Standardize {
		s += ", standardised"
	}
	if l.Whiten {
		s += fmt.Sprintf(", whitened (eps %g)", l.WhitenEps)
	}
	if l.Second != nil {
		s += "; " + l.Second.String()
	}
	return s
}

// Clone returns a deep copy (nil for nil).
func (l *Geometry) Clone() *Geometry {
	if l == nil {
		return nil
	}
	c := *l
	c.Sizes = append([]int(nil), l.Sizes...)
	if l.Second != nil {
		s := *l.Second
		c.Second = &s
	}
	return &c
}
