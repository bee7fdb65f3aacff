package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/deep"
)

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

// validateLayers reports what is wrong with c.Layers, if anything.
func (c Config) validateLayers() error {
	if len(c.Layers) == 0 {
		return nil
	}
	if err := deep.CheckSizes(c.MaxNodes, c.Layers, maxNodes); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	switch {
	case !c.blockMode():
		return fmt.Errorf("%w: Layers needs the block path (BlockSize > 1, as the fast and default presets)", ErrConfig)
	case c.BF16Gram:
		return fmt.Errorf("%w: Layers with BF16Gram: the further layers read the first layer's outputs, which bfloat16 Gram products round", ErrConfig)
	case c.Robust:
		return fmt.Errorf("%w: Layers with Robust", ErrDeep)
	}
	for i, r := range c.layerConfig().Ratios {
		if !(r > 0 && r < 1) {
			return fmt.Errorf("%w: r %d = %v, want 0 < r < 1", ErrConfig, i, r)
		}
	}
	return nil
}
