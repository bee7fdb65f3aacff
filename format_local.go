package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/modelfile"
)

// The local nodes' mapping (the format: internal/modelfile).

// extended reports whether the model uses an extension of format version 3.
func (m *Model) extended() bool { return m.Local != nil || m.calibExtended() || m.usesV3() }

// fileLocalOf returns the header field of a local model (nil for others).
func (m *Model) fileLocalOf() *modelfile.Local {
	if m.Local == nil {
		return nil
	}
	g := m.Local.Geometry
	f := &modelfile.Local{Sizes: g.Sizes, Filters: g.Filters, Stride: g.Stride, Pad: g.Pad, Pool: g.Pool,
		Pooling: g.Pooling.String(), TwoSided: g.TwoSided, Standardize: g.Standardize, Whiten: g.Whiten, WhitenEps: g.WhitenEps}
	for _, b := range m.Local.Banks {
		f.Banks = append(f.Banks, b.Filters())
	}
	f.Augment = toFileAugment(m.Config.Augment)
	f.Second = m.fileSecondOf()
	return f
}

// localOf checks a header's local field and returns the model's local
// layer without weights (nil when the field is absent).
func localOf(h *modelfile.Header, kind Kind) (*LocalLayer, error) {
	f := h.Local
	if f == nil {
		return nil, nil
	}
	pool, err := ParsePooling(f.Pooling)
	if err != nil {
		return nil, fmt.Errorf("%w: local nodes: %v", ErrFormat, err)
	}
	g := Local{Sizes: f.Sizes, Filters: f.Filters, Stride: f.Stride, Pad: f.Pad, Pool: f.Pool, Pooling: pool,
		TwoSided: f.TwoSided, Standardize: f.Standardize, Whiten: f.Whiten, WhitenEps: f.WhitenEps}
	second, err := secondGeometry(f.Second)
	if err != nil {
		return nil, err
	}
	g.Second = second
	if err := g.ForImages(h.Rows, h.Cols, max(h.Channels, 1)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if len(f.Banks) != len(g.Sizes) {
		return nil, fmt.Errorf("%w: local nodes: %d banks for %d filter sizes", ErrFormat, len(f.Banks), len(g.Sizes))
	}
	if _, err := augmentOf(f, h.Rows, h.Cols); err != nil {
		return nil, err
	}
	ll := &LocalLayer{Geometry: g}
	for i, cnt := range f.Banks {
		if cnt < 0 || cnt > g.Filters {
			return nil, fmt.Errorf("%w: local nodes: bank %d of %d filters, want 0 ... %d", ErrFormat, i, cnt, g.Filters)
		}
		// The filters' count, with empty slices of that length to come.
		ll.Banks = append(ll.Banks, LocalBank{Size: g.Sizes[i], Bias: make([]float32, cnt)})
	}
	if err := secondBank(f.Second, ll); err != nil {
		return nil, err
	}
	if l := ll.Outputs(); l != h.Nodes || l == 0 {
		return nil, fmt.Errorf("%w: local nodes give %d pooled outputs, the header says %d nodes", ErrFormat, l, h.Nodes)
	}
	if len(h.Deep) > 0 {
		return nil, fmt.Errorf("%w: local nodes with further layers", ErrFormat)
	}
	return ll, nil
}

// localPayload returns the bytes of the local sections.
func (m *Model) localPayload() int {
	if m.Local == nil {
		return 0
	}
	size := 0
	for _, b := range m.Local.Banks {
		size += (b.Filters()*filterMap(m.Kind.Input, b.Size, m.Chans()).Size() + b.Filters()) * 4
	}
	l := m.Local.Outputs()
	if m.Local.Geometry.Standardize {
		size += 2 * l * 4
	}
	return size + l*m.M*8 + m.whitenPayload() + m.secondPayload()
}

// whitenPayload returns the bytes of the banks' whitening matrices.
func (m *Model) whitenPayload() int {
	if !m.Local.Geometry.Whiten {
		return 0
	}
	size := 0
	for _, b := range m.Local.Banks {
		kk := m.Chans() * b.Size * b.Size
		size += kk * kk * 4
	}
	return size
}

// appendLocal appends the local sections to b.
func (m *Model) appendLocal(b []byte) []byte {
	if m.Local == nil {
		return b
	}
	for _, bk := range m.Local.Banks {
		b = modelfile.AppendFloat32s(b, bk.Params)
		b = modelfile.AppendFloat32s(b, bk.Bias)
	}
	b = modelfile.AppendFloat32s(b, m.Local.Mean)
	b = modelfile.AppendFloat32s(b, m.Local.Scale)
	b = modelfile.AppendFloat64s(b, m.Beta)
	for _, bk := range m.Local.Banks {
		b = modelfile.AppendFloat32s(b, bk.Whiten)
	}
	return m.appendSecond(b)
}

// decodeLocal fills the local layer's weights and the output weights from
// the local sections at the end of the payload b (whose length payloadSize
// has checked).
func (m *Model) decodeLocal(b []byte) {
	if m.Local == nil {
		return
	}
	r := modelfile.NewPayloadReader(b[len(b)-m.localPayload():])
	for i := range m.Local.Banks {
		bk := &m.Local.Banks[i]
		cnt := len(bk.Bias)
		bk.Params = r.F32(cnt * filterMap(m.Kind.Input, bk.Size, m.Chans()).Size())
		bk.Bias = r.F32(cnt)
	}
	l := m.Local.Outputs()
	if m.Local.Geometry.Standardize {
		m.Local.Mean = r.F32(l)
		m.Local.Scale = r.F32(l)
	}
	m.Beta = make([]float64, l*m.M)
	r.F64(m.Beta)
	if m.Local.Geometry.Whiten {
		for i := range m.Local.Banks {
			bk := &m.Local.Banks[i]
			kk := m.Chans() * bk.Size * bk.Size
			bk.Whiten = r.F32(kk * kk)
		}
	}
	m.decodeSecond(r)
}

// localFilters returns the filters of each bank (nil for global nodes).
func (m *Model) localFilters() []int {
	if m.Local == nil {
		return nil
	}
	var f []int
	for _, b := range m.Local.Banks {
		f = append(f, b.Filters())
	}
	return f
}

// ParamsPerFilter returns the parameters of one filter of side k of a
// local model, the bias excluded: 2k (+ C) for matrix learners, C k^2 for
// vector ones.
func (in Info) ParamsPerFilter(k int) int { return filterMap(in.Kind.Input, k, in.Chans()).Size() }

// localParamCount is ParamCount for a model of local nodes: every filter's
// parameters and bias, the standardisation, the output weights.
func (in Info) localParamCount() int {
	n := in.Nodes * in.M
	if in.Local.Standardize {
		n += 2 * in.Nodes
	}
	for i, f := range in.LocalFilters {
		k := in.Local.Sizes[i]
		n += f * (in.ParamsPerFilter(k) + 1)
		if in.Local.Whiten {
			n += in.Chans() * in.Chans() * k * k * k * k
		}
	}
	return n + in.secondParamCount()
}
