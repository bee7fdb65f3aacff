package fitcfg

import (
	"errors"
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/augment"
	"github.com/scn2d/scn/internal/cfgerr"
	"github.com/scn2d/scn/internal/deep"
	"github.com/scn2d/scn/internal/kind"
	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/node"
)

// ErrDeep is wrapped by the refusals of what deep models do not support
// (scn.ErrDeep is this value).
var ErrDeep = errors.New("scn: not supported for deep models (Config.Layers)")

// Limits that keep a mistyped flag from asking for terabytes.
const (
	MaxNodes      = 1 << 20
	MaxCandidates = 1 << 16
)

// Spec is what the checks read of a configuration (scn.Config's fields of
// the same names; LayerRatios is the further layers' r list, the
// configuration's or, when it has none, the fast presets').
type Spec struct {
	Kind                                      kind.Kind
	MaxNodes, Candidates, BlockSize           int
	FieldMin, FieldMax                        int
	Tolerance, Ridge                          float64
	Scales, Ratios, LayerRatios               []float64
	Activation                                node.Activation
	Redraw, Pairs, Standardize, Differences   bool
	Float32Gram, BF16Gram, Robust, DirectLink bool
	Layers                                    []int
	Local                                     *localnet.Geometry // nil: global nodes
	Augment                                   *augment.Spec      // nil: none
}

// BlockMode reports whether a configuration fits by the block engine: a
// block size above 1, or any option only that path implements.
func (c *Spec) BlockMode() bool {
	return c.BlockSize > 1 || c.FieldMin > 0 || c.Standardize || c.Differences || c.Float32Gram || c.BF16Gram || c.Pairs
}

// Validate reports the first impossible hyper-parameter, if any.
func (c *Spec) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", cfgerr.ErrConfig, fmt.Sprintf(format, a...))
	}
	switch {
	case !c.Kind.Valid():
		return bad("unknown kind %+v", c.Kind)
	case c.MaxNodes < 1:
		return bad("MaxNodes (L_max) = %d, want >= 1", c.MaxNodes)
	case c.MaxNodes > MaxNodes:
		return bad("MaxNodes (L_max) = %d, want <= %d", c.MaxNodes, MaxNodes)
	case c.Candidates < 1:
		return bad("Candidates (T_max) = %d, want >= 1", c.Candidates)
	case c.Candidates > MaxCandidates:
		return bad("Candidates (T_max) = %d, want <= %d", c.Candidates, MaxCandidates)
	case len(c.Scales) == 0:
		return bad("empty scale list (Upsilon)")
	case c.Kind.Choice == kind.Supervised && len(c.Ratios) == 0:
		return bad("empty r list (R)")
	case !(c.Tolerance >= 0) || math.IsInf(c.Tolerance, 0):
		return bad("Tolerance = %v, want a finite value >= 0", c.Tolerance)
	case !(c.Ridge >= 0) || math.IsInf(c.Ridge, 0):
		return bad("Ridge = %v, want a finite value >= 0", c.Ridge)
	case c.Activation < node.Sigmoid || c.Activation > node.ReLU:
		return bad("unknown activation %d", int(c.Activation))
	case c.BlockSize < 0 || c.BlockSize > MaxNodes:
		return bad("BlockSize = %d, want 0 ... %d", c.BlockSize, MaxNodes)
	case c.BlockSize > 0 && c.Candidates > MaxCandidates/c.BlockSize:
		return bad("Candidates x BlockSize = %d x %d, want <= %d candidates per step", c.Candidates, c.BlockSize, MaxCandidates)
	case c.FieldMin < 0 || c.FieldMax < 0:
		return bad("receptive field lengths %d ... %d, want >= 0", c.FieldMin, c.FieldMax)
	case (c.FieldMin == 0) != (c.FieldMax == 0):
		return bad("receptive field lengths %d ... %d: set both or neither", c.FieldMin, c.FieldMax)
	case c.Pairs && c.Kind != kind.SCN2D:
		return bad("Pairs is for the supervised matrix learner (2dscn), not %v", c.Kind)
	case c.Differences && !c.Standardize:
		return bad("Differences needs Standardize (the data sets the scale of difference nodes)")
	case c.FieldMin > c.FieldMax:
		return bad("receptive field lengths %d ... %d, want FieldMin <= FieldMax", c.FieldMin, c.FieldMax)
	case c.Redraw && (c.Kind.Choice != kind.Supervised || c.BlockMode() || len(c.Layers) > 0):
		return bad("Redraw is for one-node supervised fits (scn, 2dscn without blocks, fields or layers)")
	}
	if c.DirectLink && (len(c.Layers) > 0 || c.Robust) {
		return bad("DirectLink is for one-layer networks without Robust")
	}
	if err := c.validateLayers(); err != nil {
		return err
	}
	if err := c.validateLocal(); err != nil {
		return err
	}
	if err := c.validateAugment(); err != nil {
		return err
	}
	for i, s := range c.Scales {
		if !(s > 0) || math.IsInf(s, 0) {
			return bad("scale %d = %v, want a finite value > 0", i, s)
		}
	}
	if c.Kind.Choice == kind.Supervised {
		for i, r := range c.Ratios {
			if !(r > 0 && r < 1) {
				return bad("r %d = %v, want 0 < r < 1", i, r)
			}
			if i > 0 && r <= c.Ratios[i-1] {
				return bad("r list not increasing at %d (%v after %v)", i, r, c.Ratios[i-1])
			}
		}
	}
	return nil
}

// validateLayers reports what is wrong with c.Layers, if anything.
func (c *Spec) validateLayers() error {
	if len(c.Layers) == 0 {
		return nil
	}
	if err := deep.CheckSizes(c.MaxNodes, c.Layers, MaxNodes); err != nil {
		return fmt.Errorf("%w: %v", cfgerr.ErrConfig, err)
	}
	switch {
	case !c.BlockMode():
		return fmt.Errorf("%w: Layers needs the block path (BlockSize > 1, as the fast and default presets)", cfgerr.ErrConfig)
	case c.BF16Gram:
		return fmt.Errorf("%w: Layers with BF16Gram: the further layers read the first layer's outputs, which bfloat16 Gram products round", cfgerr.ErrConfig)
	case c.Robust:
		return fmt.Errorf("%w: Layers with Robust", ErrDeep)
	}
	for i, r := range c.LayerRatios {
		if !(r > 0 && r < 1) {
			return fmt.Errorf("%w: r %d = %v, want 0 < r < 1", cfgerr.ErrConfig, i, r)
		}
	}
	return nil
}

// validateLocal reports what local nodes cannot be combined with.
func (c *Spec) validateLocal() error {
	if c.Local == nil {
		return nil
	}
	if err := c.Local.Validate(); err != nil {
		return err
	}
	bad := func(what string) error {
		return fmt.Errorf("%w: local nodes (Config.Local) with %s", cfgerr.ErrConfig, what)
	}
	switch {
	case !(c.Ridge > 0):
		return bad("Ridge = 0: their output weights are the ridge solution, set Ridge > 0")
	case len(c.Layers) > 0:
		return bad("further layers (Layers)")
	case c.Pairs:
		return bad("Pairs")
	case c.FieldMin > 0:
		return bad("receptive fields (a filter is local already)")
	case c.Differences:
		return bad("difference nodes (Differences)")
	case c.Robust:
		return bad("Robust")
	case c.DirectLink:
		return bad("direct links (DirectLink): not built for local nodes yet")
	case c.BF16Gram && c.Kind.Choice == kind.Supervised:
		return bad("bfloat16 Gram products (supervised filters are judged on the residual of the outputs unrounded)")
	}
	return nil
}

// validateAugment reports what an augmentation cannot be combined with.
func (c *Spec) validateAugment() error {
	if c.Augment == nil {
		return nil
	}
	if err := c.Augment.Validate(); err != nil {
		return fmt.Errorf("%w: %v", cfgerr.ErrConfig, err)
	}
	if c.Local == nil {
		return fmt.Errorf("%w: augmentation (Config.Augment) is for local nodes (Config.Local) only so far", cfgerr.ErrConfig)
	}
	return nil
}
