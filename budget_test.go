package scn

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/scn2d/scn/internal/budget"
)

// noisyProblem is a classification problem of n images of 10 x 8 pixels in
// 10 classes, noisy enough that held-out accuracy is well below 1 and moves
// with L (blobProblem is solved exactly by a few nodes).
func noisyProblem(t testing.TB, n int) Problem {
	x, y, names := blobs(n, 10, 8, 10, 7)
	rng := rand.New(rand.NewPCG(7, 3))
	for i := range x.Pix {
		x.Pix[i] += float32(0.9 * rng.NormFloat64())
	}
	p, err := Classification(x, y, names)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeClock is a clock that moves only when the test says so.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }
func (c *fakeClock) add(seconds float64) {
	c.t = c.t.Add(time.Duration(seconds * float64(time.Second)))
}
func newFakeClock() *fakeClock                 { return &fakeClock{t: time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)} }
func (c *fakeClock) since(t time.Time) float64 { return c.t.Sub(t).Seconds() }

// budgetRates are made-up rates for the tests' small problem (600 images
// of 10 x 8): scoring dominates small L, the Gram products large L.
var budgetRates = Rates{Score: 2e-4, Gram: 4e-6, Chol: 1e-7, Block: 0.01, Finish: 2e-9}

// budgetRun fits p within a budget of the given seconds on a fake clock
// that advances, at every node, by slow times the modelled cost of that
// node at the budget's rates (slow = 2: the machine is twice as slow as
// calibrated). It returns the model and the fake seconds spent when the
// fit ended.
func budgetRun(t *testing.T, p Problem, seconds, slow float64) (*Model, float64) {
	t.Helper()
	clk := newFakeClock()
	start := clk.now()
	r := budgetRates
	b := Budget{Duration: time.Duration(seconds * float64(time.Second)), Start: start, Now: clk.now, Rates: &r, Seed: 1}
	var plan BudgetPlan
	train := 0
	progress := func(s Step) {
		// The fit of the training part: its cost of node s.L.
		c := r.FitSeconds(train, s.L, plan.BlockSize) - r.FitSeconds(train, s.L-1, plan.BlockSize)
		clk.add(slow * c)
	}
	m, err := b.Fit(context.Background(), p, progress, func(pl BudgetPlan) {
		plan = pl
		held := max(1, int(math.Round(pl.Validation*float64(p.X.Len()))))
		train = p.X.Len() - held
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.Budget == nil {
		t.Fatal("no budget record in the model")
	}
	return m, clk.since(start)
}

// budgetSeconds returns a budget whose plan is about l nodes for p.
func budgetSeconds(p Problem, l int) float64 {
	cfg, sel, _ := budgetChoice(p.X.Len(), p, 1)
	held := max(1, int(math.Round(sel.Validation*float64(p.X.Len()))))
	r := budgetRates
	ridges := sel.Ridges
	if ridges == nil {
		ridges = DefaultRidges()
	}
	pl := BudgetPlan{Rates: r, Ridges: ridges, Points: sel.Points, FitWeights: sel.fitWeights}
	return (r.FitSeconds(p.X.Len()-held, l, cfg.BlockSize) + pl.FinishSeconds(held, l, p.M, p.X.Rows*p.X.Cols)) / budget.Safety * 1.01
}

// finish is the modelled finishing cost of the record's fit at pace slow.
func finish(rec *BudgetRecord, n int, slow float64) float64 {
	held := max(1, int(math.Round(rec.Plan.Validation*float64(n))))
	return slow * rec.Plan.FinishSeconds(held, rec.FitNodes, 10, 80)
}

func TestBudgetMeetsPlanAtCalibratedRates(t *testing.T) {
	p := noisyProblem(t, 600)
	sec := budgetSeconds(p, 300)
	m, spent := budgetRun(t, p, sec, 1)
	rec := m.Budget
	if rec.Plan.Nodes != 300 {
		t.Fatalf("planned %d nodes for a budget sized for 300", rec.Plan.Nodes)
	}
	if rec.FitNodes < rec.Plan.Nodes {
		t.Errorf("fitted %d nodes, fewer than the %d planned, with rates as calibrated", rec.FitNodes, rec.Plan.Nodes)
	}
	if total := spent + finish(rec, p.X.Len(), 1); total > sec {
		t.Errorf("fit and finish take %.2f s of a %.2f s budget", total, sec)
	}
	if len(rec.Checkpoints) != rec.FitNodes/rec.Plan.BlockSize {
		t.Errorf("%d checkpoints for %d nodes in blocks of %d", len(rec.Checkpoints), rec.FitNodes, rec.Plan.BlockSize)
	}
}

func TestBudgetStopsEarlyWhenSlower(t *testing.T) {
	p := noisyProblem(t, 600)
	sec := budgetSeconds(p, 300)
	m, spent := budgetRun(t, p, sec, 2)
	rec := m.Budget
	if rec.FitNodes >= rec.Plan.Nodes {
		t.Fatalf("fitted %d nodes of %d planned on a machine twice as slow", rec.FitNodes, rec.Plan.Nodes)
	}
	if rec.Stopped != "budget" || m.Summary.Stop != BudgetSpent {
		t.Errorf("stopped %q (%v), want the budget's stop", rec.Stopped, m.Summary.Stop)
	}
	if total := spent + finish(rec, p.X.Len(), 2); total > sec {
		t.Errorf("fit and finish take %.2f s of a %.2f s budget", total, sec)
	}
	// The model is the best prefix on held-out data: no checkpoint scored
	// better, and in particular not the first.
	first := rec.Checkpoints[0]
	if m.Selection.Accuracy < first.Accuracy {
		t.Errorf("held-out accuracy %.4f below the first checkpoint's %.4f", m.Selection.Accuracy, first.Accuracy)
	}
	for _, c := range rec.Checkpoints {
		if c.Accuracy > m.Selection.Accuracy {
			t.Errorf("checkpoint at %d nodes scored %.4f, above the chosen model's %.4f", c.Nodes, c.Accuracy, m.Selection.Accuracy)
		}
	}
}

// TestBudgetLargeSetKeepsFitWeights: on a large set (the fast RVFL) the
// budget chooses L among its checkpoints at the fit's ridge term and keeps
// the fit's own output weights: the model is the fit's prefix (no ridge
// grid, no re-solve), the best checkpoint on held-out data, and its replay
// gives the same bytes.
func TestBudgetLargeSetKeepsFitWeights(t *testing.T) {
	p := noisyProblem(t, budgetLargeSet)
	m, spent := budgetRun(t, p, budgetSeconds(p, 1500), 2)
	rec := m.Budget
	if !rec.Plan.FitWeights || rec.Plan.Kind != RVFL || len(rec.Plan.Ridges) != 2 || rec.Plan.Ridges[0] != rec.Plan.FitRidge || rec.Plan.Ridges[1] != 10*rec.Plan.FitRidge {
		t.Fatalf("plan %+v, want the fast RVFL with the fit's weights at its ridge term and 10 times it", rec.Plan)
	}
	if rec.FitNodes >= rec.Plan.Nodes || rec.Stopped != "budget" {
		t.Errorf("fitted %d of %d planned nodes (stopped %q) on a machine twice as slow", rec.FitNodes, rec.Plan.Nodes, rec.Stopped)
	}
	if total := spent + finish(rec, p.X.Len(), 2); total > budgetSeconds(p, 1500) {
		t.Errorf("fit and finish take %.2f s of the budget", total)
	}
	sel := m.Selection
	if sel.Candidates != 2*len(rec.Checkpoints) || m.Nodes() != sel.Nodes || m.Config.Ridge != sel.Ridge || (sel.Ridge != rec.Plan.FitRidge && sel.Ridge != 10*rec.Plan.FitRidge) {
		t.Errorf("chose L = %d (model %d nodes, ridge %v) from %d candidates, want one of the %d checkpoints at ridge %v or 10 times it",
			sel.Nodes, m.Nodes(), m.Config.Ridge, sel.Candidates, len(rec.Checkpoints), rec.Plan.FitRidge)
	}
	for _, s := range sel.Curve {
		if s.better(Score{Nodes: sel.Nodes, Ridge: sel.Ridge, Accuracy: sel.Accuracy, RMSE: sel.RMSE}, true) {
			t.Errorf("(%d, %g) scored %.4f, better than the choice", s.Nodes, s.Ridge, s.Accuracy)
		}
	}
	// The model's weights are those its held-out score was measured with.
	_, held, err := splitHoldout(p, rec.Plan.Validation, 1)
	if err != nil {
		t.Fatal(err)
	}
	hp := p.subset(held)
	if acc, err := m.Accuracy(hp.X, ArgMax(hp.T, hp.M)); err != nil || math.Abs(acc-sel.Accuracy) > 1e-12 {
		t.Errorf("held-out accuracy %.4f, the record says %.4f (%v)", acc, sel.Accuracy, err)
	}
	t.Logf("chose L = %d at ridge %g of %d fitted", sel.Nodes, sel.Ridge, rec.FitNodes)
	for _, c := range rec.Checkpoints {
		if c.Accuracy > sel.Accuracy {
			t.Errorf("checkpoint at %d nodes scored %.4f, above the chosen model's %.4f", c.Nodes, c.Accuracy, sel.Accuracy)
		}
	}
	if back := sameReplay(t, p, m); !back.Budget.Plan.FitWeights {
		t.Error("FitWeights lost in the file")
	}
}

func TestBudgetGrowsWhenFaster(t *testing.T) {
	p := noisyProblem(t, 600)
	sec := budgetSeconds(p, 200)
	m, _ := budgetRun(t, p, sec, 0.25)
	if rec := m.Budget; rec.FitNodes <= rec.Plan.Nodes {
		t.Errorf("fitted %d nodes, no more than the %d planned, on a machine four times faster", rec.FitNodes, rec.Plan.Nodes)
	}
}

// TestBudgetReplaySameBytes: the plan carried out, refitted without a
// clock, gives the model file byte for byte (and through a file round trip
// of the budgeted model, as scn train --replay reads it).
func TestBudgetReplaySameBytes(t *testing.T) {
	p := noisyProblem(t, 600)
	m, _ := budgetRun(t, p, budgetSeconds(p, 300), 2)
	sameReplay(t, p, m)
}

// sameReplay checks that the budgeted model m, through a file round trip,
// keeps its budget record and replays on p to the same file bytes; it
// returns the model read back.
func sameReplay(t *testing.T, p Problem, m *Model) *Model {
	t.Helper()
	file, back := roundTrip(t, m)
	if back.Budget == nil || back.Budget.FitNodes != m.Budget.FitNodes || len(back.Budget.Checkpoints) != len(m.Budget.Checkpoints) {
		t.Fatalf("budget record lost in the file: %+v", back.Budget)
	}
	r, err := Replay(context.Background(), back.Budget, back, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := r.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), file) {
		t.Errorf("replayed model differs from the budgeted one (%d and %d bytes)", buf.Len(), len(file))
	}
	return back
}

func TestBudgetMemoryCap(t *testing.T) {
	p := noisyProblem(t, 600)
	sec := budgetSeconds(p, 400)
	clk := newFakeClock()
	r := budgetRates
	cfg, _, _ := budgetChoice(p.X.Len(), p, 1)
	cfg.MaxNodes = 200
	limit := cfg.EstimateBytes(480, p.X.Rows, p.X.Cols, p.M)
	b := Budget{Duration: time.Duration(sec * float64(time.Second)), Now: clk.now, Rates: &r, MaxBytes: limit}
	var plan BudgetPlan
	if _, err := b.Fit(context.Background(), p, nil, func(pl BudgetPlan) { plan = pl }); err != nil {
		t.Fatal(err)
	}
	if plan.MaxNodes > 200 {
		t.Errorf("plan may grow to %d nodes; the memory limit holds 200", plan.MaxNodes)
	}
}

func TestBudgetBadInput(t *testing.T) {
	p := blobProblem(t, 100)
	r := budgetRates
	for _, b := range []Budget{
		{Duration: 0, Rates: &r},
		{Duration: -time.Second, Rates: &r},
		{Duration: time.Second, Rates: &Rates{Score: math.NaN()}},
		{Duration: time.Second, Rates: &Rates{}},
	} {
		if _, err := b.Fit(context.Background(), p, nil, nil); !errors.Is(err, ErrBudget) {
			t.Errorf("%+v: error %v, want ErrBudget", b, err)
		}
	}
	if _, err := Replay(context.Background(), nil, nil, p, nil); !errors.Is(err, ErrBudget) {
		t.Errorf("replay without a record: %v", err)
	}
}

// TestCalibrateRates: a probe gives positive, finite rates.
func TestCalibrateRates(t *testing.T) {
	p := noisyProblem(t, 600)
	cfg, sel, _ := budgetChoice(p.X.Len(), p, 1)
	r, err := Calibrate(context.Background(), cfg, sel, p)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Valid() || !(r.Score > 0) || !(r.Chol > 0) || !(r.Finish > 0) {
		t.Errorf("rates %+v", r)
	}
}
