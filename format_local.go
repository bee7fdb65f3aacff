package scn

import (
	"fmt"
)

// The local nodes' extension of the model file (format version 3; see
// format.go). The header's field "local" records the geometry (filter
// sizes, filters asked per size, stride, padding, pool grid, pooling,
// sides, standardisation), the filters each bank holds and the fit's data
// augmentation, if any (format_augment.go); the header's
// "nodes" is the number of pooled outputs, and the sections of global
// nodes (Params, Bias) are empty. After every other section comes, per
// bank, its parameters (filters x ParamsPerFilter float32: u, v, then w
// for the matrix learners, C x k x k for the vector ones) and biases
// (filters float32); then, when standardised, the pooled outputs' means
// and scales (L float32 each); then the output weights, L x M float64;
// then, with whitening (the header's "whiten": true and "whiten_eps", both
// absent without), per bank its whitening matrix, C k^2 x C k^2 float32
// row-major (LocalBank.Whiten: the raw-patch weights of a filter are the
// matrix times its whitened-space weights; local_whiten.go).

// fileLocal is a local model's geometry in its file header.
type fileLocal struct {
	Sizes       []int  `json:"sizes"`
	Filters     int    `json:"filters"`
	Stride      int    `json:"stride"`
	Pad         int    `json:"pad"`
	Pool        int    `json:"pool"`
	Pooling     string `json:"pooling"`
	TwoSided    bool   `json:"two_sided,omitempty"`
	Standardize bool   `json:"standardize,omitempty"`
	Banks       []int  `json:"banks"` // filters held per bank
	// Whiten and WhitenEps are Local.Whiten and Local.WhitenEps, absent
	// without whitening.
	Whiten    bool    `json:"whiten,omitempty"`
	WhitenEps float64 `json:"whiten_eps,omitempty"`
	// Augment is the augmentation of the fit (augment.go), absent
	// without.
	Augment *fileAugment `json:"augment,omitempty"`
	// Second is the second layer (format_local2.go), absent without.
	Second *fileSecond `json:"second,omitempty"`
}

// extended reports whether the model uses an extension of format version 3.
func (m *Model) extended() bool { return m.Local != nil || m.calibExtended() || m.usesV3() }

// fileLocalOf returns the header field of a local model (nil for others).
func (m *Model) fileLocalOf() *fileLocal {
	if m.Local == nil {
		return nil
	}
	g := m.Local.Geometry
	f := &fileLocal{Sizes: g.Sizes, Filters: g.Filters, Stride: g.Stride, Pad: g.Pad, Pool: g.Pool,
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
func (h fileHeader) localOf(kind Kind) (*LocalLayer, error) {
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
	second, err := f.Second.geometry()
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
	if _, err := f.augment(h.Rows, h.Cols); err != nil {
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
	if err := f.Second.bank(ll); err != nil {
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
		b = appendFloat32s(b, bk.Params)
		b = appendFloat32s(b, bk.Bias)
	}
	b = appendFloat32s(b, m.Local.Mean)
	b = appendFloat32s(b, m.Local.Scale)
	b = appendFloat64s(b, m.Beta)
	for _, bk := range m.Local.Banks {
		b = appendFloat32s(b, bk.Whiten)
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
	r := &payloadReader{b: b[len(b)-m.localPayload():]}
	for i := range m.Local.Banks {
		bk := &m.Local.Banks[i]
		cnt := len(bk.Bias)
		bk.Params = r.f32(cnt * filterMap(m.Kind.Input, bk.Size, m.Chans()).Size())
		bk.Bias = r.f32(cnt)
	}
	l := m.Local.Outputs()
	if m.Local.Geometry.Standardize {
		m.Local.Mean = r.f32(l)
		m.Local.Scale = r.f32(l)
	}
	m.Beta = make([]float64, l*m.M)
	r.f64(m.Beta)
	if m.Local.Geometry.Whiten {
		for i := range m.Local.Banks {
			bk := &m.Local.Banks[i]
			kk := m.Chans() * bk.Size * bk.Size
			bk.Whiten = r.f32(kk * kk)
		}
	}
	m.decodeSecond(r)
}

// geometry returns a copy of the layer's geometry (nil for nil).
func (ll *LocalLayer) geometry() *Local {
	if ll == nil {
		return nil
	}
	return ll.Geometry.clone()
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
