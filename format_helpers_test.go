package scn

import (
	"github.com/scn2d/scn/internal/local"
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

// localLayers returns the banks ready to apply to the model's images.
func (m *Model) localLayers() []*local.Layer { return m.localNet().Layers() }

// localFeatures writes the standardised pooled outputs of the n images x
// (row i at out[i*l:]) for the model's banks.
func (m *Model) localFeatures(layers []*local.Layer, x []float32, n int, out []float32) error {
	return m.localNet().Features(layers, x, n, out)
}
