package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/spf13/cobra"
)

// localFlags are scn train's flags of local (convolutional) nodes.
type localFlags struct {
	sizes       string // --local 5x5 or 3x3,5x5
	filters     int
	stride      int
	pad         string
	pool        string
	pooling     string
	twoSided    bool
	standardize bool
	whiten      bool    // --whiten
	whitenEps   float64 // --whiten-eps
}

// localRidge is the ridge term of local nodes unless --ridge says
// otherwise: their pooled outputs are standardised, so the term is
// relative to unit-variance columns (see docs/local.md for the measured
// choice).
const localRidge = 100

// addLocal registers the local nodes' flags.
func (h *hyperFlags) addLocal(cmd *cobra.Command) {
	f := cmd.Flags()
	l := &h.local
	f.StringVar(&l.sizes, "local", "", "local (convolutional) nodes: filter sizes KxK, comma-separated for several banks (e.g. 5x5 or 3x3,5x5); each filter is applied at every position and pooled (--pool), separable u v^T (x w over the colour channels) for 2dscn/2drvfl, full for scn/rvfl; ReLU, ridge 100 and no model selection unless told")
	intVar(f, &l.filters, "filters", 256, 1, 1<<16, "with --local: filters per size")
	intVar(f, &l.stride, "stride", 1, 1, 1<<12, "with --local: step between filter positions")
	f.StringVar(&l.pad, "pad", "same", "with --local: zero pixels added at every border, or same (half the filter size)")
	f.StringVar(&l.pool, "pool", "3", "with --local: pool grid P or PxP (each filter gives P^2 outputs per pooling and side)")
	f.StringVar(&l.pooling, "pooling", "avg", "with --local: avg, max or avg+max")
	f.BoolVar(&l.twoSided, "two-sided", true, "with --local: each filter gives g(z) and g(-z) (for relu: max(0,z), max(0,-z))")
	f.BoolVar(&l.standardize, "local-standardize", true, "with --local: standardise each pooled output over the training images (recorded in the model)")
	f.BoolVar(&l.whiten, "whiten", false, "with --local: draw the filters in the space of ZCA-whitened patches (Coates, Lee & Ng 2011): the whitening of each filter size, from the covariance of up to 50000 patches of the training images (planes standardised) sampled with --seed, is folded into the filters (a 2D learner's separable filter becomes a full one when applied) and recorded in the model")
	h.addSecond()
	floatVar(f, &l.whitenEps, "whiten-eps", 0.1, 0, 1e6, false, "with --whiten: the whitening's regulariser eps, W = V (D + eps I)^-1/2 V^T, in units of the standardised planes' variance")
}

// localSet reports whether --local was given.
func (h *hyperFlags) localSet() bool { return h.local.sizes != "" }

// localOnly are the flags that mean nothing without --local.
var localOnly = []string{"filters", "stride", "pad", "pool", "pooling", "two-sided", "local-standardize", "whiten", "whiten-eps", "local2"}

// applyLocal sets c.Local from the flags, with the settings local nodes
// need: ReLU (unless --activation), scale 1 (unless --scales), a ridge
// term (unless --ridge), none of the global nodes' options.
func (h *hyperFlags) applyLocal(c *scn.Config) error {
	l := &h.local
	if !h.localSet() {
		for _, name := range localOnly {
			if h.flags != nil && h.flags.Lookup(name) != nil && h.flags.Changed(name) {
				return usageError{fmt.Errorf("--%s is a setting of local nodes: add --local (e.g. --local 5x5)", name)}
			}
		}
		return nil
	}
	g := &scn.Local{Filters: l.filters, Stride: l.stride, TwoSided: l.twoSided, Standardize: l.standardize}
	if l.whiten {
		g.Whiten, g.WhitenEps = true, l.whitenEps
	} else if h.changed("whiten-eps") {
		return usageError{fmt.Errorf("--whiten-eps is a setting of --whiten: add --whiten")}
	}
	for _, it := range strings.Split(l.sizes, ",") {
		k, err := parseSquare(strings.TrimSpace(it))
		if err != nil {
			return usageError{fmt.Errorf("--local %q: %v", l.sizes, err)}
		}
		g.Sizes = append(g.Sizes, k)
	}
	if l.pad == "same" {
		g.Pad = scn.PadSame
	} else {
		p, err := strconv.Atoi(l.pad)
		if err != nil || p < 0 {
			return usageError{fmt.Errorf("--pad %q: want same or a number of pixels >= 0", l.pad)}
		}
		g.Pad = p
	}
	p, err := parseSquare(l.pool)
	if err != nil {
		return usageError{fmt.Errorf("--pool %q: %v", l.pool, err)}
	}
	g.Pool = p
	if g.Pooling, err = scn.ParsePooling(l.pooling); err != nil {
		return usageError{fmt.Errorf("--pooling: %v", err)}
	}
	if len(c.Layers) > 0 {
		return usageError{fmt.Errorf("--local and --layers: a second layer of local nodes is --local2")}
	}
	if err := h.applySecond(g); err != nil {
		return err
	}
	c.Local = g
	if !h.changed("activation") {
		c.Activation = scn.ReLU
	}
	if !h.changed("ridge") {
		c.Ridge = localRidge
	}
	if h.scales == "" {
		c.Scales = []float64{1}
	}
	if !h.changed("field") {
		c.FieldMin, c.FieldMax = 0, 0
	}
	if !h.changed("differences") {
		c.Differences = false
	}
	if !h.changed("standardize") {
		c.Standardize = false
	}
	if !h.changed("pairs") {
		c.Pairs = false
	}
	if !h.changed("bf16-gram") && c.Kind.Choice == scn.Supervised {
		c.BF16Gram = false
	}
	// L_max is the pooled outputs (recorded, and what the memory checks
	// of global nodes would count).
	c.MaxNodes = g.Outputs()
	return nil
}

// parseSquare reads K or KxK (a square side).
func parseSquare(s string) (int, error) {
	a, b, two := strings.Cut(strings.ToLower(s), "x")
	k, err := strconv.Atoi(a)
	if err != nil || k < 1 || k > 1024 {
		return 0, fmt.Errorf("%q is not a side K or KxK with 1 <= K <= 1024", s)
	}
	if two {
		k2, err := strconv.Atoi(b)
		if err != nil || k2 != k {
			return 0, fmt.Errorf("%q: only square sizes KxK so far", s)
		}
	}
	return k, nil
}

// localParams says what a local model's parameters are.
func localParams(m scn.Info) string {
	var parts []string
	for i, f := range m.LocalFilters {
		k := m.Local.Sizes[i]
		parts = append(parts, fmt.Sprintf("%d filters of %dx%d, %d + bias each", f, k, k, m.ParamsPerFilter(k)))
	}
	s := strings.Join(parts, "; ")
	if m.Local.Standardize {
		s += fmt.Sprintf("; mean and scale of %d pooled outputs", m.Nodes)
	}
	if m.Local.Whiten {
		for _, k := range m.Local.Sizes {
			kk := m.Chans() * k * k
			s += fmt.Sprintf("; whitening matrix of %dx%d (%d x %d)", k, k, kk, kk)
		}
	}
	return s + fmt.Sprintf("; %d output weights per pooled output", m.M)
}

// localLine describes a local model's geometry and filters.
func localLine(m scn.Info) string {
	form := "full filters"
	if m.Kind.Input == scn.Matrix {
		form = "separable filters u v^T"
		if m.Chans() > 1 {
			form += " x w"
		}
	}
	return fmt.Sprintf("%s (%s; banks of %v filters), %d pooled outputs", m.Local, form, m.LocalFilters, m.Nodes)
}

// localJSON is the local geometry in scn inspect --json.
func localJSON(m scn.Info) map[string]any {
	pad := any(m.Local.Pad)
	if m.Local.Pad == scn.PadSame {
		pad = "same"
	}
	var per []int
	for _, k := range m.Local.Sizes {
		per = append(per, m.ParamsPerFilter(k))
	}
	return map[string]any{
		"sizes": m.Local.Sizes, "filters": m.Local.Filters, "bank_filters": m.LocalFilters, "params_per_filter": per,
		"stride": m.Local.Stride, "pad": pad, "pool": m.Local.Pool, "pooling": m.Local.Pooling.String(),
		"two_sided": m.Local.TwoSided, "standardize": m.Local.Standardize, "pooled_outputs": m.Nodes,
		"whiten": m.Local.Whiten, "whiten_eps": m.Local.WhitenEps,
	}
}

// checkLocal refuses local nodes that cannot be applied to images of the
// shape sh (a filter larger than the image, a pool grid larger than the
// map), before anything is fitted.
func checkLocal(cfg scn.Config, sh dataset.Shape) error {
	if cfg.Local == nil || sh.Rows < 1 || sh.Cols < 1 {
		return nil
	}
	if err := cfg.Local.ForImages(sh.Rows, sh.Cols, sh.Channels); err != nil {
		return usageError{err}
	}
	if l := cfg.Local.Outputs(); cfg.Kind.Choice == scn.Random && sh.N > 0 && l > maxNodesPerImage*sh.N {
		return fmt.Errorf("--filters %d gives %d pooled outputs, more than %d times the %d training images: %s's hidden outputs have rank at most %d; lower --filters or --pool",
			cfg.Local.Filters, l, maxNodesPerImage, sh.N, cfg.Kind.Title(), sh.N)
	}
	return nil
}

// localConflicts refuses what local nodes do not have yet: a time budget
// (--budget, --replay). Their statistics for scn update (--stats-out) are
// written as global nodes' are; a streamed fit (--stream) of random
// filters is FitStream's (scn.Config.StreamFits says what is not
// streamed).
func (h *hyperFlags) localConflicts(budget, statsOut, stream bool) error {
	if !h.localSet() {
		return nil
	}
	switch {
	case budget:
		return usageError{fmt.Errorf("--local and --budget/--replay: a time budget chooses the filters itself (local nodes on photos); drop --local or --budget")}
	}
	return nil
}
