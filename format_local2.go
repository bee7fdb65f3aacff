package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/modelfile"
)

// The second layer's mapping (the format: internal/modelfile).

// fileSecondOf returns the header field of a two-layer model (nil for
// others).
func (m *Model) fileSecondOf() *modelfile.Second {
	s := m.Local.Geometry.Second
	if s == nil {
		return nil
	}
	f := &modelfile.Second{Filters: s.Filters, Size: s.Size, Window: s.Window, Stride: s.Stride, MidPooling: s.MidPooling.String(), Concat: s.Concat}
	if m.Local.Second != nil {
		f.Held = m.Local.Second.Filters()
	}
	return f
}

// secondGeometry returns the second layer's geometry the field records
// (nil for nil).
func secondGeometry(f *modelfile.Second) (*LocalSecond, error) {
	if f == nil {
		return nil, nil
	}
	p, err := ParsePooling(f.MidPooling)
	if err != nil {
		return nil, fmt.Errorf("%w: second layer of local nodes: %v", ErrFormat, err)
	}
	return &LocalSecond{Filters: f.Filters, Size: f.Size, Window: f.Window, Stride: f.Stride, MidPooling: p, Concat: f.Concat}, nil
}

// secondBank sets ll.Second to a bank of the filters the field says the
// second layer holds, weights to come (nothing for nil).
func secondBank(f *modelfile.Second, ll *LocalLayer) error {
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
func (m *Model) secondPlanes() int { return m.Local.Geometry.Planes(m.Rows, m.Cols).Chans }

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
	b = modelfile.AppendFloat32s(b, m.Local.Second.Params)
	return modelfile.AppendFloat32s(b, m.Local.Second.Bias)
}

// decodeSecond reads the second layer's section.
func (m *Model) decodeSecond(r *modelfile.PayloadReader) {
	bk := m.Local.Second
	if bk == nil {
		return
	}
	cnt := len(bk.Bias)
	bk.Params = r.F32(cnt * filterMap(m.Kind.Input, bk.Size, m.secondPlanes()).Size())
	bk.Bias = r.F32(cnt)
}
