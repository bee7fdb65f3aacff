package scn

import (
	"context"
	"testing"
	"time"

	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/localplan"
)

// TestBudgetPhotos: on colour images a budget plans the presets' local
// nodes (2DRVFL, PhotoLocal's geometry) with the most filters whose
// modelled time at the given rates (one per multiply-add), the ridge
// choice's included, fits the share of the budget; a longer
// budget gives more filters, a memory limit fewer; the plan survives the
// model file, and --replay's refit gives the same bytes. Grey 10 x 8
// images keep the global plan.
func TestBudgetPhotos(t *testing.T) {
	p := goldenColour(t, 40)
	n, rows, cols, chans := p.X.Len(), p.X.Rows, p.X.Cols, p.X.Chans()
	const rate = 1e-8
	l := DefaultLocal()
	// A budget whose share fits 32 filters but not 48: the fit and the
	// ridge choice on the 4 images held out.
	work := func(f int) float64 {
		return localplan.Cost(l, f, n, rows, cols, chans) + localnet.ChoiceWork(n, 4, f*l.PerFilter(), p.M, len(photoRidges))
	}
	sec := (work(32) + work(48)) / 2 * rate / localplan.BudgetShare
	fit := func(sec float64, maxBytes int64) (*Model, BudgetPlan) {
		t.Helper()
		clk := newFakeClock()
		b := Budget{Duration: time.Duration(sec * float64(time.Second)), Now: clk.now, Rates: &Rates{Score: rate, Chol: rate}, MaxBytes: maxBytes, Seed: 3}
		var pl BudgetPlan
		m, err := b.Fit(context.Background(), p, nil, func(x BudgetPlan) { pl = x })
		if err != nil {
			t.Fatal(err)
		}
		return m, pl
	}
	m, pl := fit(sec, 0)
	if pl.Filters != 32 || pl.Kind != RVFL2D || pl.Validation != photoValidation || pl.FitRidge != PhotoRidge || pl.Nodes != 32*l.PerFilter() {
		t.Fatalf("plan %+v, want 32 filters of the presets' local nodes", pl)
	}
	if m.Config.Local == nil || m.Config.Local.Filters != 32 || m.Config.Seed != 3 || m.Nodes() != pl.Nodes || m.Budget == nil || m.Budget.FitNodes != pl.Nodes {
		t.Fatalf("model: local %v, seed %d, %d nodes, budget %+v", m.Config.Local, m.Config.Seed, m.Nodes(), m.Budget)
	}
	if back := sameReplay(t, p, m); back.Budget.Plan.Filters != 32 {
		t.Errorf("the plan's filters read back: %d", back.Budget.Plan.Filters)
	}
	if _, more := fit(2*sec, 0); more.Filters <= 32 {
		t.Errorf("twice the budget: %d filters", more.Filters)
	}
	c, _ := Default(SCN2D).ForPhotos(n, rows, cols, chans)
	c.Local.Filters = 16
	c.MaxNodes = c.Local.Outputs()
	if _, less := fit(sec, c.EstimateBytesC(n, rows, cols, chans, p.M)); less.Filters != 16 {
		t.Errorf("memory for 16 filters: %d planned", less.Filters)
	}
	g := goldenGrey(t, 40)
	clk := newFakeClock()
	r := budgetRates
	b := Budget{Duration: 10 * time.Second, Now: clk.now, Rates: &r}
	var gp BudgetPlan
	if _, err := b.Fit(context.Background(), g, nil, func(x BudgetPlan) { gp = x }); err != nil {
		t.Fatal(err)
	}
	if gp.Filters != 0 || gp.Kind != SCN2D {
		t.Errorf("grey 10 x 8 images: plan %+v", gp)
	}
}
