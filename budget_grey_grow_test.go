package scn

import (
	"context"
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/localplan"
)

// greyGrowBudget fits p within sec seconds on a fake clock that advances
// by perFilter seconds for every filter the local fit draws (0: a clock
// that does not move), with greyBudget's rates.
func greyGrowBudget(t *testing.T, p Problem, sec, perFilter float64) (*Model, BudgetPlan, *fakeClock, time.Time) {
	t.Helper()
	clk := newFakeClock()
	start := clk.now()
	b := Budget{Duration: time.Duration(sec * float64(time.Second)), Start: start, Now: clk.now, Rates: &Rates{Score: 1e-6, Chol: 1e-8, Gram: 1e-9}, LocalRates: &Rates{Score: 1e-6, Chol: 1e-8}, Seed: 5}
	var pl BudgetPlan
	last := 0
	progress := func(s Step) {
		if pl.Filters == 0 {
			return // the global nodes' probe: not timed here
		}
		f := s.L / (pl.Nodes / pl.Filters)
		clk.add(perFilter * float64(f-last))
		last = f
	}
	m, err := b.Fit(context.Background(), p, progress, func(x BudgetPlan) { pl = x })
	if err != nil {
		t.Fatal(err)
	}
	return m, pl, clk, start
}

// TestBudgetGreyGrows: on a clock that does not move, the local fit on
// grey images grows past its plan to the most it may (MaxNodes), chooses
// its ridge term among greyRidges, and replays to the same bytes.
func TestBudgetGreyGrows(t *testing.T) {
	p := shiftedProblem(t, 600, 20)
	m, pl, _, _ := greyGrowBudget(t, p, 500, 0)
	if m.Local == nil || pl.Filters < 1 {
		t.Fatalf("shifted patterns: local %v, plan %+v", m.Local != nil, pl)
	}
	if pl.MaxNodes <= pl.Nodes || m.Nodes() != pl.MaxNodes || m.Budget.Stopped != "plan" || m.Budget.FitNodes != m.Nodes() {
		t.Fatalf("plan of %d nodes (at most %d): fitted %d, stopped %q", pl.Nodes, pl.MaxNodes, m.Nodes(), m.Budget.Stopped)
	}
	if f := m.Local.Geometry.Filters; f*m.Local.Geometry.PerFilter() != m.Nodes() || m.Config.Local.Filters != f {
		t.Errorf("recorded filters %d / %d for %d nodes", f, m.Config.Local.Filters, m.Nodes())
	}
	if m.Selection == nil || len(m.Selection.Curve) != len(greyRidges) || !slices.Contains(greyRidges, m.Selection.Ridge) {
		t.Fatalf("ridge choice %+v, want one of %v", m.Selection, greyRidges)
	}
	sameReplay(t, p, m)
}

// TestBudgetGreyGrowStops: on a clock that advances with every filter,
// the clock stops the growing fit between two blocks of filters before
// its most, early enough that the fit and the ridge choice's modelled
// time end within the budget; the model records the filters fitted and
// replays to the same bytes.
func TestBudgetGreyGrowStops(t *testing.T) {
	p := shiftedProblem(t, 600, 20)
	// 1000 s: a plan of 16 filters that may grow to 48; at 20 s a filter
	// the block of filters after the first 32 would end past 90%.
	const sec, cost = 1000, 20
	m, pl, clk, start := greyGrowBudget(t, p, sec, cost)
	if m.Local == nil || pl.MaxNodes <= pl.Nodes {
		t.Fatalf("local %v, plan %+v", m.Local != nil, pl)
	}
	per := m.Local.Geometry.PerFilter()
	f := m.Nodes() / per
	if m.Nodes() >= pl.MaxNodes || f%localRandomBlock != 0 || m.Config.Local.Filters != f || m.Budget.Stopped != "budget" || m.Summary.Stop != BudgetSpent {
		t.Fatalf("fitted %d filters (%d nodes of at most %d), config %d, stopped %q (%v)", f, m.Nodes(), pl.MaxNodes, m.Config.Local.Filters, m.Budget.Stopped, m.Summary.Stop)
	}
	// The stop left the time for the next block and the ridge choice: at
	// most localplan.FitStop of the budget spent, and the block after the last
	// one (at cost seconds a filter) and the choice would have passed it.
	spent := clk.since(start)
	if spent > localplan.FitStop*sec {
		t.Errorf("the fit ended %.1f s into a budget of %d s, past %.0f%%", spent, sec, 100*localplan.FitStop)
	}
	n, held := p.X.Len(), int(math.Round(photoValidation*float64(p.X.Len())))
	l := (f + localRandomBlock) * per
	next := cost*localRandomBlock + localplan.ChoiceSeconds(n, held, l, p.M, len(greyRidges), localplan.GrowReserveTerms, pl.Rates.Chol)
	if spent+next <= localplan.FitStop*sec+1e-9 {
		t.Errorf("stopped at %d filters, %.1f s in, where the next block and the choice (%.1f s) fitted within %.0f s", f, spent, next, localplan.FitStop*sec)
	}
	if m.Selection == nil || m.Selection.Nodes != m.Nodes() {
		t.Errorf("no ridge choice on the filters fitted: %+v", m.Selection)
	}
	sameReplay(t, p, m)
}

// TestBudgetGreyRidgeDirect: the grown grey budget's ridge choice scores
// every term of greyRidges as a direct solve (gonum) on the training part
// of its hold-out scores it on the held-out images, chooses the best of
// them, and its output weights are the direct solve of every image at
// that term.
func TestBudgetGreyRidgeDirect(t *testing.T) {
	p := shiftedProblem(t, 600, 20)
	m, pl, _, _ := greyGrowBudget(t, p, 500, 0)
	if m.Local == nil || m.Selection == nil || len(m.Selection.Curve) != len(greyRidges) {
		t.Fatalf("local %v, selection %+v", m.Local != nil, m.Selection)
	}
	cfg := m.Config
	cfg.Ridge = pl.FitRidge
	_, lf, err := cfg.fitLocalState(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, mo, l := p.X.Len(), p.M, lf.eng.L
	if l != m.Nodes() {
		t.Fatalf("refit has %d nodes, the model %d", l, m.Nodes())
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	h, _ := heldRows(lf.eng, p.T, mo, all, false)
	train, held, err := splitHoldout(p, pl.Validation, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if len(held) != m.Selection.Held {
		t.Fatalf("held out %d, the model says %d", len(held), m.Selection.Held)
	}
	best := -1
	var want []Score
	for i, r := range greyRidges {
		b := directRidge(t, h, p.T, l, mo, train, r)
		y := make([]float64, len(held)*mo)
		th := make([]float64, len(held)*mo)
		for k, i := range held {
			for q := 0; q < mo; q++ {
				for j := 0; j < l; j++ {
					y[k*mo+q] += h[i*l+j] * b[j*mo+q]
				}
			}
			copy(th[k*mo:], p.T[i*mo:(i+1)*mo])
		}
		s := Score{Nodes: l, Ridge: r, RMSE: RMSE(y, th), Accuracy: Accuracy(ArgMax(y, mo), ArgMax(th, mo))}
		want = append(want, s)
		if best < 0 || s.better(want[best], true) {
			best = len(want) - 1
		}
		if got := m.Selection.Curve[i]; got.Ridge != r || got.Accuracy != s.Accuracy || math.Abs(got.RMSE-s.RMSE) > 1e-9*s.RMSE {
			t.Errorf("ridge %g: scored %+v, direct %+v", r, got, s)
		}
	}
	if slices.IndexFunc(want, func(s Score) bool { return s.RMSE != want[0].RMSE }) < 0 {
		t.Fatal("the grid's held-out scores do not differ: the test cannot tell the terms apart")
	}
	if m.Selection.Ridge != greyRidges[best] || m.Config.Ridge != greyRidges[best] {
		t.Errorf("chose ridge %g (config %g), the direct solves %g (%+v)", m.Selection.Ridge, m.Config.Ridge, greyRidges[best], want)
	}
	if d := maxRelDiff(m.Beta, directRidge(t, h, p.T, l, mo, all, greyRidges[best])); !(d < 1e-8) {
		t.Errorf("output weights %.3g from the direct solve of every image at ridge %g", d, greyRidges[best])
	}
}

// TestGreyPrimalRidge: the grey budget's primal ridge choice (the
// held-out product formed by GemmNT64) scores every term as gonum's
// direct solve on the training part scores it on the held-out images,
// chooses the best, returns the direct solve of every image at it, and
// agrees with primalRidge; cut short, it chooses among the terms scored.
func TestGreyPrimalRidge(t *testing.T) {
	p := shiftedProblem(t, 600, 20)
	c := greyLocal(5, 8) // L = 288 < N: the primal way
	c.BF16Gram, c.Float32Gram = false, false
	_, lf, err := c.fitLocalState(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	eng := lf.solver()
	n, mo, l := p.X.Len(), p.M, eng.L
	train, held, err := splitHoldout(p, photoValidation, 5)
	if err != nil {
		t.Fatal(err)
	}
	if localnet.Dual(n, len(held), l, mo, len(greyRidges)) {
		t.Fatalf("L = %d on %d images: the dual way, want the primal", l, n)
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	h, _ := heldRows(eng, p.T, mo, all, false)
	best := -1
	var want []Score
	for _, r := range greyRidges {
		b := directRidge(t, h, p.T, l, mo, train, r)
		y := make([]float64, len(held)*mo)
		th := make([]float64, len(held)*mo)
		for k, i := range held {
			for q := 0; q < mo; q++ {
				for j := 0; j < l; j++ {
					y[k*mo+q] += h[i*l+j] * b[j*mo+q]
				}
			}
			copy(th[k*mo:], p.T[i*mo:(i+1)*mo])
		}
		s := Score{Nodes: l, Ridge: r, RMSE: RMSE(y, th), Accuracy: Accuracy(ArgMax(y, mo), ArgMax(th, mo))}
		want = append(want, s)
		if best < 0 || s.better(want[best], true) {
			best = len(want) - 1
		}
	}
	if slices.IndexFunc(want, func(s Score) bool { return s.RMSE != want[0].RMSE }) < 0 {
		t.Fatal("the grid's held-out scores do not differ: the test cannot tell the terms apart")
	}
	beta, rmse, curve, got, err := greyRidgeChoice(context.Background(), lf, p.T, train, held, greyRidges, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got != best || len(curve) != len(want) {
		t.Fatalf("chose %d of %d, want %d (%+v)", got, len(curve), best, want)
	}
	for i := range curve {
		if curve[i].Accuracy != want[i].Accuracy || math.Abs(curve[i].RMSE-want[i].RMSE) > 1e-9*want[i].RMSE || curve[i].Ridge != greyRidges[i] {
			t.Errorf("ridge %g: %+v, want %+v", greyRidges[i], curve[i], want[i])
		}
	}
	if d := maxRelDiff(beta, directRidge(t, h, p.T, l, mo, all, greyRidges[best])); !(d < 1e-8) {
		t.Errorf("output weights %.3g from the direct solve at ridge %g", d, greyRidges[best])
	}
	b2, rmse2, curve2, got2, err := primalRidge(context.Background(), eng, p.T, mo, held, greyRidges, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got2 != got || maxRelDiff(b2, beta) > 1e-10 || math.Abs(rmse2-rmse) > 1e-10*rmse || len(curve2) != len(curve) {
		t.Errorf("primalRidge chose %d (rmse %v), greyPrimalRidge %d (rmse %v)", got2, rmse2, got, rmse)
	}
	// The same bits whatever GOMAXPROCS.
	for _, procs := range []int{1, 4} {
		prev := runtime.GOMAXPROCS(procs)
		bp, _, _, _, err := greyPrimalRidge(context.Background(), eng, p.T, mo, held, greyRidges, true, nil)
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(bp, beta) {
			t.Errorf("GOMAXPROCS %d: other output weights", procs)
		}
	}
	// Cut short after two terms: the better of those two.
	two := func(i int, _, _ float64) bool { return i < 2 }
	_, _, curve, got, err = greyPrimalRidge(context.Background(), eng, p.T, mo, held, greyRidges, true, two)
	if err != nil {
		t.Fatal(err)
	}
	if len(curve) != 2 || curve[got] != pick(curve, true) {
		t.Errorf("cut short: curve %+v, chose %d", curve, got)
	}
	if _, _, _, _, err := greyPrimalRidge(context.Background(), eng, p.T, mo, nil, greyRidges, true, nil); err == nil {
		t.Error("no held-out images accepted")
	}
}
