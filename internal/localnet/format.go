package localnet

import (
	"fmt"
	"strings"

	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/modelfile"
)

// The local nodes' mapping to the model file (the format:
// internal/modelfile): the header field (modelfile.Local, with the second
// layer's modelfile.Second inside) and the payload sections after the
// others: each bank's parameters and biases, the standardisation, the
// output weights, each bank's whitening matrix, the second layer's
// parameters and biases.

// FileField returns the header field of the layer ll (its Augment left
// for the caller).
func FileField(ll *Layer) *modelfile.Local {
	g := ll.Geometry
	f := &modelfile.Local{Sizes: g.Sizes, Filters: g.Filters, Stride: g.Stride, Pad: g.Pad, Pool: g.Pool,
		Pooling: g.Pooling.String(), TwoSided: g.TwoSided, Standardize: g.Standardize, Whiten: g.Whiten, WhitenEps: g.WhitenEps}
	for _, b := range ll.Banks {
		f.Banks = append(f.Banks, b.Filters())
	}
	f.Second = ll.fileSecond()
	return f
}

// fileSecond returns the header field of a two-layer model's second layer
// (nil for others).
func (ll *Layer) fileSecond() *modelfile.Second {
	s := ll.Geometry.Second
	if s == nil {
		return nil
	}
	f := &modelfile.Second{Filters: s.Filters, Size: s.Size, Window: s.Window, Stride: s.Stride, MidPooling: s.MidPooling.String(), Concat: s.Concat}
	if ll.Second != nil {
		f.Held = ll.Second.Filters()
	}
	return f
}

// GeometryOf checks a header's local field f against images of rows x
// cols x channels and returns the geometry it records.
func GeometryOf(f *modelfile.Local, rows, cols, channels int) (*Geometry, error) {
	pool, err := local.ParsePooling(strings.ToLower(f.Pooling))
	if err != nil {
		return nil, fmt.Errorf("%w: local nodes: %v", modelfile.ErrFormat, err)
	}
	g := Geometry{Sizes: f.Sizes, Filters: f.Filters, Stride: f.Stride, Pad: f.Pad, Pool: f.Pool, Pooling: pool,
		TwoSided: f.TwoSided, Standardize: f.Standardize, Whiten: f.Whiten, WhitenEps: f.WhitenEps}
	second, err := secondGeometry(f.Second)
	if err != nil {
		return nil, err
	}
	g.Second = second
	if err := g.ForImages(rows, cols, max(channels, 1)); err != nil {
		return nil, fmt.Errorf("%w: %v", modelfile.ErrFormat, err)
	}
	if len(f.Banks) != len(g.Sizes) {
		return nil, fmt.Errorf("%w: local nodes: %d banks for %d filter sizes", modelfile.ErrFormat, len(f.Banks), len(g.Sizes))
	}
	return &g, nil
}

// LayerOf returns the layer of geometry g (GeometryOf) the header's local
// field f records, without weights: banks of the filters' counts, with
// empty slices of that length to come (DecodePayload). nodes is the
// header's node count.
func LayerOf(f *modelfile.Local, g *Geometry, nodes int) (*Layer, error) {
	ll := &Layer{Geometry: *g}
	for i, cnt := range f.Banks {
		if cnt < 0 || cnt > g.Filters {
			return nil, fmt.Errorf("%w: local nodes: bank %d of %d filters, want 0 ... %d", modelfile.ErrFormat, i, cnt, g.Filters)
		}
		// The filters' count, with empty slices of that length to come.
		ll.Banks = append(ll.Banks, Bank{Size: g.Sizes[i], Bias: make([]float32, cnt)})
	}
	if err := secondBank(f.Second, ll); err != nil {
		return nil, err
	}
	if l := ll.Outputs(); l != nodes || l == 0 {
		return nil, fmt.Errorf("%w: local nodes give %d pooled outputs, the header says %d nodes", modelfile.ErrFormat, l, nodes)
	}
	return ll, nil
}

// secondGeometry returns the second layer's geometry the field records
// (nil for nil).
func secondGeometry(f *modelfile.Second) (*Second, error) {
	if f == nil {
		return nil, nil
	}
	p, err := local.ParsePooling(strings.ToLower(f.MidPooling))
	if err != nil {
		return nil, fmt.Errorf("%w: second layer of local nodes: %v", modelfile.ErrFormat, err)
	}
	return &Second{Filters: f.Filters, Size: f.Size, Window: f.Window, Stride: f.Stride, MidPooling: p, Concat: f.Concat}, nil
}

// secondBank sets ll.Second to a bank of the filters the field says the
// second layer holds, weights to come (nothing for nil).
func secondBank(f *modelfile.Second, ll *Layer) error {
	if f == nil {
		return nil
	}
	if f.Held < 0 || f.Held > f.Filters {
		return fmt.Errorf("%w: second layer of local nodes holding %d filters, want 0 ... %d", modelfile.ErrFormat, f.Held, f.Filters)
	}
	ll.Second = &Bank{Size: f.Size, Bias: make([]float32, f.Held)}
	return nil
}

// Payload returns the bytes of the local sections of a model of m
// outputs.
func (nt Net) Payload(m int) int {
	ll := nt.Layer
	size := 0
	for _, b := range ll.Banks {
		size += (b.Filters()*nt.FilterMap(b.Size, nt.Chans).Size() + b.Filters()) * 4
	}
	l := ll.Outputs()
	if ll.Geometry.Standardize {
		size += 2 * l * 4
	}
	return size + l*m*8 + nt.whitenPayload() + nt.secondPayload()
}

// whitenPayload returns the bytes of the banks' whitening matrices.
func (nt Net) whitenPayload() int {
	if !nt.Layer.Geometry.Whiten {
		return 0
	}
	size := 0
	for _, b := range nt.Layer.Banks {
		kk := nt.Chans * b.Size * b.Size
		size += kk * kk * 4
	}
	return size
}

// secondPlanes returns the planes the second layer reads.
func (nt Net) secondPlanes() int { return PlanesOf(&nt.Layer.Geometry, nt.Rows, nt.Cols).Chans }

// secondPayload returns the bytes of the second layer's section.
func (nt Net) secondPayload() int {
	b := nt.Layer.Second
	if b == nil {
		return 0
	}
	return (b.Filters()*nt.FilterMap(b.Size, nt.secondPlanes()).Size() + b.Filters()) * 4
}

// AppendPayload appends the local sections of the layer ll to b, beta
// being the output weights.
func AppendPayload(ll *Layer, b []byte, beta []float64) []byte {
	for _, bk := range ll.Banks {
		b = modelfile.AppendFloat32s(b, bk.Params)
		b = modelfile.AppendFloat32s(b, bk.Bias)
	}
	b = modelfile.AppendFloat32s(b, ll.Mean)
	b = modelfile.AppendFloat32s(b, ll.Scale)
	b = modelfile.AppendFloat64s(b, beta)
	for _, bk := range ll.Banks {
		b = modelfile.AppendFloat32s(b, bk.Whiten)
	}
	if ll.Second == nil {
		return b
	}
	b = modelfile.AppendFloat32s(b, ll.Second.Params)
	return modelfile.AppendFloat32s(b, ll.Second.Bias)
}

// DecodePayload fills the layer's weights from the local sections at the
// end of the payload b (whose length the caller has checked) and returns
// the output weights, L x m.
func (nt Net) DecodePayload(b []byte, m int) []float64 {
	ll := nt.Layer
	r := modelfile.NewPayloadReader(b[len(b)-nt.Payload(m):])
	for i := range ll.Banks {
		bk := &ll.Banks[i]
		cnt := len(bk.Bias)
		bk.Params = r.F32(cnt * nt.FilterMap(bk.Size, nt.Chans).Size())
		bk.Bias = r.F32(cnt)
	}
	l := ll.Outputs()
	if ll.Geometry.Standardize {
		ll.Mean = r.F32(l)
		ll.Scale = r.F32(l)
	}
	beta := make([]float64, l*m)
	r.F64(beta)
	if ll.Geometry.Whiten {
		for i := range ll.Banks {
			bk := &ll.Banks[i]
			kk := nt.Chans * bk.Size * bk.Size
			bk.Whiten = r.F32(kk * kk)
		}
	}
	if bk := ll.Second; bk != nil {
		cnt := len(bk.Bias)
		bk.Params = r.F32(cnt * nt.FilterMap(bk.Size, nt.secondPlanes()).Size())
		bk.Bias = r.F32(cnt)
	}
	return beta
}

// Filters returns the filters of each bank (nil for a nil layer).
func (ll *Layer) Filters() []int {
	if ll == nil {
		return nil
	}
	var f []int
	for _, b := range ll.Banks {
		f = append(f, b.Filters())
	}
	return f
}
