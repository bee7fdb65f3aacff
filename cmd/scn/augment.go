package main

import (
	"fmt"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/spf13/cobra"
)

// augmentUsage is the help of scn train's --augment.
const augmentUsage = "with local nodes (--local, or the default preset on photos): add mirrored and shifted copies of the training images as extra rows of the output weights' least squares: flip (each image's mirror), shift=S (copies shifted by up to S pixels, zero-filled, drawn from --seed), copies=K (shifted copies per image, default 1); e.g. flip,shift=4. Costs one pass of the filters per copy, not memory; recorded in the model; selection scores held-out images as they are"

// addAugment registers --augment on cmd.
func addAugment(cmd *cobra.Command, s *string) {
	cmd.Flags().StringVar(s, "augment", "", augmentUsage)
}

// parseAugmentFlag reads --augment (nil when not given).
func parseAugmentFlag(s string) (*scn.Augment, error) {
	if s == "" {
		return nil, nil
	}
	a, err := scn.ParseAugment(s)
	if err != nil {
		return nil, usageError{fmt.Errorf("--augment %q: %v", s, err)}
	}
	return a, nil
}

// augmentConflicts refuses what augmentation does not have yet.
func augmentConflicts(a *scn.Augment, budget, statsOut, stream bool) error {
	if a == nil {
		return nil
	}
	switch {
	case budget:
		return usageError{fmt.Errorf("--augment and --budget/--replay: a time budget plans its fits without augmentation so far; drop one")}
	case stream:
		return usageError{fmt.Errorf("--augment and --stream: augmented fits read the images in memory")}
	}
	return nil
}

// checkAugment refuses an augmentation the configuration cannot take on
// images of shape sh: global nodes, or a shift as large as a side.
func checkAugment(cfg scn.Config, sh dataset.Shape) error {
	a := cfg.Augment
	if a == nil {
		return nil
	}
	if cfg.Local == nil {
		return usageError{fmt.Errorf("--augment is for local nodes: add --local (e.g. --local 5x5), or let the default preset choose them on photos (colour, or larger than 40 x 40)")}
	}
	if sh.Rows > 0 && sh.Cols > 0 {
		if err := a.ForImages(sh.Rows, sh.Cols); err != nil {
			return usageError{fmt.Errorf("--augment: %v", err)}
		}
	}
	return nil
}

// augmentLine describes a model's augmentation for scn inspect and the
// plan of --dry-run.
func augmentLine(a *scn.Augment) string {
	var what string
	switch {
	case a.Flip && a.Shift > 0:
		what = fmt.Sprintf("each image's mirror and %d cop%s shifted by up to %d pixels (each mirrored or not at random)", a.Copies, plural(a.Copies, "y", "ies"), a.Shift)
	case a.Flip:
		what = "each image's mirror"
	default:
		what = fmt.Sprintf("%d cop%s of each image shifted by up to %d pixels", a.Copies, plural(a.Copies, "y", "ies"), a.Shift)
	}
	return fmt.Sprintf("%s: %s, %d rows per image in the output weights' least squares", a, what, 1+a.Extra())
}

// plural returns one for 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// copiesNote says how many augmented copies statistics of rows rows hold
// beside their n images ("" when they hold the images alone).
func copiesNote(rows, n int) string {
	if rows == n {
		return ""
	}
	return fmt.Sprintf(" and their %d augmented copies", rows-n)
}
