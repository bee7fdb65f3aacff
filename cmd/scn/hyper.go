package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/scn2d/scn"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// hyperFlags are the learner's hyper-parameters as flags. Unset flags keep
// the preset's values.
type hyperFlags struct {
	model, preset, activation, scales, ratios string
	nodes, candidates                         int
	tolerance, ridge                          float64
	seed                                      uint64
	// The block engine's settings (see scn.Config).
	block       int
	field       string
	standardize bool
	float32Gram bool
	pairs       bool
	flags       *pflag.FlagSet
}

// add registers every hyper-parameter flag: the learner, L_max, the seed
// and the preset's settings.
func (h *hyperFlags) add(cmd *cobra.Command, defaultNodes int) {
	h.addModel(cmd)
	h.addRun(cmd, defaultNodes)
	h.addPreset(cmd)
}

// addModel registers --model, the learner.
func (h *hyperFlags) addModel(cmd *cobra.Command) {
	cmd.Flags().StringVar(&h.model, "model", "2dscn", "learner: 2dscn, scn, 2drvfl or rvfl")
}

// addRun registers what every run chooses: L_max and the seed.
func (h *hyperFlags) addRun(cmd *cobra.Command, defaultNodes int) {
	f := cmd.Flags()
	h.flags = f
	h.preset = "paper"
	f.IntVar(&h.nodes, "nodes", defaultNodes, "L_max, the hidden nodes at most")
	f.Uint64Var(&h.seed, "seed", 1, "random seed: the same seed gives the same model")
}

// addPreset registers the preset and the settings that depart from it.
func (h *hyperFlags) addPreset(cmd *cobra.Command) {
	f := cmd.Flags()
	h.flags = f
	f.StringVar(&h.preset, "preset", "paper", "hyper-parameter preset: paper (T_max 5, lambda 1..250, r 1-10^-j, one node at a time) or fast (blocks of nodes on receptive fields, the best accuracy per second; see scn.Fast); any other hyper-parameter flag makes it custom")
	f.IntVar(&h.candidates, "candidates", 0, "T_max, candidates per scale (0: the preset's)")
	f.Float64Var(&h.tolerance, "tolerance", 0, "stop when the training RMSE is at or below this")
	f.StringVar(&h.scales, "scales", "", "comma-separated scale list lambda (default: the preset's)")
	f.StringVar(&h.ratios, "ratios", "", "comma-separated increasing r list in (0,1) (default: the preset's)")
	f.StringVar(&h.activation, "activation", "sigmoid", "activation: sigmoid, tanh or relu")
	f.Float64Var(&h.ridge, "ridge", 0, "ridge term on the output weights (0: plain least squares)")
	f.IntVar(&h.block, "block", 0, "nodes added per step (block increments with the Gram/Cholesky engine; 0 or 1: one node at a time)")
	f.StringVar(&h.field, "field", "", "receptive fields: side lengths MIN-MAX of the random rectangle each node sees (e.g. 5-27; 0: the whole image)")
	f.BoolVar(&h.standardize, "standardize", false, "draw normal node weights and scale each node to spread lambda on the training images")
	f.BoolVar(&h.float32Gram, "float32-gram", false, "Gram products of the block engine in float32 within row shards")
	f.BoolVar(&h.pairs, "pairs", false, "2dscn block candidates as all pairs of row and column vectors (one product per column vector)")
}

// changed reports whether a flag was set on the command line (every flag
// counts as set when the flags were registered elsewhere).
func (h *hyperFlags) changed(name string) bool {
	return h.flags == nil || h.flags.Lookup(name) == nil || h.flags.Changed(name)
}

// parseField reads "MIN-MAX" (or "0").
func parseField(s string) (lo, hi int, err error) {
	if strings.TrimSpace(s) == "0" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "-")
	if ok {
		lo, err = strconv.Atoi(strings.TrimSpace(a))
		if err == nil {
			hi, err = strconv.Atoi(strings.TrimSpace(b))
		}
	}
	if !ok || err != nil || lo < 1 || hi < lo {
		return 0, 0, fmt.Errorf("--field %q: want MIN-MAX with 1 <= MIN <= MAX, or 0", s)
	}
	return lo, hi, nil
}

// kind returns the chosen learner.
func (h *hyperFlags) kind() (scn.Kind, error) {
	k, err := scn.ParseKind(h.model)
	if err != nil {
		return k, usageError{err}
	}
	return k, nil
}

// config returns the configuration for learner k. L_max and the seed are
// chosen per run; any other hyper-parameter that differs from the preset
// makes the configuration "custom".
func (h *hyperFlags) config(k scn.Kind) (scn.Config, error) {
	var c, preset scn.Config
	switch h.preset {
	case "paper":
		preset = scn.Paper(k)
	case "fast":
		preset = scn.Fast(k)
	default:
		return scn.Config{}, usageError{fmt.Errorf("unknown preset %q (want paper or fast)", h.preset)}
	}
	c = preset
	c.Seed = h.seed
	if h.changed("nodes") || h.preset == "paper" {
		c.MaxNodes = h.nodes
	}
	if h.changed("tolerance") {
		c.Tolerance = h.tolerance
	}
	if h.changed("ridge") {
		c.Ridge = h.ridge
	}
	if h.candidates != 0 {
		c.Candidates = h.candidates
	}
	if h.changed("block") {
		c.BlockSize = h.block
	}
	if h.changed("standardize") {
		c.Standardize = h.standardize
	}
	if h.changed("float32-gram") {
		c.Float32Gram = h.float32Gram
	}
	if h.changed("pairs") {
		c.Pairs = h.pairs
	}
	if h.field != "" {
		lo, hi, err := parseField(h.field)
		if err != nil {
			return c, usageError{err}
		}
		c.FieldMin, c.FieldMax = lo, hi
	}
	var err error
	if h.activation != "" && h.changed("activation") {
		if c.Activation, err = scn.ParseActivation(h.activation); err != nil {
			return c, usageError{err}
		}
	}
	if h.scales != "" {
		if c.Scales, err = floatList(h.scales); err != nil {
			return c, usageError{fmt.Errorf("--scales: %w", err)}
		}
	}
	if h.ratios != "" {
		if c.Ratios, err = floatList(h.ratios); err != nil {
			return c, usageError{fmt.Errorf("--ratios: %w", err)}
		}
	}
	if !samePreset(c, preset) {
		c.Preset = "custom"
	}
	if err := c.Validate(); err != nil {
		return c, usageError{err}
	}
	return c, nil
}

// samePreset reports whether c has the hyper-parameters of preset p: all
// but L_max and the seed, which every run chooses.
func samePreset(c, p scn.Config) bool {
	return c.Candidates == p.Candidates && c.Tolerance == p.Tolerance && c.Ridge == p.Ridge &&
		c.Activation == p.Activation && slices.Equal(c.Scales, p.Scales) && slices.Equal(c.Ratios, p.Ratios) &&
		c.BlockSize == p.BlockSize && c.FieldMin == p.FieldMin && c.FieldMax == p.FieldMax &&
		c.Standardize == p.Standardize && c.Float32Gram == p.Float32Gram && c.Pairs == p.Pairs
}

// floatList parses "1, 5, 15".
func floatList(s string) ([]float64, error) {
	var out []float64
	items, err := splitList(s)
	if err != nil {
		return nil, err
	}
	for _, f := range items {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// splitList splits a comma-separated list, refusing empty items.
func splitList(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, usageError{fmt.Errorf("empty item in list %q", s)}
		}
		out = append(out, f)
	}
	return out, nil
}
