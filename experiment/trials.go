package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"gonum.org/v1/gonum/stat"
)

// metrics are one model's scores on one set.
type metrics struct {
	Acc   float64 // classification accuracy
	RMSE  float64 // regression RMSE (all outputs)
	PPA15 float64 // regression: scn.PPA with theta = 15
	PPA25 float64 // regression: scn.PPA with theta = 25
}

// score evaluates m on s; it also returns the outputs.
func score(m *scn.Model, s *dataset.Set) (metrics, []float64, error) {
	y, err := m.Predict(s.Images())
	if err != nil {
		return metrics{}, nil, err
	}
	var out metrics
	if !s.IsRegression() {
		out.Acc = scn.Accuracy(scn.ArgMax(y, m.M), s.Labels)
		return out, y, nil
	}
	out.RMSE = scn.RMSE(y, s.Targets)
	out.PPA15 = scn.PPA(y, s.Targets, 15)
	out.PPA25 = scn.PPA(y, s.Targets, 25)
	return out, y, nil
}

// trialOutcome is one fitted model's record.
type trialOutcome struct {
	Kind        scn.Kind
	Trial       int
	Checkpoints []int     // L values asked for; a model with fewer nodes is evaluated with all it has
	Train, Test []metrics // per checkpoint
	RobustTest  []metrics // per checkpoint, the same nodes with robust output weights (if asked)
	FitSeconds  float64
	Nodes       int
	Ridge       float64 // the final model's ridge term (chosen, with selection)
	Stop        string
	Bytes       int64 // model file size
	Params      int
	Theta       float64 // generalization indicator on the training images (if asked)
	// TestAbsErr is |output - target| of the final model on each test image
	// (regression, if asked), rounded to float32: what E1's per-digit box
	// plots need, at a third of the size of outputs and targets in float64,
	// so that a full run's records stay small.
	TestAbsErr []float32
	TestDigits []int // the test images' labels, the digits of E1's regression sets (if asked)
}

// trialSpec describes a batch of fits.
type trialSpec struct {
	Kinds       []scn.Kind
	Trials      int
	Seed        uint64
	MaxNodes    int
	Checkpoints []int                     // L values to evaluate with Model.Prefix; MaxNodes is always added
	Config      func(scn.Kind) scn.Config // nil: scn.Paper
	// Select, if set, chooses L and the ridge term on held-out training
	// data (scn.Config.Select); every checkpoint then scores the chosen model.
	Select      *scn.Selection
	Data        func(trial int) (train, test *dataset.Set, err error)
	Indicator   bool // compute Theta_raw on the training images
	KeepOutputs bool // keep the final test outputs
	// Robust also scores every checkpoint's model with robust output
	// weights (scn.Model.Robust on the training set): the same nodes, so
	// that the difference is paired trial by trial.
	Robust bool
	// Cache, if not empty, is the folder of the per-trial records that
	// make a run resumable (resume.go); DataID names the data and protocol
	// in their fingerprints.
	Cache  string
	DataID string
	// Fresh fits every trial again: the records in Cache are not read,
	// only written.
	Fresh bool
	Log   io.Writer
	Label string
	// Jobs is how many trials run at a time (0 or 1: one).
	Jobs int
}

// runTrials fits every kind on every trial's data; out[k][t]. Trials run
// sp.Jobs at a time (each trial's kinds one after the other, on the
// trial's data read once); every fit draws from its own seed, so the
// outcomes do not depend on Jobs, only the fit times do.
func runTrials(ctx context.Context, sp trialSpec) ([][]trialOutcome, error) {
	if sp.Log == nil {
		sp.Log = io.Discard
	}
	sp.Log = &lockedWriter{w: sp.Log}
	out := make([][]trialOutcome, len(sp.Kinds))
	for k := range out {
		out[k] = make([]trialOutcome, sp.Trials)
	}
	eta := newETA(sp.Trials * len(sp.Kinds))
	var reused atomic.Int64
	jobs := min(max(sp.Jobs, 1), max(sp.Trials, 1))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				t := int(next.Add(1) - 1)
				if t >= sp.Trials {
					return
				}
				n, err := sp.runTrial(ctx, t, eta, out)
				reused.Add(int64(n))
				if err != nil {
					errOnce.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if n := reused.Load(); n > 0 {
		fmt.Fprintf(sp.Log, "%s: %d of %d fits read from the records of an earlier run in %s (Options.Fresh, --fresh: fit them again)\n",
			sp.Label, n, sp.Trials*len(sp.Kinds), sp.Cache)
	}
	return out, nil
}

// runTrial fits every kind on trial t's data into out[k][t], reading the
// fits an earlier run recorded; it returns how many it read.
func (sp trialSpec) runTrial(ctx context.Context, t int, eta *eta, out [][]trialOutcome) (reused int, err error) {
	cps := checkpointsUpTo(sp.Checkpoints, sp.MaxNodes)
	var train, test *dataset.Set
	var p scn.Problem
	load := func() error { // the trial's data, read when a fit needs it
		if train != nil {
			return nil
		}
		var err error
		if train, test, err = sp.Data(t); err != nil {
			return err
		}
		p, err = train.Problem()
		return err
	}
	for ki, k := range sp.Kinds {
		if err := ctx.Err(); err != nil {
			return reused, err
		}
		cfg := scn.Paper(k)
		if sp.Config != nil {
			cfg = sp.Config(k)
		}
		cfg.Kind = k
		cfg.MaxNodes = sp.MaxNodes
		cfg.Seed = sp.Seed + uint64(t)
		fp := sp.fingerprint(cfg, t)
		if o, ok, err := sp.loadTrial(t, k, fp); err != nil {
			return reused, err
		} else if ok {
			out[ki][t] = o
			reused++
			eta.skip()
			continue
		}
		if err := load(); err != nil {
			return reused, err
		}
		o, err := sp.fitOne(ctx, cfg, t, p, train, test, cps)
		if err != nil {
			return reused, err
		}
		if err := sp.saveTrial(t, k, fp, o); err != nil {
			return reused, err
		}
		last := len(o.Test) - 1
		left := eta.done()
		if !train.IsRegression() {
			fmt.Fprintf(sp.Log, "%s trial %d/%d %-6s L=%-5d fit %6.2fs train acc %.4f test acc %.4f (%s)%s\n",
				sp.Label, t+1, sp.Trials, k.Title(), o.Nodes, o.FitSeconds, o.Train[last].Acc, o.Test[last].Acc, o.Stop, left)
		} else {
			fmt.Fprintf(sp.Log, "%s trial %d/%d %-6s L=%-5d fit %6.2fs train RMSE %.3f test RMSE %.3f PPA15 %.3f (%s)%s\n",
				sp.Label, t+1, sp.Trials, k.Title(), o.Nodes, o.FitSeconds, o.Train[last].RMSE, o.Test[last].RMSE, o.Test[last].PPA15, o.Stop, left)
		}
		out[ki][t] = o
	}
	return reused, nil
}

// fitOne fits cfg on trial t's training set and scores it at every
// checkpoint (the path's prefixes, or the selected model as chosen).
func (sp trialSpec) fitOne(ctx context.Context, cfg scn.Config, t int, p scn.Problem, train, test *dataset.Set, cps []int) (trialOutcome, error) {
	k := cfg.Kind
	start := time.Now()
	var err error
	var path *scn.Path
	var m *scn.Model
	if sp.Select != nil {
		// Scored by raw arg-max accuracy, fit time and model size, as
		// before calibration became Select's default: no map.
		sel := *sp.Select
		sel.Uncalibrated = true
		m, err = cfg.Select(ctx, p, sel, nil)
	} else if path, err = cfg.FitPath(ctx, p, nil); err == nil {
		m = path.Model()
	}
	if err != nil {
		return trialOutcome{}, fmt.Errorf("%s: %s trial %d: %w", sp.Label, k.Title(), t, err)
	}
	o := trialOutcome{Kind: k, Trial: t, FitSeconds: time.Since(start).Seconds(), Nodes: m.Nodes(), Ridge: m.Config.Ridge, Stop: m.Summary.Stop.String(), Params: m.ParamCount()}
	var cw countingWriter
	if _, err := m.WriteTo(&cw); err != nil {
		return trialOutcome{}, err
	}
	o.Bytes = cw.n
	for _, req := range cps {
		pm := m // a selected model is scored as chosen
		if path != nil {
			if pm, err = path.Prefix(min(req, m.Nodes())); err != nil {
				return trialOutcome{}, err
			}
		}
		tr, _, err := score(pm, train)
		if err != nil {
			return trialOutcome{}, err
		}
		te, y, err := score(pm, test)
		if err != nil {
			return trialOutcome{}, err
		}
		o.Checkpoints = append(o.Checkpoints, req)
		o.Train = append(o.Train, tr)
		o.Test = append(o.Test, te)
		if sp.Robust {
			rm, _, err := pm.Robust(p)
			if err != nil {
				return trialOutcome{}, fmt.Errorf("%s: %s trial %d: robust solve at L = %d: %w", sp.Label, k.Title(), t, req, err)
			}
			rte, _, err := score(rm, test)
			if err != nil {
				return trialOutcome{}, err
			}
			o.RobustTest = append(o.RobustTest, rte)
		}
		if sp.KeepOutputs && req == cps[len(cps)-1] {
			o.TestAbsErr = absErrors(y, test.Targets)
			o.TestDigits = test.Labels
		}
	}
	if sp.Indicator {
		if o.Theta, err = m.Indicator(train.Images()); err != nil {
			return trialOutcome{}, err
		}
	}
	return o, nil
}

// lockedWriter serialises the log lines of concurrent trials.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// eta estimates the time left of a batch of fits from the wall time per
// fit so far in this run (records read from disk take none), so that fits
// running side by side count as they finish.
type eta struct {
	mu              sync.Mutex
	total, finished int
	fitted          int
	start           time.Time
}

func newETA(total int) *eta { return &eta{total: total, start: time.Now()} }

func (e *eta) skip() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.finished++
	if e.fitted == 0 { // the clock starts at the first fit, not at the records
		e.start = time.Now()
	}
}

// done counts a finished fit and returns ", ETA ..." for the log line.
func (e *eta) done() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.finished++
	e.fitted++
	left := e.total - e.finished
	if left <= 0 {
		return ""
	}
	per := time.Since(e.start) / time.Duration(e.fitted)
	return fmt.Sprintf(", %d fits left, ETA %v", left, (per * time.Duration(left)).Round(time.Second))
}

// checkpointsUpTo returns the sorted, distinct checkpoints <= max, with max added.
func checkpointsUpTo(cps []int, maxL int) []int {
	var out []int
	seen := map[int]bool{}
	for _, c := range append(append([]int(nil), cps...), maxL) {
		if c >= 1 && c <= maxL && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// evenCheckpoints returns about n checkpoints evenly spread over (0, maxL].
func evenCheckpoints(maxL, n int) []int {
	var out []int
	for i := 1; i <= n; i++ {
		out = append(out, int(math.Round(float64(maxL)*float64(i)/float64(n))))
	}
	return checkpointsUpTo(out, maxL)
}

// countingWriter counts bytes written.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// Stat is a mean and a sample standard deviation (n-1 denominator; 0 for
// one value).
type Stat struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

// statOf returns the mean and sample standard deviation of v by gonum's
// stat.MeanStdDev (NaN for no value, a standard deviation of 0 for one,
// where gonum's is NaN).
func statOf(v []float64) Stat {
	switch len(v) {
	case 0:
		return Stat{math.NaN(), math.NaN()}
	case 1:
		return Stat{v[0], 0}
	}
	mean, std := stat.MeanStdDev(v, nil)
	return Stat{mean, std}
}

// String formats the stat as "mean ± std".
func (s Stat) String() string { return fmt.Sprintf("%.4f ± %.4f", s.Mean, s.Std) }

// pct formats a share as a percentage "mean ± std".
func (s Stat) pct() string { return fmt.Sprintf("%.2f ± %.2f", 100*s.Mean, 100*s.Std) }

// collect gathers f over the trials of one kind at checkpoint index c
// (-1: the last).
func collect(ts []trialOutcome, c int, f func(trialOutcome, int) float64) []float64 {
	v := make([]float64, len(ts))
	for i, t := range ts {
		ci := c
		if ci < 0 || ci >= len(t.Checkpoints) {
			ci = len(t.Checkpoints) - 1
		}
		v[i] = f(t, ci)
	}
	return v
}

// absErrors returns |y_i - t_i| in float32.
func absErrors(y, t []float64) []float32 {
	e := make([]float32, len(y))
	for i := range y {
		e[i] = float32(math.Abs(y[i] - t[i]))
	}
	return e
}
