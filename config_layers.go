package scn

// layerConfig returns the configuration of the further layers' node
// choice: supervised vector nodes on the previous layer's outputs, the
// block path's settings of c without receptive fields or pairs.
func (c Config) layerConfig() Config {
	lc := c
	lc.Kind = SCN
	lc.FieldMin, lc.FieldMax = 0, 0
	lc.Pairs = false
	lc.Layers = nil
	if len(lc.Ratios) == 0 {
		lc.Ratios = FastRatios()
	}
	return lc
}
