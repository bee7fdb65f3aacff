package localnet

import (
	"fmt"

	"github.com/scn2d/scn/internal/cfgerr"
	"github.com/scn2d/scn/internal/local"
)

// Second is a second layer of local nodes (Geometry.Second): the paper's
// deep future work in its convolutional form, with closed-form output
// weights only. The first layer's filters (Geometry.Sizes must hold one
// size) are applied as without it and activated (two-sided: g(z) and
// g(-z), two maps per filter); each map is pooled over Window x Window
// windows every Stride positions (no padding), by their maximum or their
// average (MidPooling), into a coarser map. Those maps, standardised plane
// by plane with their moments over the training images (folded into the
// second layer's filters), are the planes the second layer reads: Filters
// filters of Size x Size over all the planes (a 2D learner's separable u
// v^T times one weight per plane, 2 Size + planes numbers; a 1D learner's
// full filter, planes x Size^2), applied at every position with Size/2
// zero pixels on every border and stride 1, activated and pooled over the
// Geometry's Pool grid with its Pooling and sides, as the first layer is.
// The hidden outputs are the second layer's pooled outputs, after the
// first layer's when Concat. The first layer's filters are random for
// every learner (drawn as the Geometry says, whitened with
// Geometry.Whiten); a supervised learner (SCN, 2DSCN) chooses the second
// layer's filters by the supervisory inequality, a random one draws them.
//
// The root package names it scn.LocalSecond.
type Second struct {
	// Filters is the second layer's filters.
	Filters int
	// Size is their side k2.
	Size int
	// Window and Stride are the pooling of the first layer's maps between
	// the layers (2 and 2 halve them).
	Window, Stride int
	// MidPooling is max or avg pooling.
	MidPooling local.Pooling
	// Concat keeps the first layer's pooled outputs as hidden outputs too.
	Concat bool
}

// DefaultSecond returns the second layer scn train --local2 uses unless
// told otherwise: 3 x 3 filters on the first layer's maps pooled by their
// maximum over 2 x 2 windows every 2 positions, both layers' pooled
// outputs kept (measured on held-out natural-images, docs/local.md).
func DefaultSecond(filters int) *Second {
	return &Second{Filters: filters, Size: 3, Window: 2, Stride: 2, MidPooling: local.Max, Concat: true}
}

// MidOf returns the pooling between the layers of s.
func MidOf(s *Second) local.Mid {
	return local.Mid{Window: s.Window, Stride: s.Stride, Pooling: s.MidPooling}
}

// validate reports the first impossible setting of the second layer, l
// being the first's, if any.
func (s *Second) validate(l *Geometry) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: second layer of local nodes: %s", cfgerr.ErrConfig, fmt.Sprintf(format, a...))
	}
	switch {
	case len(l.Sizes) != 1:
		return bad("the first layer has %d filter sizes, want one", len(l.Sizes))
	case s.Filters < 1 || s.Filters > MaxFilters:
		return bad("filters = %d, want 1 ... %d", s.Filters, MaxFilters)
	case s.Size < 1 || s.Size > 1024:
		return bad("filter size %d, want 1 ... 1024", s.Size)
	case s.Window < 1 || s.Window > 1024:
		return bad("pooling window %d between the layers, want 1 ... 1024", s.Window)
	case s.Stride < 1 || s.Stride > 1024:
		return bad("pooling stride %d between the layers, want 1 ... 1024", s.Stride)
	case s.MidPooling != local.Max && s.MidPooling != local.Avg:
		return bad("pooling %v between the layers, want max or avg", s.MidPooling)
	case float64(l.Filters)*float64(l.Sides())*float64(s.Size*s.Size) > 1<<24:
		return bad("%d first-layer maps x %d x %d weights per filter are too many", l.Filters*l.Sides(), s.Size, s.Size)
	}
	if float64(s.Filters)*float64(l.PerFilter()) > MaxOutputs {
		return bad("%d filters x %d pooled outputs exceed %d hidden outputs", s.Filters, l.PerFilter(), MaxOutputs)
	}
	return nil
}

// Sides returns 2 for two-sided local nodes, else 1.
func (l *Geometry) Sides() int { return SpecOf(l, 1).Sides() }

// PlanesOf returns the shape the second layer of l reads on images of
// rows x cols: the first layer's maps pooled between the layers.
func PlanesOf(l *Geometry, rows, cols int) local.Shape {
	sp := SpecOf(l, l.Sizes[0])
	h, w := sp.MapSize(local.Shape{Rows: rows, Cols: cols, Chans: 1})
	r, c := MidOf(l.Second).Size(h, w)
	return local.Shape{Rows: r, Cols: c, Chans: l.Filters * l.Sides()}
}

// SecondGeometry returns the second layer's geometry as a Geometry of one
// size: Size x Size filters, padding Size/2, stride 1, the first layer's
// pool grid, pooling, sides and standardisation, no whitening.
func (l *Geometry) SecondGeometry() *Geometry {
	s := l.Second
	return &Geometry{Sizes: []int{s.Size}, Filters: s.Filters, Stride: 1, Pad: s.Size / 2, Pool: l.Pool, Pooling: l.Pooling,
		TwoSided: l.TwoSided, Standardize: l.Standardize}
}

// secondForImages reports whether the second layer can be applied after
// the first on images of rows x cols.
func (l *Geometry) secondForImages(rows, cols int) error {
	sp := SpecOf(l, l.Sizes[0])
	h, w := sp.MapSize(local.Shape{Rows: rows, Cols: cols, Chans: 1})
	if err := MidOf(l.Second).Validate(h, w); err != nil {
		return fmt.Errorf("%w: second layer of local nodes: %v", cfgerr.ErrConfig, err)
	}
	p := PlanesOf(l, rows, cols)
	if s := l.Second.Size; s > p.Rows || s > p.Cols {
		return fmt.Errorf("%w: second layer of local nodes: filters of %d x %d are larger than the first layer's pooled maps (%d x %d: images %d x %d, maps %d x %d, pooled by %d every %d)",
			cfgerr.ErrConfig, s, s, p.Rows, p.Cols, rows, cols, h, w, l.Second.Window, l.Second.Stride)
	}
	if err := SpecOf(l.SecondGeometry(), l.Second.Size).Validate(p); err != nil {
		return fmt.Errorf("%w: second layer of local nodes: %v", cfgerr.ErrConfig, err)
	}
	return nil
}

// secondOutputs returns the hidden outputs of the second layer.
func (l *Geometry) secondOutputs() int { return l.Second.Filters * l.PerFilter() }

// String describes the second layer: "then 128 x 3x3 on max 2/2 pooled
// maps, both layers' outputs".
func (s *Second) String() string {
	out := fmt.Sprintf("then %d x %dx%d on %s %d/%d pooled maps", s.Filters, s.Size, s.Size, s.MidPooling, s.Window, s.Stride)
	if s.Concat {
		return out + ", both layers' outputs"
	}
	return out + ", second layer's outputs"
}

// SameSecond reports whether two second layers' geometries are equal (or
// both absent).
func SameSecond(a, b *Second) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
