package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/scn2d/scn"
	"github.com/spf13/cobra"
)

// hyperFlags are the learner's hyper-parameters as flags. Unset flags keep
// the preset's values.
type hyperFlags struct {
	model, preset, activation, scales, ratios string
	nodes, candidates                         int
	tolerance, ridge                          float64
	seed                                      uint64
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
	h.preset = "paper"
	intVar(f, &h.nodes, "nodes", defaultNodes, 1, maxNodesFlag, "L_max, the hidden nodes at most")
	uint64Var(f, &h.seed, "seed", 1, "random seed: the same seed gives the same model")
}

// addPreset registers the preset and the settings that depart from it.
func (h *hyperFlags) addPreset(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&h.preset, "preset", "paper", "hyper-parameter preset (paper: T_max 5, lambda 1..250, r 1-10^-j); any other hyper-parameter flag makes it custom")
	intVar(f, &h.candidates, "candidates", 0, 0, maxCandidatesFlag, "T_max, candidates per scale (0: the preset's)")
	floatVar(f, &h.tolerance, "tolerance", 0, 0, math.MaxFloat64, true, "stop when the training RMSE is at or below this")
	f.StringVar(&h.scales, "scales", "", "comma-separated scale list lambda, each in (0, 1e+06] (default: the preset's)")
	f.StringVar(&h.ratios, "ratios", "", "comma-separated increasing r list in (0,1) (default: the preset's)")
	f.StringVar(&h.activation, "activation", "sigmoid", "activation: sigmoid, tanh or relu")
	floatVar(f, &h.ridge, "ridge", 0, 0, math.MaxFloat64, true, "ridge term on the output weights (0: plain least squares)")
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
	if h.preset != "paper" {
		return scn.Config{}, usageError{fmt.Errorf("unknown preset %q (want paper)", h.preset)}
	}
	c := scn.Paper(k)
	c.MaxNodes, c.Tolerance, c.Ridge, c.Seed = h.nodes, h.tolerance, h.ridge, h.seed
	if h.candidates != 0 {
		c.Candidates = h.candidates
	}
	var err error
	if h.activation != "" {
		if c.Activation, err = scn.ParseActivation(h.activation); err != nil {
			return c, usageError{err}
		}
	}
	if h.scales != "" {
		if c.Scales, err = scalesRange.parseList(h.scales); err != nil {
			return c, err
		}
	}
	if h.ratios != "" {
		if c.Ratios, err = ratiosRange.parseList(h.ratios); err != nil {
			return c, err
		}
	}
	if !samePreset(c, scn.Paper(k)) {
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
		c.Activation == p.Activation && slices.Equal(c.Scales, p.Scales) && slices.Equal(c.Ratios, p.Ratios)
}

// Upper bounds of --nodes and --candidates: the library's own limits
// (scn.Config.Validate), which keep a mistyped value from asking for
// terabytes; the memory estimate refuses most large values before them.
const (
	maxNodesFlag      = 1 << 20
	maxCandidatesFlag = 1 << 16
)

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
