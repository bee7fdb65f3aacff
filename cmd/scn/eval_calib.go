package main

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/report"
)

// calibEval is what eval reports about probabilities, per-class scores,
// abstention and intervals.
type calibEval struct {
	Precision        map[string]float64 `json:"precision,omitempty"`
	Recall           map[string]float64 `json:"recall,omitempty"`
	BalancedAccuracy *float64           `json:"balanced_accuracy,omitempty"`
	MacroF1          *float64           `json:"macro_f1,omitempty"`
	// Calibrated scores the model's calibrated probabilities (nil for an
	// uncalibrated model); RawSoftmax the plain softmax of its raw scores.
	Calibrated *probEval `json:"calibrated,omitempty"`
	RawSoftmax *probEval `json:"raw_softmax,omitempty"`
	// ECENoise is the ECE the calibrated probabilities would show with
	// labels drawn from them (a calibrated model on these images): the
	// estimator's own noise (nil for an uncalibrated model).
	ECENoise *scn.ECENoise `json:"ece_noise,omitempty"`
	// RejectCurve is the accuracy/coverage curve of the calibrated
	// probabilities (of the raw softmax for an uncalibrated model).
	RejectCurve []scn.RejectPoint `json:"reject_curve,omitempty"`
	// IntervalCoverage and IntervalWidth score a regression model's
	// conformal intervals (nominal coverage IntervalNominal).
	IntervalNominal  *float64 `json:"interval_nominal,omitempty"`
	IntervalCoverage *float64 `json:"interval_coverage,omitempty"`
	IntervalWidth    *float64 `json:"interval_width,omitempty"`
}

// probEval is the scores of one set of probabilities.
type probEval struct {
	LogLoss float64              `json:"log_loss"`
	Brier   float64              `json:"brier"`
	ECE     float64              `json:"ece"`
	Bins    []scn.ReliabilityBin `json:"bins"`
}

// eceBins is the number of equal-width bins of the ECE and the
// reliability diagram.
const eceBins = 15

// eceNoiseDraws is the number of label draws of the ECE's noise.
const eceNoiseDraws = 400

// rejectThresholds are the thresholds of eval's accuracy/coverage curve.
var rejectThresholds = []float64{0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999}

func toProbEval(s scn.ProbabilityScores) *probEval {
	return &probEval{LogLoss: s.LogLoss, Brier: s.Brier, ECE: s.ECE, Bins: s.Bins}
}

// addClassifier fills the classifier's extra scores from its outputs y.
func (ev *evaluation) addClassifier(m *scn.Model, y []float64, pred, labels []int) {
	cs := scn.ScoreClasses(pred, labels, m.M)
	ev.Precision, ev.Recall = map[string]float64{}, map[string]float64{}
	for c, name := range m.Classes {
		if cs.Support[c] > 0 {
			ev.Recall[name] = cs.Recall[c]
			ev.Precision[name] = cs.Precision[c]
		}
	}
	ev.BalancedAccuracy, ev.MacroF1 = &cs.BalancedAccuracy, &cs.MacroF1
	raw := scn.Softmax(y, m.M, 1)
	ev.RawSoftmax = toProbEval(scn.ScoreProbabilities(raw, m.M, labels, eceBins))
	probs := raw
	if m.Calibration != nil {
		probs = m.Calibration.Probabilities(y)
		ev.Calibrated = toProbEval(scn.ScoreProbabilities(probs, m.M, labels, eceBins))
		noise := scn.CalibratedECE(probs, m.M, eceBins, eceNoiseDraws, 1)
		ev.ECENoise = &noise
	}
	ev.RejectCurve = scn.RejectCurve(probs, m.M, labels, rejectThresholds)
}

// addRegression fills the interval scores of a regression model.
func (ev *evaluation) addRegression(m *scn.Model, y, t []float64) {
	if m.Interval == nil {
		return
	}
	lo, hi := m.Interval.Bounds(y)
	c, w := scn.ScoreIntervals(lo, hi, t)
	nominal := m.Interval.Coverage
	ev.IntervalNominal, ev.IntervalCoverage, ev.IntervalWidth = &nominal, &c, &w
}

// printCalib writes the extra scores as text.
func (ev *evaluation) printCalib(w io.Writer) error {
	if ev.IntervalCoverage != nil {
		fmt.Fprintf(w, "conformal intervals: %.2f%% of the targets within the %.0f%% intervals, mean width %.5g\n",
			100**ev.IntervalCoverage, 100**ev.IntervalNominal, *ev.IntervalWidth)
	}
	if ev.BalancedAccuracy == nil {
		return nil
	}
	fmt.Fprintf(w, "\nbalanced accuracy %.2f%%, macro-F1 %.4f\n\nprecision and recall per class:\n", 100**ev.BalancedAccuracy, *ev.MacroF1)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "class\tprecision\trecall\t\n")
	for _, c := range ev.Classes {
		if r, ok := ev.Recall[c]; ok {
			fmt.Fprintf(tw, "%s\t%.2f%%\t%.2f%%\t\n", c, 100*ev.Precision[c], 100*r)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if ev.Calibrated != nil {
		fmt.Fprintf(w, "calibrated probabilities: log-loss %.4f, Brier %.4f, ECE %.2f%%\n", ev.Calibrated.LogLoss, ev.Calibrated.Brier, 100*ev.Calibrated.ECE)
		if ev.ECENoise != nil {
			fmt.Fprintf(w, "ECE noise: a calibrated model with these probabilities would show ECE %.2f%% on average on these %d images (90th percentile %.2f%%, 95th %.2f%%; labels drawn from the probabilities, %d draws)\n",
				100*ev.ECENoise.Mean, ev.Images, 100*ev.ECENoise.P90, 100*ev.ECENoise.P95, ev.ECENoise.Draws)
		}
	} else {
		fmt.Fprintln(w, "probabilities: uncalibrated model (scn train calibrates with model selection, or with --calibrate); the plain softmax of the raw scores:")
	}
	fmt.Fprintf(w, "plain softmax of the raw scores: log-loss %.4f, Brier %.4f, ECE %.2f%%\n", ev.RawSoftmax.LogLoss, ev.RawSoftmax.Brier, 100*ev.RawSoftmax.ECE)
	fmt.Fprintf(w, "\nreliability (%d bins of the top probability):\n", eceBins)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "bin\timages\tconfidence\taccuracy\t\n")
	bins := ev.RawSoftmax.Bins
	if ev.Calibrated != nil {
		bins = ev.Calibrated.Bins
	}
	for _, b := range bins {
		if b.Count > 0 {
			fmt.Fprintf(tw, "%.3f-%.3f\t%d\t%.4f\t%.4f\t\n", b.Lo, b.Hi, b.Count, b.Confidence, b.Accuracy)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\naccuracy / coverage (answering only at or above a top probability):\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "threshold\tcoverage\taccuracy\t\n")
	for _, p := range ev.RejectCurve {
		fmt.Fprintf(tw, "%g\t%.2f%%\t%.2f%%\t\n", p.Threshold, 100*p.Coverage, 100*p.Accuracy)
	}
	return tw.Flush()
}

// writeReport writes the evaluation as an HTML page: tables, and for a
// classifier the reliability diagram and the accuracy/coverage curve.
func (ev *evaluation) writeReport(path, model string, images int) error {
	start := time.Now()
	page := report.Page{
		Title:      "scn eval " + model,
		Command:    "scn eval " + model,
		Provenance: []string{fmt.Sprintf("%s on %d images", ev.Model, images)},
		Versions:   report.CurrentVersions(""),
		Hardware:   report.CurrentHardware(),
	}
	pct := func(v float64) string { return strconv.FormatFloat(100*v, 'f', 2, 64) + "%" }
	if ev.RMSE != nil {
		rows := [][]string{{"RMSE", strconv.FormatFloat(*ev.RMSE, 'g', 5, 64)}}
		for _, k := range sortedKeys(ev.PPA) {
			rows = append(rows, []string{"PPA(" + k + ")", pct(ev.PPA[k])})
		}
		if ev.IntervalCoverage != nil {
			rows = append(rows, []string{"interval coverage (nominal " + pct(*ev.IntervalNominal) + ")", pct(*ev.IntervalCoverage)},
				[]string{"interval mean width", strconv.FormatFloat(*ev.IntervalWidth, 'g', 5, 64)})
		}
		page.Tables = append(page.Tables, report.Table{Name: "scores", Title: "Scores", Header: []string{"measure", "value"}, Rows: rows})
	} else {
		rows := [][]string{{"accuracy", pct(*ev.Accuracy)}, {"balanced accuracy", pct(*ev.BalancedAccuracy)},
			{"macro-F1", strconv.FormatFloat(*ev.MacroF1, 'f', 4, 64)}}
		page.Tables = append(page.Tables, report.Table{Name: "scores", Title: "Scores", Header: []string{"measure", "value"}, Rows: rows})
		var pr [][]string
		for _, c := range ev.Classes {
			if r, ok := ev.Recall[c]; ok {
				pr = append(pr, []string{c, pct(ev.Precision[c]), pct(r)})
			}
		}
		page.Tables = append(page.Tables, report.Table{Name: "classes", Title: "Precision and recall per class", Header: []string{"class", "precision", "recall"}, Rows: pr})
		var prob [][]string
		series := []report.Series{{Name: "perfect calibration", X: []float64{0, 1}, Mean: []float64{0, 1}, Dashed: true}}
		for _, p := range []struct {
			name string
			e    *probEval
		}{{"calibrated", ev.Calibrated}, {"plain softmax of raw scores", ev.RawSoftmax}} {
			if p.e == nil {
				continue
			}
			prob = append(prob, []string{p.name, strconv.FormatFloat(p.e.LogLoss, 'f', 4, 64), strconv.FormatFloat(p.e.Brier, 'f', 4, 64), pct(p.e.ECE)})
			s := report.Series{Name: p.name}
			for _, b := range p.e.Bins {
				if b.Count > 0 {
					s.X, s.Mean = append(s.X, b.Confidence), append(s.Mean, b.Accuracy)
				}
			}
			series = append(series, s)
		}
		if ev.ECENoise != nil {
			prob = append(prob, []string{"ECE noise: labels drawn from the calibrated probabilities (mean / 90th percentile)", "", "", pct(ev.ECENoise.Mean) + " / " + pct(ev.ECENoise.P90)})
		}
		page.Tables = append(page.Tables, report.Table{Name: "probabilities", Title: "Probabilities", Header: []string{"map", "log-loss", "Brier", "ECE"}, Rows: prob})
		svg, err := report.BandPlot("Reliability diagram", "mean top probability (bin)", "accuracy (bin)", series)
		if err != nil {
			return err
		}
		page.Figures = append(page.Figures, report.Figure{Name: "reliability", Title: "Reliability diagram", SVG: svg,
			Caption: fmt.Sprintf("%d equal-width bins of the top class probability; points on the diagonal are calibrated", eceBins)})
		curve := report.Series{Name: "answered images"}
		var rrows [][]string
		for _, p := range ev.RejectCurve {
			curve.X, curve.Mean = append(curve.X, p.Coverage), append(curve.Mean, p.Accuracy)
			rrows = append(rrows, []string{strconv.FormatFloat(p.Threshold, 'g', -1, 64), pct(p.Coverage), pct(p.Accuracy)})
		}
		page.Tables = append(page.Tables, report.Table{Name: "reject", Title: "Accuracy / coverage (--reject-below)", Header: []string{"threshold", "coverage", "accuracy"}, Rows: rrows})
		svg, err = report.BandPlot("Accuracy / coverage", "coverage (share answered)", "accuracy of the answered", []report.Series{curve})
		if err != nil {
			return err
		}
		page.Figures = append(page.Figures, report.Figure{Name: "reject", Title: "Accuracy / coverage", SVG: svg})
	}
	page.Elapsed = time.Since(start)
	return report.Write(path, page)
}
