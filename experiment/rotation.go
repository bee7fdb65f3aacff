package experiment

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/report"
)

// E1 protocol sizes.
var rotSizes = protocolSizes{
	paper: sizes{train: 5000, test: 5000, maxL: 1800, trials: 50},
	quick: sizes{train: 1000, test: 1000, maxL: 200, trials: 2},
}

func runRotation(ctx context.Context, o Options, r *Result) error {
	s := o.sizes(r, rotSizes)
	ntr, nte, maxL, trials := s.train, s.test, s.maxL, s.trials
	data, err := rotationData(o, r, ntr, nte)
	if err != nil {
		return err
	}
	r.protocol("L = %d, %d trials (trial t: seed %d+t for %s)", maxL, trials, o.Seed, data.seeded)
	r.protocol("paper preset: T_max = 5, Upsilon = %v, R = {1-10^-j, j=2..7}; RVFL and 2DRVFL lambda = 1", scn.PaperScales())
	r.protocol("PPA(theta) = share of predictions with |error| < theta degrees, theta = 15 and 25")
	kinds := scn.Kinds()
	outs, err := runTrials(ctx, trialSpec{
		Kinds: kinds, Trials: trials, Seed: o.Seed, MaxNodes: maxL,
		Checkpoints: evenCheckpoints(maxL, 10), KeepOutputs: true, Log: o.Log, Label: data.label,
		Cache: o.trialCache(), Fresh: o.Fresh, DataID: o.dataID() + data.id, Jobs: o.jobs(),
		Data: data.sets,
	})
	if err != nil {
		return err
	}
	// Main table.
	tab := Table{Name: "rotation", Title: fmt.Sprintf("Rotation angle regression at L = %d (mean ± std over %d trials), %s", maxL, trials, data.what),
		Header: []string{"model", "train PPA15 (%)", "test PPA15 (%)", "train PPA25 (%)", "test PPA25 (%)", "train RMSE (deg)", "test RMSE (deg)", "nodes", "fit time (s)"}}
	for ki, k := range kinds {
		row := []string{k.Title()}
		for _, m := range []measure{mTrainPPA15, mTestPPA15, mTrainPPA25, mTestPPA25, mTrainRMSE, mTestRMSE} {
			st := statOf(scaled(collect(outs[ki], -1, m.f), m.scale))
			row = append(row, fmtStat(st, 2))
		}
		var nodes, secs []float64
		for _, t := range outs[ki] {
			nodes = append(nodes, float64(t.Nodes))
			secs = append(secs, t.FitSeconds)
		}
		row = append(row, fmt.Sprintf("%.0f", statOf(nodes).Mean), fmtStat(statOf(secs), 2))
		tab.Rows = append(tab.Rows, row)
	}
	r.Tables = append(r.Tables, tab)
	if err := addCurves(r, "e1", "E1", kinds, outs, mTestRMSE, mTestPPA15, mTestPPA25, mTrainRMSE); err != nil {
		return err
	}
	fitNotes(r, "E1", kinds, outs, maxL)
	if !data.digits {
		r.note("No per-digit box plots: the MAT-files hold the images and their angles, not which digit each image shows.")
		return nil
	}
	// Per-digit box plots of the test absolute errors, 2DSCN vs 2DRVFL,
	// pooled over trials (the test images are re-drawn each trial).
	var box []report.BoxSeries
	btab := Table{Name: "rotation_per_digit", Title: "Median test |error| (degrees) per digit, pooled over trials", Header: []string{"digit"}}
	for ki, k := range kinds {
		if k != scn.SCN2D && k != scn.RVFL2D {
			continue
		}
		btab.Header = append(btab.Header, k.Title())
		groups := make([][]float64, 10)
		for _, tr := range outs[ki] {
			for i, e := range tr.TestAbsErr {
				groups[tr.TestDigits[i]] = append(groups[tr.TestDigits[i]], float64(e))
			}
		}
		box = append(box, report.BoxSeries{Name: k.Title(), Groups: groups})
	}
	for dgt := 0; dgt < 10; dgt++ {
		row := []string{fmt.Sprint(dgt)}
		for _, b := range box {
			row = append(row, fmt.Sprintf("%.2f", median(b.Groups[dgt])))
		}
		btab.Rows = append(btab.Rows, row)
	}
	r.Tables = append(r.Tables, btab)
	svg, err := report.BoxPlot("E1: test absolute error per digit", "digit", "|predicted - true angle| (degrees)", digitClasses, box)
	if err := r.addFigure("e1_box_per_digit", "Per-digit test absolute errors: 2DSCN vs 2DRVFL", "Boxes: quartiles and median; whiskers 1.5 IQR; points beyond are outliers. Pooled over trials.", svg, err); err != nil {
		return err
	}
	return nil
}

// median returns the middle value of v, the mean of the two middle ones
// for an even count: the median gonum/plot draws in the box plot beside the
// table. gonum's stat.Quantile(0.5, ...) is not it for an even count: both
// of its kinds (Empirical, LinInterp) return the lower middle value (2 for
// {1, 2, 3, 4}, where this gives 2.5; TestMedianIsTheBoxPlots).
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
