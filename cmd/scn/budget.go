package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/spf13/cobra"
)

// budgetConflicts are the flags a --budget chooses itself.
var budgetConflicts = []string{"model", "preset", "nodes", "block", "field", "validation", "folds", "patience", "ridges", "ridge", "candidates", "scales", "ratios", "standardize", "differences", "float32-gram", "bf16-gram", "pairs", "tolerance", "activation", "robust", "layers"}

// checkBudgetFlags refuses a --budget together with a flag it sets itself.
func (h *hyperFlags) checkBudgetFlags() error {
	var set []string
	for _, name := range budgetConflicts {
		if h.flags != nil && h.flags.Lookup(name) != nil && h.flags.Changed(name) {
			set = append(set, "--"+name)
		}
	}
	if len(set) > 0 {
		return usageError{fmt.Errorf("--budget chooses the learner and its settings itself: drop %s (or drop --budget)", strings.Join(set, ", "))}
	}
	return nil
}

// budgetPlanLine says in one line what a budget planned.
func budgetPlanLine(total time.Duration, p scn.BudgetPlan) string {
	if p.Probe != "" {
		q := p
		q.Probe = ""
		return budgetPlanLine(total, q) + "; probe: " + p.Probe
	}
	if p.Filters > 0 {
		ridge := fmt.Sprintf("ridge %g", p.FitRidge)
		if p.Validation > 0 {
			ridge = fmt.Sprintf("ridge chosen among %s on %.0f%% held out, then every image", joinFloats(p.Ridges), 100*p.Validation)
		}
		return fmt.Sprintf("%v: %s (%s preset) with local nodes, %d filters (%d pooled outputs), %s, predicted %.1f s; %s",
			total, p.Kind.Title(), p.Preset, p.Filters, p.Nodes, ridge, p.Predicted.Seconds(), p.Why)
	}
	return fmt.Sprintf("%v: %s (%s preset), L = %d planned in blocks of %d (up to %d if ahead), %.0f%% held out, predicted %.1f s; %s",
		total, p.Kind.Title(), p.Preset, p.Nodes, p.BlockSize, p.MaxNodes, 100*p.Validation, p.Predicted.Seconds(), p.Why)
}

// budgetOutcomeLine says what a budgeted fit did.
func budgetOutcomeLine(b *scn.BudgetRecord, sel *scn.Choice) string {
	chose := ""
	if sel != nil {
		score := fmt.Sprintf("RMSE %.4g", sel.RMSE)
		if sel.Metric == "accuracy" {
			score = fmt.Sprintf("%.2f%%", 100*sel.Accuracy)
		}
		chose = fmt.Sprintf(", chose L = %d, ridge %g (held-out %s)", sel.Nodes, sel.Ridge, score)
	}
	return fmt.Sprintf("fitted %d of %d planned nodes (stopped: %s)%s; %.1f s of %v at the end of selection",
		b.FitNodes, b.Plan.Nodes, b.Stopped, chose, b.Elapsed.Seconds(), b.Budget)
}

// checkpointsLine lists the held-out score at (up to ten of) the checkpoints.
func checkpointsLine(b *scn.BudgetRecord) string {
	var pts []string
	step := max(1, len(b.Checkpoints)/10)
	for i := 0; i < len(b.Checkpoints); i += step {
		c := b.Checkpoints[i]
		pts = append(pts, fmt.Sprintf("L=%d %.1f%% at %.1f s", c.Nodes, 100*c.Accuracy, c.Elapsed.Seconds()))
	}
	if len(pts) == 0 {
		return "none"
	}
	return strings.Join(pts, ", ")
}

// imagesFit refuses training images of the given bytes that leave no
// memory for a budgeted fit under the limit.
func imagesFit(bytes int64) error {
	if b := currentMemCap(); b.bytes > 0 && bytes >= b.bytes {
		return b.check(bytes+1, "the training images", "shrink the images with --resize")
	}
	return nil
}

// trainBudget is scn train --budget and --replay.
func trainBudget(cmd *cobra.Command, h *hyperFlags, d *dataFlags, out string, quiet bool, total time.Duration, replay string) error {
	switch {
	case total != 0 && replay != "":
		return usageError{fmt.Errorf("--budget and --replay: give one (--replay refits a budgeted model's plan without a budget)")}
	case total < 0:
		return usageError{fmt.Errorf("--budget %v: want a positive duration such as 60s", total)}
	}
	if err := h.checkBudgetFlags(); err != nil {
		return err
	}
	var src *scn.Model
	if replay != "" {
		m, err := scn.Load(replay)
		if err != nil {
			return err
		}
		if m.Budget == nil {
			return fmt.Errorf("--replay %s: the model was not fitted with --budget (no plan recorded)", replay)
		}
		src = m
	}
	stderr := cmd.ErrOrStderr()
	readStart := time.Now()
	s, p, err := d.loadTraining(out, stderr, func(sh dataset.Shape) error { return imagesFit(sh.Bytes()) })
	if err != nil {
		return err
	}
	readTime := time.Since(readStart)
	if src != nil {
		if s, p, err = d.replayPhotoSize(src, s, p); err != nil { // budget_photos.go
			return err
		}
	}
	prob, err := s.Problem()
	if err != nil {
		return err
	}
	if src != nil && (src.Rows != s.Rows || src.Cols != s.Cols || src.M != outputs(s)) {
		return fmt.Errorf("--replay %s: the model was fitted on %d x %d images with %d outputs, these are %d x %d with %d", replay, src.Rows, src.Cols, src.M, s.Rows, s.Cols, outputs(s))
	}
	debug.FreeOSMemory()
	if err := imagesFit(setBytes(s)); err != nil {
		return err
	}
	limit := currentMemCap().bytes
	if limit > 0 {
		limit -= setBytes(s)
	}
	var bar *progress
	step := func(st scn.Step) {
		if bar != nil {
			bar.step(st)
		}
	}
	var m *scn.Model
	if src != nil {
		if src.Preprocessing.Deskew && !p.Deskew { // the budget chose it
			// Deskewing holds the images twice for a moment.
			if err := imagesFit(2 * setBytes(s)); err != nil {
				return fmt.Errorf("--replay %s deskews the images: %w", replay, err)
			}
			if s, err = dataset.Prepare(s, dataset.Preprocess{Deskew: true}); err != nil {
				return err
			}
			p.Deskew = true
			if prob, err = s.Problem(); err != nil {
				return err
			}
		}
		bar = newProgress(src.Budget.FitNodes, src.Kind.Title(), quiet)
		m, err = scn.Replay(cmd.Context(), src.Budget, src, prob, step)
	} else {
		b := scn.Budget{Duration: total, Start: processStart, MaxBytes: limit, Seed: h.seed}
		// Photos get local nodes (scn.PhotoImages), which deskewing
		// (of slanted ink) does not serve.
		if !cmd.Flags().Changed("deskew") && !s.IsRegression() && !scn.PhotoImages(s.Rows, s.Cols, s.Chans()) {
			if s, p, b.Rates, err = chooseDeskew(cmd.Context(), b, s, p, stderr); err != nil {
				return err
			}
			if prob, err = s.Problem(); err != nil {
				return err
			}
		}
		if budgetPhotoSet(s) && budgetProbeAsked(cmd) {
			// The photo probe: the image size (budget_photos.go) and the
			// filter size.
			others := d.photoSizes(s, p, cmd.Flags().Changed("resize"), readTime, total, stderr)
			if s, p, b.Photo, err = choosePhotoSize(cmd.Context(), b, s, p, others, stderr); err != nil {
				return err
			}
			others = nil
			if prob, err = s.Problem(); err != nil {
				return err
			}
			debug.FreeOSMemory()
			if b.MaxBytes > 0 {
				b.MaxBytes = max(1, currentMemCap().bytes-setBytes(s))
			}
		}
		m, err = b.Fit(cmd.Context(), prob, step, func(pl scn.BudgetPlan) {
			fmt.Fprintf(stderr, "budget %s\n", budgetPlanLine(total, pl))
			bar = newProgress(pl.MaxNodes, pl.Kind.Title(), quiet)
		})
	}
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return err
	}
	if src == nil {
		recordData(m, s, p)
	}
	if err := m.Save(out); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	summary(w, m)
	fmt.Fprintf(w, "budget %s\n", budgetOutcomeLine(m.Budget, m.Selection))
	if src != nil {
		fmt.Fprintf(w, "replayed the plan of %s\n", replay)
	}
	fmt.Fprintf(w, "saved %s (whole process %.1f s)\n", out, time.Since(processStart).Seconds())
	return nil
}

// chooseDeskew lets a budget decide whether to deskew the training images
// (when --deskew is not given) by the library's probe
// (dataset.ChooseDeskew), and says on w what it chose and why. It returns
// the set and preprocessing to fit, and the rates of the probe of the
// preparation kept, so that the budget does not probe again (nil when
// there is no room for a deskewed copy, and so nothing to probe).
func chooseDeskew(ctx context.Context, b scn.Budget, s *dataset.Set, p dataset.Preprocess, w io.Writer) (*dataset.Set, dataset.Preprocess, *scn.Rates, error) {
	c, err := dataset.ChooseDeskew(ctx, b, s, p)
	if err != nil {
		return nil, p, nil, err
	}
	asRead, skew := c.AsRead, c.Deskewed
	switch {
	case c.NoRoom:
		fmt.Fprintf(w, "budget: images as read: a deskewed copy of the images (%s) does not fit in the memory left (%s)\n",
			formatBytes(setBytes(s)), formatBytes(b.MaxBytes))
	case !c.Deskew():
		fmt.Fprintf(w, "budget: images as read (probe's held-out accuracy %.2f%%; deskewed %.2f%%, %+.2f points, short of the %.2f that would show a gain on %d images)\n",
			100*asRead.Accuracy, 100*skew.Accuracy, 100*(skew.Accuracy-asRead.Accuracy), 100*c.Margin, asRead.Held)
	default:
		fmt.Fprintf(w, "budget: images deskewed (probe's held-out accuracy %.2f%%; as read %.2f%%)\n", 100*skew.Accuracy, 100*asRead.Accuracy)
	}
	return c.Set, c.Prep, c.Rates, nil
}

// joinFloats lists the values comma-separated (%g each).
func joinFloats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%g", x)
	}
	return strings.Join(s, ",")
}
