package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/scn2d/scn"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// calibFlags are scn train's calibration flags: calibrated probabilities,
// conformal intervals and class weights.
type calibFlags struct {
	calibrate   bool
	coverage    float64
	classWeight string
	flags       *pflag.FlagSet
}

// add registers the flags.
func (cf *calibFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	cf.flags = f
	f.BoolVar(&cf.calibrate, "calibrate", false, "fit a calibration map of the class scores on held-out images, so that predict, serve and eval give probabilities: on by default with model selection (the default preset: the selection's hold-out or folds; --calibrate=false turns it off); without selection (fast, paper presets) on asking, from a --validation share, 10% by default, held out from the nodes' fit (which changes the nodes); local nodes (the presets on photos) on asking, from every image's out-of-fold scores over 5 folds (the nodes unchanged)")
	floatVar(f, &cf.coverage, "coverage", 0, 0, 1, false, "regression: record split-conformal prediction intervals of this coverage, below 1, e.g. 0.9, from held-out residuals (held out as for --calibrate)")
	f.StringVar(&cf.classWeight, "class-weight", "", "weigh each class's images in the output weights' least squares: balanced (N / (classes x N_class)) or a file of lines 'CLASS WEIGHT' (classes it does not name weigh 1)")
}

// off reports whether calibration was turned off (--calibrate=false).
func (cf *calibFlags) off() bool {
	return cf.flags.Changed("calibrate") && !cf.calibrate
}

// any reports whether a calibration flag was given (--calibrate=false
// aside: it only turns off the default map of a selection).
func (cf *calibFlags) any() bool {
	return cf.calibrate || cf.flags.Changed("coverage") || cf.classWeight != ""
}

// check refuses impossible values before any data is read.
func (cf *calibFlags) check() error {
	if cf.flags.Changed("coverage") && !(cf.coverage > 0 && cf.coverage < 1) {
		return usageError{fmt.Errorf("--coverage %v: want a share in (0, 1), e.g. 0.9", cf.coverage)}
	}
	return nil
}

// fit fits cfg on prob with the selection sel (nil: none) and the
// calibration flags: Select with the extras (a classifier's calibration
// map unless --calibrate=false), FitHeldOut when calibration or intervals
// need a hold-out the run has not, FitWeighted for class weights alone,
// else Fit.
func (cf *calibFlags) fit(ctx context.Context, cfg scn.Config, sel *scn.Selection, prob scn.Problem, validation float64, progress func(scn.Step)) (*scn.Model, error) {
	if !cf.any() {
		if sel != nil {
			s := *sel
			s.Uncalibrated = cf.off()
			return cfg.Select(ctx, prob, s, progress)
		}
		return cfg.Fit(ctx, prob, progress)
	}
	if err := cf.check(); err != nil {
		return nil, err
	}
	classify := prob.Classes != nil
	switch {
	case cf.calibrate && !classify:
		return nil, usageError{fmt.Errorf("--calibrate gives class probabilities: the training set has targets (regression); use --coverage for intervals")}
	case cf.flags.Changed("coverage") && classify:
		return nil, usageError{fmt.Errorf("--coverage gives regression intervals: the training set is labelled; use --calibrate for class probabilities")}
	case cf.classWeight != "" && !classify:
		return nil, usageError{fmt.Errorf("--class-weight needs a labelled training set")}
	}
	var weights []float64
	if cf.classWeight != "" {
		var err error
		if weights, err = readClassWeights(cf.classWeight, prob); err != nil {
			return nil, err
		}
	}
	held := cf.calibrate || cf.flags.Changed("coverage")
	if sel != nil {
		s := *sel
		s.Uncalibrated, s.Coverage, s.ClassWeights = cf.off(), cf.coverage, weights
		return cfg.Select(ctx, prob, s, progress)
	}
	if len(cfg.Layers) > 0 {
		return nil, usageError{fmt.Errorf("--calibrate, --coverage and --class-weight re-solve one layer's output weights: drop them or --layers")}
	}
	if !held {
		return cfg.FitWeighted(ctx, prob, weights, progress)
	}
	if !(validation > 0 && validation < 1) {
		validation = 0.1
	}
	s := scn.Selection{Validation: validation, Uncalibrated: !cf.calibrate, Coverage: cf.coverage, ClassWeights: weights}
	return cfg.FitHeldOut(ctx, prob, s, progress)
}

// readClassWeights returns the class weights --class-weight names, one
// per class of prob: balanced, or read from a file of "CLASS WEIGHT"
// lines (blank lines and lines starting with # skipped; a class the file
// does not name weighs 1).
func readClassWeights(spec string, prob scn.Problem) ([]float64, error) {
	if spec == "balanced" {
		return scn.BalancedWeights(prob)
	}
	f, err := os.Open(spec)
	if err != nil {
		return nil, fmt.Errorf("--class-weight: %w (want balanced or a file of 'CLASS WEIGHT' lines)", err)
	}
	defer f.Close()
	w, err := parseClassWeights(bufio.NewReader(f), prob.Classes)
	if err != nil {
		return nil, fmt.Errorf("--class-weight %s: %w", spec, err)
	}
	return w, nil
}

// parseClassWeights parses "CLASS WEIGHT" lines (CLASS may hold spaces:
// the weight is the last field; a comma or tab may separate them) for
// the classes named.
func parseClassWeights(r *bufio.Reader, classes []string) ([]float64, error) {
	w := make([]float64, len(classes))
	for i := range w {
		w[i] = 1
	}
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cut := strings.LastIndexAny(text, " \t,")
		if cut < 0 {
			return nil, fmt.Errorf("line %d: %q is not 'CLASS WEIGHT'", line, text)
		}
		name := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(text[:cut]), ","))
		v, err := strconv.ParseFloat(strings.TrimSpace(text[cut+1:]), 64)
		switch {
		case err != nil || name == "":
			return nil, fmt.Errorf("line %d: %q is not 'CLASS WEIGHT'", line, text)
		case !(v > 0) || math.IsInf(v, 0):
			return nil, fmt.Errorf("line %d: class %q weight %v, want a finite number > 0", line, name, v)
		}
		c := slices.Index(classes, name)
		if c < 0 {
			return nil, fmt.Errorf("line %d: class %q is not one of the training set's %d classes", line, name, len(classes))
		}
		if prev, ok := seen[name]; ok {
			return nil, fmt.Errorf("line %d: class %q given twice (line %d)", line, name, prev)
		}
		seen[name] = line
		w[c] = v
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("no 'CLASS WEIGHT' line")
	}
	return w, nil
}

// calibLine says in one line what calibration the model records, or ""
// for none.
func calibLine(m *scn.Model) string {
	return calibText(m.Classes, m.Calibration, m.Interval, m.ClassWeights)
}

// addCalibInfo adds the calibration fields to scn inspect's JSON.
func addCalibInfo(info map[string]any, m scn.Info) {
	if m.Classes != nil {
		info["calibrated"] = m.Calibration != nil
	}
	if m.Calibration != nil {
		info["calibration"] = m.Calibration
	}
	if m.Interval != nil {
		info["interval"] = m.Interval
	}
	if m.ClassWeights != nil {
		info["class_weights"] = m.ClassWeights
	}
}

// printCalibInfo writes scn inspect's calibration lines.
func printCalibInfo(w io.Writer, m scn.Info) {
	if m.Classes != nil && m.Calibration == nil {
		fmt.Fprintf(w, "calibration\tnone: the scores are not probabilities (scn train fits a map with model selection, or with --calibrate)\n")
	}
	for _, line := range strings.Split(calibText(m.Classes, m.Calibration, m.Interval, m.ClassWeights), "\n") {
		if name, rest, ok := strings.Cut(line, ": "); ok {
			fmt.Fprintf(w, "%s\t%s\n", name, rest)
		}
	}
}

// calibText is calibLine of the model's parts.
func calibText(classes []string, cal *scn.Calibration, iv *scn.Interval, w []float64) string {
	var parts []string
	if c := cal; c != nil {
		parts = append(parts, fmt.Sprintf("calibration: %s (T = %.4g) on %d held-out images, log-loss %.4f (temperature %.4f, logistic %.4f, raw softmax %.4f)",
			c.Method, c.Temperature, c.Held, min(c.TemperatureLogLoss, c.LogisticLogLoss), c.TemperatureLogLoss, c.LogisticLogLoss, c.RawLogLoss))
	}
	if iv != nil {
		r := make([]string, len(iv.Radius))
		for i, v := range iv.Radius {
			r[i] = strconv.FormatFloat(v, 'g', 4, 64)
		}
		parts = append(parts, fmt.Sprintf("conformal intervals: %.0f%% coverage, prediction +- %s (from %d held-out residuals)", 100*iv.Coverage, strings.Join(r, ", "), iv.Held))
	}
	if w != nil {
		r := make([]string, len(w))
		for i, v := range w {
			r[i] = classes[i] + " " + strconv.FormatFloat(v, 'g', 4, 64)
		}
		parts = append(parts, "class weights: "+strings.Join(r, ", "))
	}
	return strings.Join(parts, "\n")
}

// addReject registers --reject-below.
func addReject(cmd *cobra.Command, p *float64) {
	floatVar(cmd.Flags(), p, "reject-below", 0, 0, 1, true, "answer \"unsure\" when the top calibrated class probability is below this (needs a calibrated model: scn train with model selection, or --calibrate)")
}

// checkReject refuses a --reject-below outside [0, 1], or given for a
// model without calibrated probabilities.
func checkReject(cmd *cobra.Command, m *scn.Model, reject float64) error {
	if !cmd.Flags().Changed("reject-below") {
		return nil
	}
	if !(reject >= 0 && reject <= 1) {
		return usageError{fmt.Errorf("--reject-below %v: want a probability in [0, 1]", reject)}
	}
	if m.Calibration == nil {
		return usageError{fmt.Errorf("--reject-below needs calibrated probabilities, and this model has none (scn train calibrates with model selection, the default preset's, or with --calibrate)")}
	}
	return nil
}

// unsure is what predict and serve answer for an image whose top
// calibrated probability is below --reject-below.
const unsure = "unsure"

// describeCalib renders one prediction: for a calibrated classifier the
// class (or "unsure" when its probability is below reject) and the top
// probabilities; for a regression model with intervals each output and
// its interval; otherwise as describe.
func describeCalib(m *scn.Model, y []float64, top int, reject float64) string {
	switch {
	case m.Calibration != nil:
		p := m.Calibration.Probabilities(y)
		idx := scn.TopK(p, len(p))
		label := m.Classes[idx[0]]
		if p[idx[0]] < reject {
			label = unsure
		}
		parts := []string{label}
		for _, i := range idx[:min(top, len(idx))] {
			parts = append(parts, fmt.Sprintf("%s=%.4f", m.Classes[i], p[i]))
		}
		return strings.Join(parts, "\t")
	case m.Interval != nil:
		lo, hi := m.Interval.Bounds(y)
		parts := make([]string, len(y))
		for i, v := range y {
			parts[i] = fmt.Sprintf("%.6g [%.6g, %.6g]", v, lo[i], hi[i])
		}
		return strings.Join(parts, " ")
	}
	return describe(m, y, top)
}

// calibUpdateNote says, after scn update, that the calibration map or the
// intervals the model keeps were fitted for its earlier output weights.
func calibUpdateNote(w io.Writer, m *scn.Model) {
	if m.Calibration != nil || m.Interval != nil {
		fmt.Fprintln(w, "scn: note: the calibration map / conformal intervals are kept as fitted on held-out images for the earlier output weights; train again with --calibrate / --coverage to refit them")
	}
	if m.ClassWeights != nil {
		fmt.Fprintln(w, "scn: note: the new images were weighted by the model's class weights (a class they do not name weighs 1)")
	}
}
