package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/modelfile"
)

// The local nodes' mapping (the format: internal/modelfile; the header
// field and the payload sections are internal/localnet's, format.go
// there).

// extended reports whether the model uses an extension of format version 3.
func (m *Model) extended() bool { return m.Local != nil || m.calibExtended() || m.usesV3() }

// fileLocalOf returns the header field of a local model (nil for others).
func (m *Model) fileLocalOf() *modelfile.Local {
	if m.Local == nil {
		return nil
	}
	f := localnet.FileField(m.Local)
	f.Augment = toFileAugment(m.Config.Augment)
	return f
}

// localOf checks a header's local field and returns the model's local
// layer without weights (nil when the field is absent).
func localOf(h *modelfile.Header, kind Kind) (*LocalLayer, error) {
	f := h.Local
	if f == nil {
		return nil, nil
	}
	g, err := localnet.GeometryOf(f, h.Rows, h.Cols, h.Channels)
	if err != nil {
		return nil, err
	}
	if _, err := augmentOf(f, h.Rows, h.Cols); err != nil {
		return nil, err
	}
	ll, err := localnet.LayerOf(f, g, h.Nodes)
	if err != nil {
		return nil, err
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
	return m.localNet().Payload(m.M)
}

// appendLocal appends the local sections to b.
func (m *Model) appendLocal(b []byte) []byte {
	if m.Local == nil {
		return b
	}
	return localnet.AppendPayload(m.Local, b, m.Beta)
}

// decodeLocal fills the local layer's weights and the output weights from
// the local sections at the end of the payload b (whose length payloadSize
// has checked).
func (m *Model) decodeLocal(b []byte) {
	if m.Local == nil {
		return
	}
	m.Beta = m.localNet().DecodePayload(b, m.M)
}

// localFilters returns the filters of each bank (nil for global nodes).
func (m *Model) localFilters() []int { return m.Local.Filters() }

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
