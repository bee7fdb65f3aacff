package scn

import (
	"github.com/scn2d/scn/internal/modelfile"
	"github.com/scn2d/scn/internal/modelrec"
)

// fileVersion returns the format version of the model's file
// (modelrec.Version of its header).
func (m *Model) fileVersion() uint32 {
	r := m.rec()
	h := m.header(r)
	return modelrec.Version(&h)
}

// choiceUsesV3 reports whether a selection record has version 3 fields
// (modelrec.Extended of its header field alone).
func choiceUsesV3(c *Choice) bool {
	return modelrec.Extended(&modelfile.Header{Selection: toFileChoice(c)})
}
