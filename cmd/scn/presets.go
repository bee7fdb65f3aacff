package main

import (
	"fmt"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

// photoChoice applies the presets' photo policy (scn.Config.ForPhotos) to
// a training set of shape sh: on colour images or images larger than 40 x
// 40, the default and fast presets fit 2DRVFL with local nodes. Flags win:
// --model, --nodes, --local, --layers, --patience or any setting that
// makes the configuration custom keep cfg as it is. The local nodes are
// fitted without model selection (ridge scn.PhotoRidge) unless
// --validation, --folds or --ridges ask for it (then it chooses the ridge
// term). The note says what was chosen; it is empty when nothing changed.
func (h *hyperFlags) photoChoice(cfg scn.Config, sel *scn.Selection, sh dataset.Shape) (scn.Config, *scn.Selection, string) {
	for _, name := range []string{"model", "nodes", "local", "layers", "patience"} {
		if h.changed(name) {
			return cfg, sel, ""
		}
	}
	c, ok := cfg.ForPhotos(sh.N, sh.Rows, sh.Cols, max(sh.Channels, 1))
	if !ok {
		return cfg, sel, ""
	}
	if h.validationFlagSet == nil || !h.validationFlagSet() {
		sel = nil
	}
	what := "colour photos"
	if sh.Channels < 2 {
		what = "photos"
	}
	note := fmt.Sprintf("scn: note: %s of %d x %d x %d: the %s preset fits %s with local nodes (%s; ridge %g, %d pooled outputs), as --model 2drvfl --local 5x5 --filters %d --whiten would; --model, --local, --nodes or --direct-link choose otherwise\n",
		what, sh.Rows, sh.Cols, max(sh.Channels, 1), cfg.Preset, c.Kind.Title(), c.Local, c.Ridge, c.Local.Outputs(), c.Local.Filters)
	return c, sel, note
}
