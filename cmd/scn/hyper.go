package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
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
	// Model selection (the default; off under --preset paper).
	validation        float64
	folds, patience   int
	ridges            string
	validationFlagSet func() bool
	// The block engine's settings (see scn.Config).
	block       int
	field       string
	standardize bool
	differences bool
	float32Gram bool
	bf16Gram    bool
	pairs       bool
	robust      bool
	redraw      bool
	local       localFlags  // --local and its settings (scn train only)
	second      secondFlags // --local2 and its settings (scn train only)
	directLink  bool
	grow        bool
	layers      string // --layers (scn train only)
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
	h.preset = "default"
	intVar(f, &h.nodes, "nodes", defaultNodes, 1, maxNodesFlag, "L_max, the hidden nodes at most")
	uint64Var(f, &h.seed, "seed", 1, "random seed: the same seed gives the same model")
}

// addPreset registers the preset and the settings that depart from it.
func (h *hyperFlags) addPreset(cmd *cobra.Command) {
	f := cmd.Flags()
	h.flags = f
	f.StringVar(&h.preset, "preset", "default", "hyper-parameter preset: default (difference nodes in blocks of 100, see scn.Default, with L and the ridge term chosen on held-out data), paper (the paper's protocol exactly: L_max nodes, no selection) or fast (blocks of nodes on receptive fields, the best accuracy per second; see scn.Fast; no selection unless --validation is given); on photos (colour, or larger than 40 x 40) default and fast fit 2DRVFL with local nodes instead, filters scaled to the set (scn.Config.ForPhotos; --model, --local, --nodes or --direct-link choose otherwise); any other hyper-parameter flag makes it custom")
	floatVar(f, &h.validation, "validation", 0.1, 0, 1, true, "share of the training images held out (stratified) to choose L and the ridge term; 0 turns model selection off")
	intVar(f, &h.folds, "folds", 0, 0, 100, fmt.Sprintf("choose L and the ridge term by k-fold cross-validation with this many folds instead of one hold-out (k+1 fits); by default up to %d folds (as many as the smallest class has images) for training sets of at most %d images", scn.SmallSetFolds, scn.SmallSetImages))
	intVar(f, &h.patience, "patience", 0, 0, 1<<20, "stop growing once the held-out score has not improved at this many consecutive checkpoints (0: grow to --nodes)")
	f.StringVar(&h.ridges, "ridges", "", "comma-separated ridge grid for model selection (default: 0 and 1e-4 ... 1e4 by decades)")
	h.validationFlagSet = func() bool {
		return f.Changed("validation") || f.Changed("folds") || f.Changed("patience") || f.Changed("ridges")
	}
	intVar(f, &h.candidates, "candidates", 0, 0, maxCandidatesFlag, "T_max, candidates per scale (0: the preset's)")
	floatVar(f, &h.tolerance, "tolerance", 0, 0, math.MaxFloat64, true, "stop when the training RMSE is at or below this")
	f.StringVar(&h.scales, "scales", "", "comma-separated scale list lambda, each in (0, 1e+06] (default: the preset's)")
	f.StringVar(&h.ratios, "ratios", "", "comma-separated increasing r list in (0,1) (default: the preset's)")
	f.StringVar(&h.activation, "activation", "sigmoid", "activation: sigmoid, tanh or relu")
	floatVar(f, &h.ridge, "ridge", 0, 0, math.MaxFloat64, true, "ridge term on the output weights (0: plain least squares)")
	intVar(f, &h.block, "block", 0, 0, 1<<16, "nodes added per step (block increments with the Gram/Cholesky engine; 0 or 1: one node at a time)")
	f.StringVar(&h.field, "field", "", "receptive fields: side lengths MIN-MAX of the random rectangle each node sees (e.g. 5-27; 0: the whole image)")
	f.BoolVar(&h.standardize, "standardize", false, "draw normal node weights and scale each node to spread lambda on the training images (on in the default and fast presets)")
	f.BoolVar(&h.differences, "differences", false, "node weights from differences of two training images of different classes on the node's field (needs --standardize; on in the default and fast presets, --differences=false turns it off)")
	f.BoolVar(&h.float32Gram, "float32-gram", false, "Gram products of the block engine in float32 within row shards")
	f.BoolVar(&h.bf16Gram, "bf16-gram", false, "Gram products of the block engine from the hidden outputs rounded to bfloat16 (fast with AVX512-BF16; on in the fast preset where the CPU has it)")
	f.BoolVar(&h.pairs, "pairs", false, "2dscn block candidates as all pairs of row and column vectors (one product per column vector)")
	f.BoolVar(&h.redraw, "redraw", false, "scn and 2dscn: draw new candidates for every (scale, r) pair, as the paper's Algorithm 1 states the search, instead of once per scale as the authors' SCN code (the presets); on the paper's E1 data it gives Table III's 2DSCN figures (docs/e1-gap.md)")
	f.BoolVar(&h.directLink, "direct-link", false, "direct links: the output layer reads the hidden outputs and the preprocessed pixels (pooled on large sets of large images), as in Pao's RVFL; unset, model selection tries both and keeps the better on held-out data (the paper preset and fits without selection have none); --direct-link=false never uses them")
	f.BoolVar(&h.grow, "grow", true, "model selection goes on past --nodes, doubling the nodes up to 8 x --nodes, while the held-out score still improves by a standard error (default preset; bounded by --max-memory); --grow=false makes --nodes a cap")
	f.BoolVar(&h.robust, "robust", false, "robust output weights: least squares reweighted by the kernel density of each training image's residual (robust SCN, Wang and Li 2017), so that outlying images weigh little")
}

// addLayers registers --layers, the node counts of a deep network's
// layers (scn train only: selection and the other commands fit one layer).
func (h *hyperFlags) addLayers(cmd *cobra.Command) {
	cmd.Flags().StringVar(&h.layers, "layers", "", "deep network (deep 2DSCN): comma-separated node counts of every layer, the first being the learner's (--model) on the image, the others supervised 1D nodes on the previous layer's outputs, e.g. 3000,500; the output layer reads all of them. Block path only (fast or default preset), no model selection")
}

// applyLayers sets the first layer's L_max and the further layers from
// --layers.
func (h *hyperFlags) applyLayers(c *scn.Config) error {
	if h.layers == "" {
		return nil
	}
	items, err := splitList(h.layers)
	if err != nil {
		return err
	}
	var sizes []int
	for _, it := range items {
		n, err := strconv.Atoi(it)
		if err != nil || n < 1 || n > maxNodesFlag {
			return usageError{fmt.Errorf("--layers %q: %q is not a node count in 1 ... %d", h.layers, it, maxNodesFlag)}
		}
		sizes = append(sizes, n)
	}
	if h.changed("nodes") && h.nodes != sizes[0] {
		return usageError{fmt.Errorf("--layers %s gives the first layer %d nodes, --nodes %d: drop --nodes", h.layers, sizes[0], h.nodes)}
	}
	c.MaxNodes, c.Layers = sizes[0], sizes[1:]
	if len(c.Layers) == 0 {
		c.Layers = nil
	} else if !h.changed("bf16-gram") {
		// The further layers read the first layer's stored outputs, which
		// bfloat16 products would round (the fast preset's random
		// learners have them on where the CPU does).
		c.BF16Gram = false
	}
	return nil
}

// changed reports whether a flag was set on the command line (every flag
// counts as set when the flags were registered elsewhere).
func (h *hyperFlags) changed(name string) bool {
	return h.flags == nil || h.flags.Lookup(name) == nil || h.flags.Changed(name)
}

// override copies into c the settings whose flags were set, and leaves
// the preset's value for the others.
func (h *hyperFlags) override(c *scn.Config) {
	setIf(h, "tolerance", &c.Tolerance, h.tolerance)
	setIf(h, "ridge", &c.Ridge, h.ridge)
	setIf(h, "block", &c.BlockSize, h.block)
	setIf(h, "standardize", &c.Standardize, h.standardize)
	setIf(h, "differences", &c.Differences, h.differences)
	setIf(h, "float32-gram", &c.Float32Gram, h.float32Gram)
	setIf(h, "bf16-gram", &c.BF16Gram, h.bf16Gram)
	setIf(h, "pairs", &c.Pairs, h.pairs)
	setIf(h, "robust", &c.Robust, h.robust)
	setIf(h, "redraw", &c.Redraw, h.redraw)
	setIf(h, "direct-link", &c.DirectLink, h.directLink)
}

// setIf sets *dst to v when the flag name was set.
func setIf[T any](h *hyperFlags, name string, dst *T, v T) {
	if h.changed(name) {
		*dst = v
	}
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
	preset, err := scn.PresetConfig(h.preset, k)
	if err != nil {
		return scn.Config{}, usageError{err}
	}
	c := preset
	c.Seed = h.seed
	if h.changed("nodes") || h.preset != "fast" {
		c.MaxNodes = h.nodes
	}
	if h.candidates != 0 {
		c.Candidates = h.candidates
	}
	h.override(&c)
	if h.field != "" {
		lo, hi, err := parseField(h.field)
		if err != nil {
			return c, usageError{err}
		}
		c.FieldMin, c.FieldMax = lo, hi
	}
	if h.activation != "" && h.changed("activation") {
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
	if err := h.applyLayers(&c); err != nil {
		return c, err
	}
	if err := h.applyLocal(&c); err != nil {
		return c, err
	}
	if !samePreset(c, preset) {
		c.Preset = "custom"
	}
	if _, err := h.selection(); err != nil {
		return c, err
	}
	if c.BlockSize > 1 && c.Candidates > maxCandidatesFlag/c.BlockSize {
		return c, usageError{fmt.Errorf("--candidates %d: with blocks of %d nodes a step would score %d candidates, want at most %d (lower --candidates or --block)",
			c.Candidates, c.BlockSize, c.Candidates*c.BlockSize, maxCandidatesFlag)}
	}
	if err := c.Validate(); err != nil {
		return c, usageError{err}
	}
	return c, nil
}

// forSize returns sel adjusted to the training set s by the library's
// rule (scn.Selection.ForSize: k-fold cross-validation for small sets)
// when neither --validation nor --folds was given.
func (h *hyperFlags) forSize(sel *scn.Selection, s *dataset.Set) *scn.Selection {
	if sel == nil || h.changed("validation") || h.changed("folds") {
		return sel
	}
	var counts []int
	if s.Labels != nil {
		counts = s.ClassCounts()
	}
	out := sel.ForSize(s.Len(), counts)
	if out.Folds == sel.Folds {
		return sel
	}
	return &out
}

// selection returns the model selection the flags ask for, nil for none:
// none under --preset paper (the paper's protocol) or with --validation 0.
func (h *hyperFlags) selection() (*scn.Selection, error) {
	if h.localSet() {
		// Local nodes choose their ridge term on held-out images only
		// when asked (--validation, --folds, --ridges): it costs a
		// Cholesky factor of L x L per ridge.
		if h.validationFlagSet == nil || !h.validationFlagSet() {
			return nil, nil
		}
		if h.changed("patience") {
			return nil, usageError{fmt.Errorf("--patience: local nodes keep every filter, selection chooses their ridge term only")}
		}
	}
	if h.layers != "" && strings.Contains(h.layers, ",") {
		if h.validationFlagSet != nil && h.validationFlagSet() {
			return nil, usageError{fmt.Errorf("--layers fits a deep network without model selection: drop --validation, --folds, --patience and --ridges")}
		}
		return nil, nil
	}
	if h.preset == "fast" && (h.validationFlagSet == nil || !h.validationFlagSet()) {
		return nil, nil // the fast preset fits its L; selection on request
	}
	if h.preset == "paper" {
		if h.validationFlagSet != nil && h.validationFlagSet() {
			return nil, usageError{fmt.Errorf("--preset paper runs the paper's protocol, without model selection: drop --validation, --folds, --patience and --ridges, or the preset")}
		}
		return nil, nil
	}
	if h.validation == 0 && h.folds == 0 {
		if h.patience != 0 || h.ridges != "" {
			return nil, usageError{fmt.Errorf("--patience and --ridges need model selection (--validation > 0 or --folds)")}
		}
		return nil, nil
	}
	s := scn.Selection{Validation: h.validation, Folds: h.folds, Patience: h.patience}
	s.Grow = h.grow && (h.preset == "default" || h.changed("grow"))
	// At most 8 x --nodes: a 2DSCN of 16000 nodes on MATLAB's 5000 digits
	// held 8.4 GB and ran for more than half an hour of CPU, the held-out
	// RMSE still falling (docs/direct.md).
	s.GrowLimit = 8 * h.nodes
	// Unset, --direct-link leaves the choice to selection (see scn.Selection.TryDirect).
	s.TryDirect = h.flags != nil && h.flags.Lookup("direct-link") != nil && !h.flags.Changed("direct-link")
	if h.ridges != "" {
		r, err := floatList(h.ridges)
		if err != nil {
			return nil, usageError{fmt.Errorf("--ridges: %w", err)}
		}
		s.Ridges = r
	}
	if err := s.Validate(); err != nil {
		return nil, usageError{fmt.Errorf("model selection: %w", err)}
	}
	return &s, nil
}

// samePreset reports whether c has the hyper-parameters of preset p: all
// but L_max and the seed, which every run chooses.
func samePreset(c, p scn.Config) bool {
	return c.Candidates == p.Candidates && c.Tolerance == p.Tolerance && c.Ridge == p.Ridge &&
		c.Activation == p.Activation && slices.Equal(c.Scales, p.Scales) && slices.Equal(c.Ratios, p.Ratios) &&
		c.BlockSize == p.BlockSize && c.FieldMin == p.FieldMin && c.FieldMax == p.FieldMax &&
		c.Standardize == p.Standardize && c.Differences == p.Differences && c.Float32Gram == p.Float32Gram && c.BF16Gram == p.BF16Gram && c.Pairs == p.Pairs && c.Robust == p.Robust &&
		c.Redraw == p.Redraw && slices.Equal(c.Layers, p.Layers)
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
