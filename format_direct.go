package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/modelfile"
)

// The direct links' mapping (the format: internal/modelfile).

// fileDirect returns the header's direct field, nil without direct links.
func (m *Model) fileDirect() *modelfile.Direct {
	if m.Direct == nil {
		return nil
	}
	return &modelfile.Direct{Pool: m.Direct.Pool, Features: m.DirectDim()}
}

// directOf checks the header's direct field and returns the model's direct
// links without weights.
func directOf(h *modelfile.Header) (*DirectLink, error) {
	f := h.Direct
	if f == nil {
		if h.Config.DirectLink {
			return nil, fmt.Errorf("%w: configuration with direct links but no direct-link weights", ErrFormat)
		}
		return nil, nil
	}
	if !h.Config.DirectLink {
		return nil, fmt.Errorf("%w: direct-link weights without the configuration's direct_link", ErrFormat)
	}
	switch {
	case len(h.Deep) > 0:
		return nil, fmt.Errorf("%w: direct links on a deep model", ErrFormat)
	case f.Pool < 1 || f.Pool > min(h.Rows, h.Cols):
		return nil, fmt.Errorf("%w: direct links pooled by %d on %d x %d images", ErrFormat, f.Pool, h.Rows, h.Cols)
	case f.Features != direct.Dim(h.Channels, h.Rows, h.Cols, f.Pool):
		return nil, fmt.Errorf("%w: %d direct features, the shapes and pool give %d", ErrFormat, f.Features, direct.Dim(h.Channels, h.Rows, h.Cols, f.Pool))
	case float64(f.Features)*float64(h.Outputs) > modelfile.MaxValues:
		return nil, fmt.Errorf("%w: direct links too large", ErrFormat)
	}
	return &DirectLink{Pool: f.Pool}, nil
}

// appendDirect appends the direct-link weights, if any.
func (m *Model) appendDirect(b []byte) []byte {
	if m.Direct == nil {
		return b
	}
	return modelfile.AppendFloat64s(b, m.Direct.Beta)
}

// usesV3 reports whether the model's file needs version 3.
func (m *Model) usesV3() bool {
	return m.Direct != nil || choiceUsesV3(m.Selection) || (m.Budget != nil && m.Budget.Plan.Probe != "")
}

// choiceUsesV3 reports whether a selection record has version 3 fields.
func choiceUsesV3(c *Choice) bool {
	if c == nil {
		return false
	}
	if c.Direct || c.Growth != "" {
		return true
	}
	for _, s := range c.Curve {
		if s.Direct {
			return true
		}
	}
	return false
}
