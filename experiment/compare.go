package experiment

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/scn2d/scn"
)

// CompareOptions set up Compare: the learners on one train/test pair.
type CompareOptions struct {
	Train, Test *DataSet
	// Kinds are the learners to compare; nil means scn.Kinds (all four).
	Kinds []scn.Kind
	// Trials is the number of fits per learner (seeds Seed..Seed+Trials-1);
	// 0 means 1.
	Trials int
	// Config returns the configuration of a learner; nil means scn.Paper.
	// Its Seed is replaced by the trial's seed.
	Config func(scn.Kind) scn.Config
	// Select, if set, makes each fit choose L and the ridge term on
	// held-out training data; nil fits L_max nodes as configured.
	Select *scn.Selection
	Seed   uint64
	// Log receives one line per fit; nil means io.Discard.
	Log io.Writer
}

// CompareRow is one learner's scores over the trials (mean and sample
// standard deviation). Classification fills TrainAcc and TestAcc;
// regression fills the RMSE and PPA fields (PPA15/PPA25: share of
// predictions whose first output is within 15 / 25 target units).
type CompareRow struct {
	Kind       scn.Kind `json:"-"`
	Model      string   `json:"model"`
	Trials     int      `json:"trials"`
	Nodes      Stat     `json:"nodes"`
	TrainAcc   Stat     `json:"train_acc"`
	TestAcc    Stat     `json:"test_acc"`
	TrainRMSE  Stat     `json:"train_rmse"`
	TestRMSE   Stat     `json:"test_rmse"`
	TrainPPA15 Stat     `json:"train_ppa15"`
	TestPPA15  Stat     `json:"test_ppa15"`
	TrainPPA25 Stat     `json:"train_ppa25"`
	TestPPA25  Stat     `json:"test_ppa25"`
	FitSeconds Stat     `json:"fit_seconds"`
	// Bytes is the size of the last trial's model in the binary format
	// (measured by writing it to a counting writer).
	Bytes int64 `json:"bytes"`
	// Params is the last trial's parameter count L*(params per node + 1 + m).
	Params int `json:"params"`
}

// CompareResult holds one row per learner, in the order asked.
type CompareResult struct {
	Classification bool         `json:"classification"`
	Rows           []CompareRow `json:"rows"`
}

// Compare fits each learner Trials times on o.Train (trial t with seed
// o.Seed+t) and scores it on o.Train and o.Test.
func Compare(ctx context.Context, o CompareOptions) (*CompareResult, error) {
	if o.Train == nil || o.Test == nil {
		return nil, fmt.Errorf("experiment: Compare needs a training and a test set")
	}
	train, test := fromDataSet(o.Train), fromDataSet(o.Test)
	if train.classification() != test.classification() {
		return nil, fmt.Errorf("experiment: training set and test set are not the same kind of task")
	}
	kinds := o.Kinds
	if kinds == nil {
		kinds = scn.Kinds
	}
	trials := max(o.Trials, 1)
	maxL := 0
	cfg := func(k scn.Kind) scn.Config {
		if o.Config != nil {
			return o.Config(k)
		}
		return scn.Paper(k)
	}
	// runTrials takes one L_max; use each learner's own by running kinds one by one.
	res := &CompareResult{Classification: train.classification()}
	for _, k := range kinds {
		c := cfg(k)
		maxL = c.MaxNodes
		outs, err := runTrials(ctx, trialSpec{
			Kinds: []scn.Kind{k}, Trials: trials, Seed: o.Seed, MaxNodes: maxL,
			Config: cfg, Select: o.Select, Log: o.Log, Label: "compare",
			Data: func(int) (*set, *set, error) { return train, test, nil },
		})
		if err != nil {
			return nil, err
		}
		ts := outs[0]
		row := CompareRow{Kind: k, Model: k.Title(), Trials: trials}
		var nodes, secs []float64
		for _, t := range ts {
			nodes = append(nodes, float64(t.Nodes))
			secs = append(secs, t.FitSeconds)
		}
		row.Nodes, row.FitSeconds = statOf(nodes), statOf(secs)
		last := ts[len(ts)-1]
		row.Bytes, row.Params = last.Bytes, last.Params
		st := func(m measure) Stat { return statOf(collect(ts, -1, m.f)) }
		if res.Classification {
			row.TrainAcc, row.TestAcc = st(mTrainAcc), st(mTestAcc)
		} else {
			row.TrainRMSE, row.TestRMSE = st(mTrainRMSE), st(mTestRMSE)
			row.TrainPPA15, row.TestPPA15 = st(mTrainPPA15), st(mTestPPA15)
			row.TrainPPA25, row.TestPPA25 = st(mTrainPPA25), st(mTestPPA25)
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// Table returns the comparison as a report table.
func (r *CompareResult) Table() Table {
	t := Table{Name: "compare", Title: "Comparison (mean ± std over trials)"}
	if r.Classification {
		t.Header = []string{"model", "trials", "nodes", "train acc (%)", "test acc (%)", "fit time (s)", "bytes", "params"}
	} else {
		t.Header = []string{"model", "trials", "nodes", "train RMSE", "test RMSE", "train PPA15 (%)", "test PPA15 (%)", "train PPA25 (%)", "test PPA25 (%)", "fit time (s)", "bytes", "params"}
	}
	for _, row := range r.Rows {
		cells := []string{row.Model, fmt.Sprint(row.Trials), fmt.Sprintf("%.0f", row.Nodes.Mean)}
		if r.Classification {
			cells = append(cells, row.TrainAcc.pct(), row.TestAcc.pct())
		} else {
			cells = append(cells, fmtStat(row.TrainRMSE, 3), fmtStat(row.TestRMSE, 3),
				row.TrainPPA15.pct(), row.TestPPA15.pct(), row.TrainPPA25.pct(), row.TestPPA25.pct())
		}
		cells = append(cells, fmtStat(row.FitSeconds, 2), fmt.Sprint(row.Bytes), fmt.Sprint(row.Params))
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// WriteTable writes the comparison as an aligned text table.
func (r *CompareResult) WriteTable(w io.Writer) error {
	t := r.Table()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(t.Header, "\t")+"\t")
	for _, row := range t.Rows {
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	return tw.Flush()
}
