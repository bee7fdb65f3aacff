package budgetflow

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scn2d/scn/internal/budget"
	"github.com/scn2d/scn/internal/kind"
	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/localplan"
)

// conf is a fake configuration: its settings as the workflows read them.
type conf struct{ in Info }

// model is a fake model: what the workflows wrote into it.
type model struct {
	nodes, scored int
	rec           *budget.Record
	spent         bool
	ridges        []float64 // the ridge choice's grid
}

// job is a fake budget's set on a fake clock: a global fit costs perNode
// of the clock per node, a local fit perFilter per filter.
type job struct {
	shape              Shape
	now                time.Time
	perNode, perFilter time.Duration
	cfg                conf
	global             Global
	probes             int
	bytesPerNode       int64
	noHoldout          bool
	fitted             []int // the nodes of every global fit
}

func (j *job) clock() time.Time { return j.now }

func (j *job) Info(c conf) Info { return c.in }

func (j *job) Filters(c conf, f int, clone bool) conf {
	if clone {
		c.in.Local = c.in.Local.Clone()
	}
	c.in.Local.Filters = f
	c.in.MaxNodes = c.in.Local.Outputs()
	return c
}

func (j *job) Bytes(c conf, s Shape) int64 { return j.bytesPerNode * int64(c.in.MaxNodes) }

func (j *job) Shape() Shape   { return j.shape }
func (j *job) Classify() bool { return true }

func (j *job) Holdout(idx []int, share float64, seed uint64) ([]int, []int, error) {
	if j.noHoldout {
		return nil, nil, errors.New("classes too small")
	}
	n := j.shape.N
	if idx != nil {
		n = len(idx)
	}
	h := max(1, int(share*float64(n)))
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return all[h:], all[:h], nil
}

func (j *job) Sized(c conf, nodes, block int) conf {
	c.in.MaxNodes, c.in.BlockSize = nodes, block
	return c
}

func (j *job) Global() (conf, Global) { return j.cfg, j.global }

func (j *job) Probe(ctx context.Context) (budget.Rates, error) {
	j.probes++
	return budget.Rates{Score: 1e-6, Gram: 1e-12, Chol: 1e-15, Block: 1e-3, Finish: 1e-15}, nil
}

func (j *job) FitGlobal(ctx context.Context, pl budget.Plan, checkpoint func(int, func() (float64, float64, bool)) bool, stage func(int) int) (*model, int, string, error) {
	l := 0
	for l < pl.MaxNodes {
		l += pl.BlockSize
		j.now = j.now.Add(time.Duration(pl.BlockSize) * j.perNode)
		if checkpoint(l, func() (float64, float64, bool) { return 0.5, 0.25, true }) {
			break
		}
	}
	j.fitted = append(j.fitted, l)
	return &model{nodes: l}, l, "tolerance", nil
}

func (j *job) Photo() (conf, bool) {
	g := localnet.Default()
	return conf{Info{Kind: kind.Kind{}, Preset: "default", Ridge: 100, BlockSize: 64, Local: g, MaxNodes: g.Outputs()}}, true
}

func (j *job) ChoosePhotos(ctx context.Context, label string) (PhotoChoice, error) {
	return PhotoChoice{Size: localplan.DefaultSize}, nil
}

func (j *job) Grey(f int) conf {
	g := localplan.GreyGeometry(f)
	return conf{Info{Ridge: localplan.GreyRidge, Local: g, MaxNodes: g.Outputs()}}
}

func (j *job) Accuracy(ctx context.Context, c conf, idx, train, held []int) (float64, error) {
	if c.in.Local != nil {
		return 0.9, nil
	}
	return 0.8, nil
}

func (j *job) Sample(idx []int) func(context.Context, conf) error {
	return func(context.Context, conf) error { return nil }
}

func (j *job) FitLocal(ctx context.Context, c conf, stop func(int) bool) (*model, Chooser, error) {
	f := 0
	for f < c.in.Local.Filters {
		f = min(f+localnet.RandomBlock, c.in.Local.Filters)
		j.now = j.now.Add(time.Duration(localnet.RandomBlock) * j.perFilter)
		if f < c.in.Local.Filters && stop != nil && stop(f) {
			break
		}
	}
	m := &model{nodes: f * c.in.Local.PerFilter()}
	return m, func(ctx context.Context, train, held []int, ridges []float64, grey bool, more Mores) error {
		m.ridges = ridges
		m.scored = 1
		for i := 1; i < len(ridges) && (more == nil || more(i, 1, 1)); i++ {
			m.scored++
		}
		return nil
	}, nil
}

func (j *job) Nodes(m *model) (int, int) { return m.nodes, m.scored }

func (j *job) Done(m *model, rec *budget.Record, spent bool) { m.rec, m.spent = rec, spent }

func newJob(n, side int) *job {
	return &job{
		shape: Shape{N: n, Rows: side, Cols: side, Chans: 1, M: 10}, now: time.Unix(1000, 0), perNode: time.Millisecond,
		cfg:    conf{Info{Ridge: 1, BlockSize: 100, MaxNodes: 100}},
		global: Choose(n, 1),
	}
}

func budgetOf(j *job, d time.Duration) Budget {
	return Budget{Duration: d, Start: j.now, Now: j.clock, Seed: 1, NodeLimit: 100000}
}

// A global plan: the probe measures the rates, the plan is what the record
// holds, the checkpoints are the fit's, and the clock or the plan's cap
// stops it.
func TestFitGlobal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		perNode time.Duration
		d       time.Duration
		want    string
	}{{"slow", 10 * time.Millisecond, 10 * time.Second, "budget"}, {"fast", time.Microsecond, time.Hour, "plan"}} {
		j := newJob(LargeSet, 12)
		j.perNode = tc.perNode
		var planned budget.Plan
		m, err := Fit(context.Background(), budgetOf(j, tc.d), j, func(pl budget.Plan) { planned = pl })
		if err != nil {
			t.Fatal(err)
		}
		if j.probes != 1 || m.rec == nil || !slices.Equal(m.rec.Plan.Ridges, planned.Ridges) || m.rec.Plan.Nodes != planned.Nodes || planned.Why != j.global.Why {
			t.Fatalf("%s: probes %d, record %+v, plan %+v", tc.name, j.probes, m.rec, planned)
		}
		if m.rec.Stopped != tc.want || m.spent != (tc.want == "budget") || m.rec.FitNodes != m.nodes || len(m.rec.Checkpoints) != m.nodes/planned.BlockSize {
			t.Errorf("%s: stopped %q (spent %v) after %d nodes, %d checkpoints; want %q", tc.name, m.rec.Stopped, m.spent, m.nodes, len(m.rec.Checkpoints), tc.want)
		}
		if cp := m.rec.Checkpoints[0]; cp.Nodes != planned.BlockSize || cp.Accuracy != 0.5 || cp.RMSE != 0.25 {
			t.Errorf("%s: first checkpoint %+v", tc.name, cp)
		}
		if !slices.Contains(planned.Ridges, j.cfg.in.Ridge) || planned.FitRidge != 1 || !planned.FitWeights {
			t.Errorf("%s: plan %+v: the fit's ridge term must be among the choices", tc.name, planned)
		}
	}
}

// The memory bound caps the plan; rates that are not usable are refused
// without fitting.
func TestFitGlobalBounds(t *testing.T) {
	j := newJob(LargeSet, 12)
	j.bytesPerNode = 1000
	b := budgetOf(j, time.Hour)
	b.MaxBytes = 500 * 1000
	b.Rates = &budget.Rates{Score: 1e-9, Gram: 1e-12}
	m, err := Fit(context.Background(), b, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	if j.probes != 0 || m.rec.Plan.MaxNodes > 500 || m.nodes > 500 {
		t.Fatalf("a bound of 500 nodes' bytes: probes %d, plan %+v, fitted %d", j.probes, m.rec.Plan, m.nodes)
	}
	b.Rates = &budget.Rates{Score: -1}
	if _, err := Fit(context.Background(), b, newJob(LargeSet, 12), nil); !errors.Is(err, ErrBudget) {
		t.Fatalf("negative rates: %v", err)
	}
}

// On grey images of at least localplan.GreyMinSide a side the probe runs:
// local nodes that win are planned (FitLocal, the grey grid), and the
// record says so; images too small skip it.
func TestFitGreyProbe(t *testing.T) {
	j := newJob(2000, 28)
	j.perFilter = time.Microsecond
	b := budgetOf(j, time.Hour)
	b.LocalRates = &budget.Rates{Score: 1e-12, Chol: 1e-12}
	m, err := Fit(context.Background(), b, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	pl := m.rec.Plan
	if pl.Filters == 0 || !strings.Contains(pl.Probe, "local") || !slices.Equal(pl.Ridges, GreyRidges) || len(j.fitted) != 0 || m.scored != len(GreyRidges) {
		t.Fatalf("grey images whose local nodes win: plan %+v, global fits %v, scored %d", pl, j.fitted, m.scored)
	}
	small := newJob(2000, 12)
	m, err = Fit(context.Background(), budgetOf(small, time.Hour), small, nil)
	if err != nil || m.rec.Plan.Filters != 0 || m.rec.Plan.Probe != "" || len(small.fitted) != 1 {
		t.Fatalf("small images: %v, plan %+v", err, m.rec)
	}
}

// A photo budget plans filters with the rates given, chooses the ridge
// among the photo grid, and without a hold-out keeps the fit's ridge.
func TestFitPhotos(t *testing.T) {
	j := newJob(400, 48)
	b := budgetOf(j, time.Minute)
	b.Rates = &budget.Rates{Score: 1e-11, Chol: 1e-11}
	var planned budget.Plan
	m, err := Fit(context.Background(), b, j, func(pl budget.Plan) { planned = pl })
	if err != nil {
		t.Fatal(err)
	}
	if planned.Filters < localplan.FilterStep || planned.Nodes != m.nodes || planned.Validation != PhotoValidation ||
		!slices.Equal(m.ridges, PhotoRidges) || m.rec.Stopped != "plan" || m.rec.Plan.Filters != planned.Filters {
		t.Fatalf("plan %+v, model %+v, record %+v", planned, m, m.rec)
	}
	j = newJob(400, 48)
	j.noHoldout = true
	b = budgetOf(j, time.Minute)
	b.Rates = &budget.Rates{Score: 1e-11, Chol: 1e-11}
	m, err = Fit(context.Background(), b, j, nil)
	if err != nil || m.rec.Plan.Validation != 0 || !slices.Equal(m.rec.Plan.Ridges, []float64{100}) || m.ridges != nil {
		t.Fatalf("no hold-out: %v, plan %+v, ridge choice %v", err, m.rec.Plan, m.ridges)
	}
	b.Rates = &budget.Rates{Score: -1, Chol: 1}
	if _, err := Fit(context.Background(), b, newJob(400, 48), nil); !errors.Is(err, ErrBudget) {
		t.Fatalf("unusable local rates: %v", err)
	}
}

// ReplayLocal scores as many ridge terms as the record's model did.
func TestReplayLocal(t *testing.T) {
	j := newJob(400, 48)
	c, _ := j.Photo()
	rec := &budget.Record{Plan: budget.Plan{Validation: 0.1, Ridges: PhotoRidges, Nodes: 1, MaxNodes: 1}, Stopped: "budget"}
	m, err := ReplayLocal(context.Background(), j, c, rec, true, 2)
	if err != nil || m.scored != 2 {
		t.Fatalf("replay of a choice cut after 2 terms: %v, scored %d", err, m.scored)
	}
	m, err = ReplayLocal(context.Background(), j, c, rec, false, 0)
	if err != nil || m.ridges != nil {
		t.Fatalf("replay of a fit the clock left without a choice: %v, %v", err, m.ridges)
	}
}

// The probes refuse inputs that differ, are not photos, fail their check,
// or are missing, with errors that say so; ProbeInputs probes each input
// in order.
func TestProbeInputsAndPhotoChecks(t *testing.T) {
	in := func(n, m int) Input {
		return Input{Label: "x", Shape: Shape{N: n, Rows: 48, Cols: 48, Chans: 3, M: m}, Dim: 48 * 48 * 3, T: make([]float64, n*m), Photos: true}
	}
	probe := func(i int) (budget.Probe, error) { return budget.Probe{Held: i}, nil }
	if _, err := ProbeInputs(10, nil, probe); !errors.Is(err, ErrBudget) {
		t.Errorf("no inputs: %v", err)
	}
	if _, err := ProbeInputs(10, []Input{in(10, 2), in(11, 2)}, probe); !errors.Is(err, ErrBudget) {
		t.Errorf("different sizes: %v", err)
	}
	bad := errors.New("bad problem")
	x := in(10, 2)
	x.Err = bad
	if _, err := ProbeInputs(10, []Input{in(10, 2), x}, probe); !errors.Is(err, bad) {
		t.Errorf("a problem that fails its check: %v", err)
	}
	out, err := ProbeInputs(10, []Input{in(10, 2), in(10, 2)}, probe)
	if err != nil || len(out) != 2 || out[1].Held != 1 {
		t.Errorf("two inputs: %v %+v", err, out)
	}
	j := newJob(400, 48)
	b := budgetOf(j, time.Minute)
	notPhoto := in(400, 2)
	notPhoto.Photos = false
	for name, ins := range map[string][]Input{"none": nil, "not photos": {in(400, 2), notPhoto}, "targets": {in(400, 2), in(400, 3)}, "check": {x}} {
		if c, err := ChoosePhotos(context.Background(), b, ins, Prober[conf](j)); err == nil || c.Size != localplan.DefaultSize {
			t.Errorf("%s: %+v, %v", name, c, err)
		}
	}
	if _, err := ChoosePhotos(context.Background(), Budget{}, []Input{in(400, 2)}, Prober[conf](j)); !errors.Is(err, ErrBudget) {
		t.Errorf("no duration: %v", err)
	}
	// Candidates that tie keep today's plan, recorded with each fit.
	b.Rates = &budget.Rates{Chol: 1e-15}
	c, err := ChoosePhotos(context.Background(), b, []Input{in(400, 2)}, Prober[conf](j))
	if err != nil || c.Size != localplan.DefaultSize || c.Input != 0 || !strings.Contains(c.Record, "kept today's") ||
		!strings.Contains(c.Record, "x 3x3") || !strings.Contains(c.Record, "x 7x7") {
		t.Errorf("ties: %+v, %v", c, err)
	}
	// Too few images to probe: today's plan, nothing recorded.
	if c, err := ChoosePhotos(context.Background(), b, []Input{in(10, 2)}, Prober[conf](j)); err != nil || c != (PhotoChoice{Size: localplan.DefaultSize}) {
		t.Errorf("ten images: %+v, %v", c, err)
	}
}

// Classifier makes the fake job a Prober whose candidates are all alike.
func (j *job) Candidate(i int) (conf, bool) { return j.Photo() }

func (j *job) Classifier(i int, idx, train, held []int) func(context.Context, conf) ([]int, []int, error) {
	return func(context.Context, conf) ([]int, []int, error) {
		want := make([]int, len(held))
		return want, want, nil
	}
}

// The learner's choice: the default 2DSCN with selection below LargeSet,
// the fast RVFL with its ridge and the further steps from it.
func TestChoose(t *testing.T) {
	if g := Choose(LargeSet-1, 3); g.Validation != 0.2 || g.Points != 20 || g.Ridges != nil || g.FitWeights || !strings.Contains(g.Why, "2DSCN") {
		t.Errorf("small set: %+v", g)
	}
	g := Choose(LargeSet, 3)
	want := []float64{3}
	for _, k := range budget.RidgeSteps {
		want = append(want, k*3)
	}
	if g.Validation != 0.05 || !slices.Equal(g.Ridges, want) || !g.FitWeights || !strings.Contains(g.Why, "RVFL") {
		t.Errorf("large set: %+v", g)
	}
}
