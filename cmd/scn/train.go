package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/spf13/cobra"
)

func newTrain() *cobra.Command {
	var (
		h           hyperFlags
		d           dataFlags
		out         string
		quiet, part bool
		timeBudget  time.Duration
		replay      string
		statsOut    string
		statsFactor bool
		dryRun      bool
		stream      bool
		cf          calibFlags
		augment     string
	)
	cmd := &cobra.Command{
		Use:   "train",
		Short: "Fit one learner on a data set and save the model",
		Long: `Fit one learner (2dscn, scn, 2drvfl or rvfl) on a data set given as an IDX
pair, a folder of class subfolders, a CSV file, the train part of a folder
written by scn derive (--derived), or the built-in data set (the default), and
write a model file. Labels give classification; targets (--idx-targets, or a
derived set that has them) give regression. The preprocessing is recorded in
the model and applied again by eval and predict. A training set whose images
mostly look like dark ink on a light background gets a one-line note unless
--invert is given.

--budget 60s chooses the learner and its settings itself for the best
held-out accuracy the time can buy, counted from the start of the process:
it measures this machine with a short probe fit, plans L, fits in stages
(random learners: one pass over the data per stage, each sized on the pace
so far) or block by block (supervised learners), stops when no more nodes
fit in the time left (or grows past the plan when ahead), then picks the best
prefix on held-out data. The plan and what
happened are printed and recorded in the model (scn inspect shows them);
--replay MODEL refits a budgeted model's plan on the same data without a
clock, giving the same model file.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := h.localConflicts(timeBudget != 0 || replay != "", statsOut != "", stream); err != nil {
				return err
			}
			if err := cf.check(); err != nil {
				return err
			}
			aug, err := parseAugmentFlag(augment)
			if err != nil {
				return err
			}
			if err := augmentConflicts(aug, timeBudget != 0 || replay != "", statsOut != "", stream); err != nil {
				return err
			}
			if cf.any() && (timeBudget != 0 || replay != "" || stream) {
				return usageError{fmt.Errorf("--calibrate, --coverage and --class-weight are for in-memory fits without --budget, --replay or --stream")}
			}
			if (timeBudget != 0 || replay != "") && stream {
				return usageError{fmt.Errorf("--stream and --budget/--replay: a budgeted fit measures and selects in memory; drop one")}
			}
			if budgetProbeAsked(cmd) && timeBudget == 0 {
				return usageError{fmt.Errorf("--budget-probe is for --budget (a replay refits the recorded choice)")}
			}
			if timeBudget != 0 || replay != "" {
				return trainBudget(cmd, &h, &d, out, quiet, timeBudget, replay)
			}
			k, err := h.kind()
			if err != nil {
				return err
			}
			cfg, err := h.config(k)
			if err != nil {
				return err
			}
			sel, err := h.selection()
			if err != nil {
				return err
			}
			if len(cfg.Layers) > 0 && statsOut != "" {
				return usageError{fmt.Errorf("--stats-out holds the statistics of one layer's nodes: drop it or --layers")}
			}
			stderr := cmd.ErrOrStderr()
			photoStream := func(sh dataset.Shape) (scn.Config, *scn.Selection, string) { return h.photoChoice(cfg, sel, sh) }
			src, note, err := d.streamPlan(cfg, sel, stream, statsOut, photoStream)
			if err != nil {
				return err
			}
			if src != nil {
				if err := checkOutput("-o", out); err != nil {
					return err
				}
				fmt.Fprint(stderr, note)
				cfg, sel = src.cfg, src.sel // the photo choice, on the stream's shape
				if dryRun {
					printStreamPlan(cmd.OutOrStdout(), cfg, sel, src)
					return nil
				}
				return trainStreamed(cmd, cfg, sel, src, src.Prep, out, quiet)
			}
			// Refused before the images are read when what their headers
			// say cannot fit; checked again on the set as read.
			// The presets' photo choice (local nodes on colour or large
			// images) needs the images' shape.
			photos := func(sh dataset.Shape) (scn.Config, *scn.Selection, string) {
				c, sl, note := h.photoChoice(cfg, sel, sh)
				c.Augment = aug
				return c, sl, note
			}
			// --stats-out's pass comes after the fit, beside the set.
			statsFits := func(c scn.Config, sl *scn.Selection, sh dataset.Shape) error {
				if statsOut == "" {
					return nil
				}
				return currentMemCap().checkStats(c, sh, statsFactor && (c.Ridge > 0 || sl != nil))
			}
			s, p, err := d.loadTraining(out, stderr, func(sh dataset.Shape) error {
				c, sl, _ := photos(sh)
				c, _, err := h.fitPlan(c, sl, sh)
				if err != nil {
					return err
				}
				return statsFits(c, sl, sh)
			})
			if err != nil {
				return err
			}
			var photoNote string
			cfg, sel, photoNote = photos(s.Shape())
			fmt.Fprint(stderr, photoNote)
			sel = h.forSize(sel, s)
			cfg, notes, err := h.fitPlan(cfg, sel, s.Shape())
			fmt.Fprint(stderr, notes)
			if err != nil {
				return err
			}
			if err := statsFits(cfg, sel, s.Shape()); err != nil {
				return err
			}
			fmt.Fprint(stderr, nodesNote(cfg, s.Len()))
			polarityNote(stderr, s, &d)
			prob, err := s.Problem()
			if err != nil {
				return err
			}
			if dryRun {
				var stats int64 // --stats-out's pass after the fit
				if statsOut != "" {
					stats = statsTotal(cfg, s.Shape(), statsFactor && (cfg.Ridge > 0 || sel != nil))
				}
				return printPlan(cmd.OutOrStdout(), cfg, sel, s, stats)
			}
			// Reading the data leaves the decompressed files and decoding
			// buffers as garbage: returned to the system before the fit
			// allocates its own, they do not add to its peak memory (on
			// MNIST, about 50 MB of the fast preset's 0.6 GB).
			debug.FreeOSMemory()
			// The fit's own buffers come and go: keep the collector's slack
			// small beside the images and the factor it holds.
			// Selection's buffers count as live too: left out, a small
			// fit's collector let the heap grow by two thirds of the
			// selection's buffers past what the estimate allows for.
			est := cfg.Estimate(s.Shape(), sel)
			setGCSlack(int64(s.Len())*int64(s.Dim())*4 + est.FitBytes() + est.Selection)
			bar := newProgress(totalNodes(cfg), cfg.Kind.Title(), quiet)
			var m *scn.Model
			if sel != nil && sel.Grow {
				sh := s.Shape()
				sel.Afford = func(next scn.Config) error {
					return currentMemCap().checkFit(next, sel, sh, 0)
				}
				sel.Growing = func(next int) { bar.grow(stderr, next) }
			}
			m, err = cf.fit(cmd.Context(), cfg, sel, prob, h.validation, bar.step)
			bar.finish()
			cancelled := err != nil && errors.Is(err, context.Canceled)
			switch {
			case cancelled && !part:
				return interruptHint{err, "nothing saved (--save-partial keeps the nodes built so far)"}
			case cancelled && (m == nil || m.Nodes() == 0):
				return interruptHint{err, "no node was built, nothing saved"}
			case err != nil && !cancelled:
				return err
			}
			recordData(m, s, p)
			if err := m.Save(out); err != nil {
				return err
			}
			if statsOut != "" && !cancelled {
				// The fit's buffers are garbage: returned to the system
				// first, they do not add to the statistics' peak, which
				// checkStats bounds apart from the fit's.
				debug.FreeOSMemory()
				st, err := m.Stats(prob)
				if err != nil {
					return err
				}
				if statsFactor && m.Config.Ridge > 0 {
					// The factor scn update would form (L^3 / 3 flops),
					// stored so that it need not.
					if err := st.Factorize(m.Config.Ridge); err != nil {
						return err
					}
				}
				if err := st.Save(statsOut); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "statistics of %d images%s: saved %s\n", prob.X.Len(), copiesNote(st.N, prob.X.Len()), statsOut)
			}
			summary(cmd.OutOrStdout(), m)
			if m.Selection != nil && !cancelled {
				fmt.Fprintln(cmd.OutOrStdout(), selectionLine(m.Selection))
			}
			if line := calibLine(m); line != "" {
				fmt.Fprintln(cmd.OutOrStdout(), line)
			}
			if cancelled {
				// Interrupted all the same: status 130, so that a script
				// does not go on as if the fit had finished.
				return interruptHint{err, fmt.Sprintf("saved the %d nodes built so far to %s", m.Nodes(), out)}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "saved %s\n", out)
			return nil
		},
	}
	h.add(cmd, 500)
	h.addLayers(cmd)
	h.addLocal(cmd)
	cf.add(cmd)
	addAugment(cmd, &augment)
	d.add(cmd, true)
	cmd.Flags().StringVarP(&out, "out", "o", "model.scn", "model file to write")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress bar")
	cmd.Flags().BoolVar(&part, "save-partial", false, "on Ctrl-C, save the nodes built so far (the exit status is still 130)")
	cmd.Flags().StringVar(&statsOut, "stats-out", "", "also write the statistics of the training images for the model's nodes (.scnstats: for scn update, stats merge, solve, serve --learn; global or local nodes, an augmented fit's copies included)")
	cmd.Flags().BoolVar(&statsFactor, "stats-factor", true, "with --stats-out and a ridge term, also store the Cholesky factor of G + ridge I (the file takes 1.5 x the bytes; scn update then need not factor G): --stats-factor=false writes the statistics alone (format version 1)")
	cmd.Flags().BoolVar(&stream, "stream", false, "read the labelled training images (IDX files, a NumPy .npy/.npz array, a folder or a CSV file) shard by shard instead of all at once (block fits with a ridge: random learners in two passes, scn and 2dscn in ceil(nodes / block) + 2, random local filters (--local with rvfl or 2drvfl, no augmentation or selection) in three; selection with a --validation hold-out in two more; the default when they would not fit in --max-memory): docs/stats.md")
	durationVar(cmd.Flags(), &timeBudget, "budget", 0, time.Second, 7*24*time.Hour, "wall-clock budget for the whole process (e.g. 60s, 2m): the learner, L and the settings are chosen for the best held-out accuracy that finishes in time")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "read the data, print the plan (learner, nodes, block, candidates, fields, memory estimate by part) and exit without fitting")
	cmd.Flags().StringVar(&replay, "replay", "", "refit the plan a --budget model records (same data flags) without a clock: the same model file")
	addBudgetProbe(cmd) // budget_photos.go
	return cmd
}

// selectionLine says in one line what model selection chose and why.
func selectionLine(c *scn.Choice) string {
	score := fmt.Sprintf("held-out RMSE %.4g", c.RMSE)
	if c.Metric == "accuracy" {
		score = fmt.Sprintf("held-out accuracy %.2f%%", 100*c.Accuracy)
	}
	how := fmt.Sprintf("%d held-out images", c.Held)
	if c.Method == "kfold" {
		how = fmt.Sprintf("%d-fold cross-validation over %d images", c.Folds, c.Held)
	}
	stop := ""
	if c.StoppedAt > 0 {
		stop = fmt.Sprintf("; growth stopped at %d nodes (no gain for --patience checkpoints)", c.StoppedAt)
	}
	if c.Growth != "" {
		stop += "; " + c.Growth
	}
	direct := ""
	if c.Direct {
		direct = " with direct links"
	}
	return fmt.Sprintf("selected L = %d of %d fitted nodes%s, ridge %g: best %s of %d (L, ridge) pairs on %s%s", c.Nodes, c.FitNodes, direct, c.Ridge, score, c.Candidates, how, stop)
}

// loadTraining reads the training set of the data flags with their
// preprocessing, after checking the output path -o, and checks its classes.
// Before reading it calls pre, unless nil, with the set's shape as its
// headers tell it (peekShape), and returns what pre refuses.
func (d *dataFlags) loadTraining(out string, stderr io.Writer, pre func(dataset.Shape) error) (*dataset.Set, dataset.Preprocess, error) {
	p, err := d.preprocess()
	if err != nil {
		return nil, p, err
	}
	if err := checkOutput("-o", out); err != nil {
		return nil, p, err
	}
	if sh, ok := d.peekShape("train", p); ok && pre != nil {
		if err := pre(sh); err != nil {
			return nil, p, err
		}
	}
	s, err := d.load("train", p)
	if errors.Is(err, dataset.ErrMixedSizes) {
		s, p, err = d.loadResized(p, stderr, err) // autosize.go
	}
	if err != nil {
		return nil, p, err
	}
	if err := checkTrainClasses(stderr, s); err != nil {
		return nil, p, err
	}
	return s, p, nil
}

// printPlan writes what a fit of cfg on s would do and the memory it is
// estimated to take, by part, without fitting (scn train --dry-run); stats
// > 0 is --stats-out's pass after it (statsTotal).
func printPlan(w io.Writer, cfg scn.Config, sel *scn.Selection, s *dataset.Set, stats int64) error {
	fmt.Fprintf(w, "learner     %s, %d nodes at most\n", cfg.Kind.Title(), cfg.MaxNodes)
	fmt.Fprintf(w, "data        %d images of %d x %d x %d, %d outputs\n", s.Len(), s.Rows, s.Cols, s.Chans(), outputs(s))
	if cfg.Local != nil {
		fmt.Fprintf(w, "local       %s, ridge %g\n", cfg.Local, cfg.Ridge)
		if cfg.Augment != nil {
			fmt.Fprintf(w, "augment     %s\n", augmentLine(cfg.Augment))
		}
	} else if cfg.BlockSize > 1 {
		fmt.Fprintf(w, "block       %d nodes\n", cfg.BlockSize)
	}
	if cfg.Kind.Choice == scn.Supervised {
		fmt.Fprintf(w, "candidates  %d per node\n", cfg.Candidates)
	}
	if cfg.FieldMax > 0 {
		fmt.Fprintf(w, "fields      %d to %d pixels\n", cfg.FieldMin, cfg.FieldMax)
	}
	if sel != nil {
		fmt.Fprintf(w, "selection   %s\n", selectionPlan(sel))
	}
	est := cfg.Estimate(s.Shape(), sel)
	e, selBytes := est.Fit, est.Selection
	total := fitTotal(cfg, sel, s.Shape(), 0)
	fmt.Fprintf(w, "memory      %s in all, %d bytes (images %s, candidates %s, least squares %s, solve %s, model %s, selection %s, process %s)\n",
		formatBytes(total), total, formatBytes(setBytes(s)), formatBytes(e.Candidates), formatBytes(e.Factor), formatBytes(e.Solve), formatBytes(e.Model),
		formatBytes(selBytes), formatBytes(total-setBytes(s)-e.Total()-selBytes))
	if sel != nil && sel.Grow && sel.GrowLimit > cfg.MaxNodes {
		// Growth fits again with twice the nodes while the held-out score
		// improves; each fit is checked against the limit before it is
		// made (Selection.Afford), so the limit bounds them all.
		big := cfg
		big.MaxNodes = sel.GrowLimit
		fmt.Fprintf(w, "growth      while the held-out score improves, doubling to %d nodes at most: %s, %d bytes at that size (a fit that would pass the limit is not made)\n",
			sel.GrowLimit, formatBytes(fitTotal(big, sel, s.Shape(), 0)), fitTotal(big, sel, s.Shape(), 0))
	}
	if stats > 0 {
		fmt.Fprintf(w, "statistics  %s in all, %d bytes, after the fit (--stats-out: G, and the factor unless --stats-factor=false, beside the images)\n", formatBytes(stats), stats)
	}
	fmt.Fprintf(w, "limit       %s (%s)\n", formatBytes(memory.bytes), memory.from)
	return nil
}

// fitPlan returns cfg adapted to a training set of shape sh as the
// presets adapt: the fast preset's receptive fields scaled to the images
// (unless --field), the block and the candidates per node lowered to fit
// the memory limit (fitBlock; unless --block, --candidates). It refuses
// what still does not fit (checkFit). The notes say what changed. scn
// train calls it on the shape the headers give, before reading the
// images, and on the set as read.
func (h *hyperFlags) fitPlan(cfg scn.Config, sel *scn.Selection, sh dataset.Shape) (scn.Config, string, error) {
	var notes string
	if err := checkLocal(cfg, sh); err != nil {
		return cfg, "", err
	}
	if err := checkAugment(cfg, sh); err != nil {
		return cfg, "", err
	}
	if !h.changed("field") {
		// The fast preset's fields, scaled to the images.
		if c := cfg.ForImages(sh.Rows, sh.Cols); c.FieldMax != cfg.FieldMax {
			notes += fmt.Sprintf("scn: note: receptive fields of %d to %d pixels (the fast preset's 5 to 27 for 28 x 28, scaled to %d x %d); --field sets them\n", c.FieldMin, c.FieldMax, sh.Rows, sh.Cols)
			cfg = c
		}
	}
	b := currentMemCap()
	keep := keepFlags{block: h.changed("block"), candidates: h.changed("candidates")}
	cfg, note := b.fitBlock(cfg, sel, sh, keep)
	notes += note
	err := b.checkFit(cfg, sel, sh, 0)
	return cfg, notes, err
}

// selectionPlan says how model selection will hold out data.
func selectionPlan(sel *scn.Selection) string {
	if sel.Folds > 1 {
		return fmt.Sprintf("%d-fold cross-validation", sel.Folds)
	}
	return fmt.Sprintf("%.0f%% held out", 100*sel.Validation)
}

// totalNodes returns the nodes of every layer a configuration asks for.
func totalNodes(c scn.Config) int {
	n := c.MaxNodes
	for _, l := range c.Layers {
		n += l
	}
	return n
}
