package experiment

import (
	"fmt"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/report"
)

// measure picks one number of a trial at checkpoint index ci.
type measure struct {
	name  string // e.g. "test accuracy (%)"
	key   string // e.g. "test_acc"
	scale float64
	f     func(t trialOutcome, ci int) float64
}

var (
	mTrainAcc   = measure{"train accuracy (%)", "train_acc", 100, func(t trialOutcome, c int) float64 { return t.Train[c].Acc }}
	mTestAcc    = measure{"test accuracy (%)", "test_acc", 100, func(t trialOutcome, c int) float64 { return t.Test[c].Acc }}
	mTrainRMSE  = measure{"train RMSE (degrees)", "train_rmse", 1, func(t trialOutcome, c int) float64 { return t.Train[c].RMSE }}
	mTestRMSE   = measure{"test RMSE (degrees)", "test_rmse", 1, func(t trialOutcome, c int) float64 { return t.Test[c].RMSE }}
	mTrainPPA15 = measure{"train PPA15 (%)", "train_ppa15", 100, func(t trialOutcome, c int) float64 { return t.Train[c].PPA15 }}
	mTestPPA15  = measure{"test PPA15 (%)", "test_ppa15", 100, func(t trialOutcome, c int) float64 { return t.Test[c].PPA15 }}
	mTrainPPA25 = measure{"train PPA25 (%)", "train_ppa25", 100, func(t trialOutcome, c int) float64 { return t.Train[c].PPA25 }}
	mTestPPA25  = measure{"test PPA25 (%)", "test_ppa25", 100, func(t trialOutcome, c int) float64 { return t.Test[c].PPA25 }}
)

func scaled(v []float64, s float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x * s
	}
	return out
}

func fmtStat(st Stat, digits int) string {
	return fmt.Sprintf("%.*f ± %.*f", digits, st.Mean, digits, st.Std)
}

// curveTable tabulates mean ± std of m per checkpoint (rows) and kind
// (columns).
func curveTable(name, title string, kinds []scn.Kind, outs [][]trialOutcome, m measure) Table {
	t := Table{Name: name, Title: title, Header: []string{"L"}}
	for _, k := range kinds {
		t.Header = append(t.Header, k.Title())
	}
	cps := outs[0][0].Checkpoints
	for ci, l := range cps {
		row := []string{fmt.Sprint(l)}
		for ki := range kinds {
			row = append(row, fmtStat(statOf(scaled(collect(outs[ki], ci, m.f), m.scale)), 2))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Caption = fmt.Sprintf("%s, mean ± std over %d trials; the models at each L are the first L nodes of the final fit (Model.Prefix) with output weights re-solved.", m.name, len(outs[0]))
	return t
}

// curvePlot draws mean ± std bands of m versus L for every kind.
func curvePlot(title string, kinds []scn.Kind, outs [][]trialOutcome, m measure) ([]byte, error) {
	var series []report.Series
	cps := outs[0][0].Checkpoints
	x := make([]float64, len(cps))
	for i, l := range cps {
		x[i] = float64(l)
	}
	for ki, k := range kinds {
		s := report.Series{Name: k.Title(), X: x}
		for ci := range cps {
			st := statOf(scaled(collect(outs[ki], ci, m.f), m.scale))
			s.Mean = append(s.Mean, st.Mean)
			s.Std = append(s.Std, st.Std)
		}
		series = append(series, s)
	}
	return report.BandPlot(title, "hidden nodes L", m.name, series)
}

// addCurves adds a table and a figure per measure.
func addCurves(r *Result, prefix, what string, kinds []scn.Kind, outs [][]trialOutcome, ms ...measure) error {
	for _, m := range ms {
		name := prefix + "_" + m.key
		r.Tables = append(r.Tables, curveTable(name, fmt.Sprintf("%s: %s versus L", what, m.name), kinds, outs, m))
		svg, err := curvePlot(fmt.Sprintf("%s: %s", what, m.name), kinds, outs, m)
		if err := r.addFigure(name, fmt.Sprintf("%s: %s versus L (mean ± std)", what, m.name), "", svg, err); err != nil {
			return err
		}
		for ki, k := range kinds {
			st := statOf(collect(outs[ki], -1, m.f))
			r.value(fmt.Sprintf("%s/%s/%s/mean", prefix, k, m.key), st.Mean)
			r.value(fmt.Sprintf("%s/%s/%s/std", prefix, k, m.key), st.Std)
		}
	}
	return nil
}

// fitNotes reports models that stopped before L_max.
func fitNotes(r *Result, what string, kinds []scn.Kind, outs [][]trialOutcome, maxL int) {
	for ki, k := range kinds {
		short, minN, reason := 0, maxL, ""
		var secs []float64
		for _, t := range outs[ki] {
			secs = append(secs, t.FitSeconds)
			if t.Nodes < maxL {
				short++
				minN = min(minN, t.Nodes)
				reason = t.Stop
			}
		}
		if short > 0 {
			r.note("%s: %s stopped before L = %d in %d of %d trials (fewest nodes %d; %s); checkpoints beyond use all the nodes it built.", what, k.Title(), maxL, short, len(outs[ki]), minN, reason)
		}
		st := statOf(secs)
		r.value(fmt.Sprintf("%s/%s/fit_seconds/mean", what, k), st.Mean)
	}
}
