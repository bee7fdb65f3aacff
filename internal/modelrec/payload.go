package modelrec

import (
	"io"

	"github.com/scn2d/scn/internal/deep"
	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/modelfile"
)

// Write writes the model's file of header h (Header, completed by the
// caller) to w, in the format version h decides (Version).
func (m *Model) Write(w io.Writer, h *modelfile.Header) (int64, error) {
	return modelfile.Write(w, Version(h), h, m.PayloadSize(), m.AppendPayload)
}

// PayloadSize returns the bytes of the model's weights in a file.
func (m *Model) PayloadSize() int {
	l := m.ExpectedNodes()
	size := l*m.PerNode*4 + l*4 + l*m.M*8
	size += deep.FileBytes(m.FileLayers(), l, m.M)
	return size + m.localPayload() + m.DirectDim()*m.M*8
}

// localPayload returns the bytes of the local sections.
func (m *Model) localPayload() int {
	if m.Local == nil {
		return 0
	}
	return m.Net().Payload(m.M)
}

// AppendPayload appends the model's weights to b, section by section: the
// first layer's parameters, biases and output weights, the further
// layers', the local nodes', the direct links'.
func (m *Model) AppendPayload(b []byte) []byte {
	b = modelfile.AppendFloat32s(b, m.Params)
	b = modelfile.AppendFloat32s(b, m.Bias)
	l1 := len(m.Bias)
	b = modelfile.AppendFloat64s(b, m.Beta[:l1*m.M])
	b = deep.Append(b, m.Deep, m.Beta, l1, m.M)
	if m.Local != nil {
		b = localnet.AppendPayload(m.Local, b, m.Beta)
	}
	return direct.Append(b, m.Direct)
}

// Decode fills Params, Bias, Beta, Deep, the local layer's and the direct
// links' weights from the payload b (of PayloadSize bytes), and clears
// FileDeep.
func (m *Model) Decode(b []byte) {
	r := modelfile.NewPayloadReader(b)
	l := m.ExpectedNodes()
	m.Params = r.F32(l * m.PerNode)
	m.Bias = r.F32(l)
	total := l
	for _, c := range m.FileDeep {
		total += c
	}
	m.Beta = make([]float64, total*m.M)
	r.F64(m.Beta[:l*m.M])
	m.Deep = deep.Read(r, m.FileDeep, m.Beta, l, m.M)
	if m.Local != nil {
		m.Beta = m.Net().DecodePayload(r.Rest(), m.M)
	}
	m.FileDeep = nil
	if m.Direct != nil {
		m.Direct.Beta = make([]float64, m.DirectDim()*m.M)
		r.F64(m.Direct.Beta)
	}
}
