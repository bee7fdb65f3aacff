package scn

import "fmt"

// The second layer's extension of the model file (format version 3, inside
// the header's "local" field; see format_local.go). The field "second"
// records LocalSecond (filters asked, size, the pooling between the layers
// and whether the first layer's outputs are kept) and the filters the
// second layer holds; it is absent for models of one layer, whose bytes
// are unchanged. After every other local section comes the second layer's
// parameters (filters x ParamsPerFilter of its planes, float32: u, v, then
// one weight per plane for the matrix learners, planes x k2 x k2 for the
// vector ones) and biases (filters float32). The header's "nodes" counts
// both layers' pooled outputs the output weights read.

// fileSecond is a model's second layer in its file header.
type fileSecond struct {
	Filters    int    `json:"filters"`
	Size       int    `json:"size"`
	Window     int    `json:"window"`
	Stride     int    `json:"stride"`
	MidPooling string `json:"mid_pooling"`
	Concat     bool   `json:"concat,omitempty"`
	Held       int    `json:"held"` // filters the second layer holds
}

// fileSecondOf returns the header field of a two-layer model (nil for
// others).
func (m *Model) fileSecondOf() *fileSecond {
	s := m.Local.Geometry.Second
	if s == nil {
		return nil
	}
	f := &fileSecond{Filters: s.Filters, Size: s.Size, Window: s.Window, Stride: s.Stride, MidPooling: s.MidPooling.String(), Concat: s.Concat}
	if m.Local.Second != nil {
		f.Held = m.Local.Second.Filters()
	}
	return f
}

// geometry returns the second layer's geometry the field records (nil for
// nil).
func (f *fileSecond) geometry() (*LocalSecond, error) {
	if f == nil {
		return nil, nil
	}
	p, err := ParsePooling(f.MidPooling)
	if err != nil {
		return nil, fmt.Errorf("%w: second layer of local nodes: %v", ErrFormat, err)
	}
	return &LocalSecond{Filters: f.Filters, Size: f.Size, Window: f.Window, Stride: f.Stride, MidPooling: p, Concat: f.Concat}, nil
}

// bank sets ll.Second to a bank of the filters the field says the second
// layer holds, weights to come (nothing for nil).
func (f *fileSecond) bank(ll *LocalLayer) error {
	if f == nil {
		return nil
	}
	if f.Held < 0 || f.Held > f.Filters {
		return fmt.Errorf("%w: second layer of local nodes holding %d filters, want 0 ... %d", ErrFormat, f.Held, f.Filters)
	}
	ll.Second = &LocalBank{Size: f.Size, Bias: make([]float32, f.Held)}
	return nil
}

// secondPlanes returns the planes the second layer reads.
func (m *Model) secondPlanes() int { return m.Local.Geometry.planes(m.Rows, m.Cols).Chans }

// secondPayload returns the bytes of the second layer's section.
func (m *Model) secondPayload() int {
	b := m.Local.Second
	if b == nil {
		return 0
	}
	return (b.Filters()*filterMap(m.Kind.Input, b.Size, m.secondPlanes()).Size() + b.Filters()) * 4
}

// appendSecond appends the second layer's section to b.
func (m *Model) appendSecond(b []byte) []byte {
	if m.Local.Second == nil {
		return b
	}
	b = appendFloat32s(b, m.Local.Second.Params)
	return appendFloat32s(b, m.Local.Second.Bias)
}

// decodeSecond reads the second layer's section.
func (m *Model) decodeSecond(r *payloadReader) {
	bk := m.Local.Second
	if bk == nil {
		return
	}
	cnt := len(bk.Bias)
	bk.Params = r.f32(cnt * filterMap(m.Kind.Input, bk.Size, m.secondPlanes()).Size())
	bk.Bias = r.f32(cnt)
}
