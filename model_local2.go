package scn

import (
	"fmt"
	"runtime"

	"github.com/scn2d/scn/internal/local"
)

// Models of two layers of local nodes (Local.Second, config_local2.go).
// The first bank (LocalLayer.Banks[0]) is the first layer; the second
// layer's bank (LocalLayer.Second) reads its pooled maps. The hidden
// outputs are, in this order, the first layer's pooled outputs (with
// Concat) and the second layer's, standardised together by Mean and
// Scale.

// secondLayerOutputs returns the hidden outputs of a two-layer local
// layer: the filters it holds times the pooled outputs per filter.
func (ll *LocalLayer) secondLayerOutputs() int {
	per := ll.Geometry.perFilter()
	n := 0
	if ll.Geometry.Second.Concat && len(ll.Banks) > 0 {
		n += ll.Banks[0].Filters() * per
	}
	if ll.Second != nil {
		n += ll.Second.Filters() * per
	}
	return n
}

// secondLayer returns the second layer's bank b as a local.Layer reading
// the planes of the first layer of geometry g on images of rows x cols.
func secondLayer(in InputMap, act Activation, g *Local, b LocalBank, rows, cols int) *local.Layer {
	p := g.planes(rows, cols)
	return bankLayer(in, act, g.secondGeometry(), b, p.Rows, p.Cols, p.Chans)
}

// stackOf returns the two layers as a local.Stack: first, the pooling
// between them, and the second layer's bank b.
// A matrix learner's second layer is applied in its separable form
// (local.SepFilters): its filters read 2F planes, where mixing the planes
// once and filtering by v and u costs 2F + 2 k2 multiply-adds per
// position, against 2F k2^2 for the full weights.
func stackOf(in InputMap, act Activation, g *Local, first *local.Layer, b LocalBank, rows, cols int) *local.Stack {
	st := &local.Stack{First: first, Mid: g.Second.mid(), Second: secondLayer(in, act, g, b, rows, cols)}
	if in == Matrix {
		st.Sep = local.SepOf(b.Params, b.Size, b.Filters(), st.Second.In.Chans)
	}
	return st
}

// secondFeatures writes the pooled outputs of a two-layer model (not yet
// standardised) of the n images x into out (row i at out[i*L:]), first
// being the first layer.
func (m *Model) secondFeatures(first *local.Layer, x []float32, n int, out []float32) error {
	l := m.localOutputs()
	off := 0
	g := &m.Local.Geometry
	if g.Second.Concat {
		if err := first.Apply(x, n, out, l, 0); err != nil {
			return err
		}
		off = first.Outputs()
	}
	st := stackOf(m.Kind.Input, m.Activation, g, first, *m.Local.Second, m.Rows, m.Cols)
	return st.Apply(x, n, out, l, off)
}

// checkSecond reports whether a two-layer model's second bank agrees with
// its geometry and holds finite numbers (nil for other models).
func (m *Model) checkSecond() error {
	ll := m.Local
	s := ll.Geometry.Second
	switch {
	case s == nil && ll.Second == nil:
		return nil
	case s == nil || ll.Second == nil:
		return fmt.Errorf("scn: a second layer of local filters without its geometry, or the reverse")
	}
	b := ll.Second
	p := ll.Geometry.planes(m.Rows, m.Cols)
	np := filterMap(m.Kind.Input, s.Size, p.Chans).Size()
	switch {
	case len(ll.Banks) != 1:
		return fmt.Errorf("scn: a second layer of local filters after %d banks, want one", len(ll.Banks))
	case b.Size != s.Size:
		return fmt.Errorf("scn: second layer of %d x %d filters, the geometry says %d", b.Size, b.Size, s.Size)
	case b.Filters() > s.Filters:
		return fmt.Errorf("scn: second layer of %d filters, want 0 ... %d", b.Filters(), s.Filters)
	case len(b.Params) != b.Filters()*np:
		return fmt.Errorf("scn: second layer holds %d parameters for %d filters of %d", len(b.Params), b.Filters(), np)
	case b.Whiten != nil:
		return fmt.Errorf("scn: second layer of local filters with a whitening matrix")
	case ll.Banks[0].Filters() != ll.Geometry.Filters:
		return fmt.Errorf("scn: first layer of %d filters under a second layer, the geometry says %d", ll.Banks[0].Filters(), ll.Geometry.Filters)
	}
	if !finite32(b.Params) {
		return fmt.Errorf("scn: the second layer of local filters has a non-finite parameter")
	}
	if !finite32(b.Bias) {
		return fmt.Errorf("scn: the second layer of local filters has a non-finite bias")
	}
	return nil
}

// SecondWeights returns the full weights of the second layer of a
// two-layer local model, F2 x P x k2 x k2 row-major (P planes: the first
// layer's pooled maps, filter j's g(z) then g(-z) two-sided), the
// planes' standardisation folded in; nil for other models.
func (m *Model) SecondWeights() []float32 {
	if m.Local == nil || m.Local.Second == nil {
		return nil
	}
	p := m.Local.Geometry.planes(m.Rows, m.Cols)
	return bankWeights(m.Kind.Input, *m.Local.Second, p.Chans)
}

// secondFilters returns the filters of the second layer (0 without).
func (m *Model) secondFilters() int {
	if m.Local == nil || m.Local.Second == nil {
		return 0
	}
	return m.Local.Second.Filters()
}

// SecondParamsPerFilter returns the parameters of one filter of the second
// layer of local nodes, the bias excluded (0 without a second layer): 2
// k2 + P for matrix learners, P k2^2 for vector ones, P being the planes
// it reads (the first layer's maps).
func (in Info) SecondParamsPerFilter() int {
	if in.Local == nil || in.Local.Second == nil {
		return 0
	}
	p := in.Local.planes(in.Rows, in.Cols)
	return filterMap(in.Kind.Input, in.Local.Second.Size, p.Chans).Size()
}

// secondParamCount returns the second layer's parameters and biases.
func (in Info) secondParamCount() int {
	return in.SecondFilters * (in.SecondParamsPerFilter() + 1)
}

// secondPredictBytes is what a second layer adds to localPredictBytes: per
// goroutine, one image's first-layer maps and pooled maps, the second
// layer's patches and maps; its weights transposed (0 without).
func (m *Model) secondPredictBytes() int64 {
	if m.Local == nil || m.Local.Second == nil {
		return 0
	}
	g := &m.Local.Geometry
	p := g.planes(m.Rows, m.Cols)
	k2 := g.Second.Size
	pos1 := float64(m.Rows+1) * float64(m.Cols+1)
	pos2 := float64(p.Rows+k2) * float64(p.Cols+k2)
	kk := float64(p.Chans * k2 * k2)
	f2 := float64(m.Local.Second.Filters())
	procs := float64(runtime.GOMAXPROCS(0))
	return bytesOf(procs*4*(float64(g.Filters)*pos1+float64(p.Chans)*pos2+pos2*(kk+f2)) + 4*kk*f2)
}
