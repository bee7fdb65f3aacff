package scn

import (
	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/modelfile"
)

// The direct links' mapping (the format: internal/modelfile).

// fileDirect returns the header's direct field, nil without direct links.
func (m *Model) fileDirect() *modelfile.Direct {
	return direct.ToFile(m.Direct, m.Channels, m.Rows, m.Cols)
}

// directOf checks the header's direct field and returns the model's direct
// links without weights (direct.FromFile).
func directOf(h *modelfile.Header) (*DirectLink, error) { return direct.FromFile(h) }

// appendDirect appends the direct-link weights, if any.
func (m *Model) appendDirect(b []byte) []byte { return direct.Append(b, m.Direct) }

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
