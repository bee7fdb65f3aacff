package main

import (
	"fmt"
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
	if b := currentBudget(); b.bytes > 0 && bytes >= b.bytes {
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
	s, p, err := d.loadTraining(out, stderr, func(sh dataset.Shape) error { return imagesFit(sh.Bytes()) })
	if err != nil {
		return err
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
	limit := currentBudget().bytes
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
		bar = newProgress(src.Budget.FitNodes, src.Kind.Title(), quiet)
		m, err = scn.Replay(cmd.Context(), src.Budget, src, prob, step)
	} else {
		b := scn.Budget{Duration: total, Start: processStart, MaxBytes: limit, Seed: h.seed}
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
