package scn

import (
	"bytes"
	"context"
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/scn2d/scn/internal/budgetflow"
	"github.com/scn2d/scn/internal/holdout"
	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/lsq"
	"gonum.org/v1/gonum/mat"
)

// The photo budget's held-out share and grid (internal/budgetflow's).
const photoValidation = budgetflow.PhotoValidation

var photoRidges = budgetflow.PhotoRidges

// moreRidges, when a ridge choice has scored its first i terms of the grid
// (i >= 1) after done multiply-adds, says whether the next term and the
// refit (next multiply-adds) go ahead (localnet.MoreRidges).
type moreRidges = localnet.MoreRidges

// ridgeChoice converts a ridge choice's held-out points to Scores.
func ridgeChoice(beta []float64, trainRMSE float64, curve []holdout.Point, best int, err error) ([]float64, float64, []Score, int, error) {
	if err != nil {
		return nil, 0, nil, 0, err
	}
	scores := make([]Score, len(curve))
	for i, p := range curve {
		scores[i] = Score(p)
	}
	return beta, trainRMSE, scores, best, nil
}

// greyRidgeChoice is the grey budget's ridge choice: the dual way when it
// costs less, otherwise the primal with the held-out images' products by
// rows (localnet.ChooseRidgeGrey).
func greyRidgeChoice(ctx context.Context, lf *localFit, t []float64, train, held []int, ridges []float64, classify bool, more moreRidges) ([]float64, float64, []Score, int, error) {
	return ridgeChoice(localnet.ChooseRidgeGrey(ctx, lf.solver(), t, train, held, ridges, classify, more))
}

// primalRidge is the ridge choice in the primal, from the fit's Gram sums
// (localnet.PrimalRidge).
func primalRidge(ctx context.Context, eng *lsq.Gram, t []float64, m int, held []int, ridges []float64, classify bool, more moreRidges) (beta []float64, trainRMSE float64, curve []Score, best int, err error) {
	return ridgeChoice(localnet.PrimalRidge(ctx, eng, t, m, held, ridges, classify, more))
}

// dualRidge is the ridge choice in the dual, from the pooled outputs eng
// holds (localnet.DualRidge).
func dualRidge(ctx context.Context, eng *lsq.Gram, t []float64, m int, train, held []int, ridges []float64, classify bool, more moreRidges) (beta []float64, trainRMSE float64, curve []Score, best int, err error) {
	return ridgeChoice(localnet.DualRidge(ctx, eng, t, m, train, held, ridges, classify, more))
}

// greyPrimalRidge is primalRidge with the held-out images' products
// formed from their pooled outputs held L x held (localnet.GreyPrimalRidge).
func greyPrimalRidge(ctx context.Context, eng *lsq.Gram, t []float64, m int, held []int, ridges []float64, classify bool, more moreRidges) (beta []float64, trainRMSE float64, curve []Score, best int, err error) {
	return ridgeChoice(localnet.GreyPrimalRidge(ctx, eng, t, m, held, ridges, classify, more))
}

// photoRidgeFit returns a local fit (the presets' photo nodes, filters
// filters, float64 Gram sums) of p and its state.
func photoRidgeFit(t *testing.T, p Problem, filters int) (*Model, *localFit) {
	t.Helper()
	cfg, ok := Default(SCN2D).ForPhotos(p.X.Len(), p.X.Rows, p.X.Cols, p.X.Chans())
	if !ok {
		t.Fatal("no photo choice")
	}
	cfg.BF16Gram, cfg.Float32Gram = false, false
	cfg.Local.Filters = filters
	cfg.MaxNodes = cfg.Local.Outputs()
	cfg.Seed = 5
	m, lf, err := cfg.fitLocalState(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m, lf
}

// directRidge solves (H_rows^T H_rows + r I) beta = H_rows^T T_rows with
// gonum (h: N x L, t: N x m, row-major), an independent reference.
func directRidge(t *testing.T, h, tt []float64, l, m int, rows []int, r float64) []float64 {
	t.Helper()
	hr := mat.NewDense(len(rows), l, nil)
	tr := mat.NewDense(len(rows), m, nil)
	for k, i := range rows {
		hr.SetRow(k, h[i*l:(i+1)*l])
		tr.SetRow(k, tt[i*m:(i+1)*m])
	}
	var g mat.Dense
	g.Mul(hr.T(), hr)
	for i := 0; i < l; i++ {
		g.Set(i, i, g.At(i, i)+r)
	}
	var rhs, beta mat.Dense
	rhs.Mul(hr.T(), tr)
	if err := beta.Solve(&g, &rhs); err != nil {
		t.Fatal(err)
	}
	return mat.DenseCopyOf(&beta).RawMatrix().Data
}

func maxRelDiff(a, b []float64) float64 {
	var d, s float64
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
		s = max(s, math.Abs(b[i]))
	}
	return d / s
}

// TestPhotoRidgeChoice: the dual and the primal ridge choices of a budget
// on photos score every term of the grid as a direct solve on the training
// part scores it on the held-out images, choose the best of those scores
// (Score.better), and return the direct solve of every image at that term.
func TestPhotoRidgeChoice(t *testing.T) {
	p := goldenColour(t, 40)
	n, mo := p.X.Len(), p.M
	train, held, err := splitHoldout(p, photoValidation, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, filters := range []int{2, 6} { // L = 36 < N and L = 108 > N
		_, lf := photoRidgeFit(t, p, filters)
		eng := lf.eng
		l := eng.L
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		h, _ := heldRows(eng, p.T, mo, all, false)
		ridges := []float64{0.3, 3, 30, 300}
		var want []Score
		best := -1
		for _, r := range ridges {
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
		wantBeta := directRidge(t, h, p.T, l, mo, all, ridges[best])
		type way struct {
			name string
			run  func() ([]float64, float64, []Score, int, error)
		}
		for _, w := range []way{
			{"primal", func() ([]float64, float64, []Score, int, error) {
				return primalRidge(context.Background(), eng, p.T, mo, held, ridges, true, nil)
			}},
			{"dual", func() ([]float64, float64, []Score, int, error) {
				return dualRidge(context.Background(), eng, p.T, mo, train, held, ridges, true, nil)
			}},
		} {
			beta, rmse, curve, got, err := w.run()
			if err != nil {
				t.Fatalf("%d filters, %s: %v", filters, w.name, err)
			}
			if got != best || len(curve) != len(want) {
				t.Errorf("%d filters, %s: chose %d of %d, want %d (%+v)", filters, w.name, got, len(curve), best, want)
			}
			for i := range curve {
				if curve[i].Accuracy != want[i].Accuracy || math.Abs(curve[i].RMSE-want[i].RMSE) > 1e-9*want[i].RMSE || curve[i].Ridge != ridges[i] {
					t.Errorf("%d filters, %s, ridge %g: %+v, want %+v", filters, w.name, ridges[i], curve[i], want[i])
				}
			}
			if d := maxRelDiff(beta, wantBeta); !(d < 1e-8) {
				t.Errorf("%d filters, %s: output weights %.3g from the direct solve at ridge %g", filters, w.name, d, ridges[best])
			}
			y := make([]float64, n*mo)
			for i := 0; i < n; i++ {
				for q := 0; q < mo; q++ {
					for j := 0; j < l; j++ {
						y[i*mo+q] += h[i*l+j] * beta[j*mo+q]
					}
				}
			}
			if r := RMSE(y, p.T); math.Abs(rmse-r) > 1e-9 {
				t.Errorf("%d filters, %s: training RMSE %v, want %v", filters, w.name, rmse, r)
			}
		}
	}
	// Cut short after two terms: the best of those two, solved on every image.
	_, lf2 := photoRidgeFit(t, p, 6)
	two := func(i int, done, next float64) bool {
		if !(done > 0 && next > 0) {
			t.Errorf("term %d: work done %v, next %v", i, done, next)
		}
		return i < 2
	}
	beta, _, curve, got, err := dualRidge(context.Background(), lf2.eng, p.T, mo, train, held, []float64{0.3, 3000, 30}, true, two)
	if err != nil {
		t.Fatal(err)
	}
	if len(curve) != 2 || curve[got] != pick(curve, true) {
		t.Errorf("cut short: curve %+v, chose %d", curve, got)
	} else {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		h, _ := heldRows(lf2.eng, p.T, mo, all, false)
		if d := maxRelDiff(beta, directRidge(t, h, p.T, lf2.eng.L, mo, all, curve[got].Ridge)); !(d < 1e-8) {
			t.Errorf("cut short: output weights %.3g from the direct solve", d)
		}
	}
	// Bad calls: an empty grid, a hold-out that is not a partition.
	_, lf := photoRidgeFit(t, p, 2)
	if _, _, _, _, err := dualRidge(context.Background(), lf.eng, p.T, mo, train, held, nil, true, nil); err == nil {
		t.Error("dual: no ridge terms accepted")
	}
	if _, _, _, _, err := dualRidge(context.Background(), lf.eng, p.T, mo, train[1:], held, photoRidges, true, nil); err == nil {
		t.Error("dual: a hold-out that leaves an image out accepted")
	}
	if _, _, _, _, err := primalRidge(context.Background(), lf.eng, p.T, mo, nil, photoRidges, true, nil); err == nil {
		t.Error("primal: no held-out images accepted")
	}
}

// TestBudgetPhotosRidge: a budget on photos records its ridge choice (the
// plan's hold-out and grid, the model's selection and ridge term), which
// survives the file and --replay; the bytes do not depend on GOMAXPROCS;
// when the fit leaves no time for the choice, the model is the fit's own
// at PhotoRidge, recorded as stopped by the budget, and replayed so; a
// clock that runs late cuts the grid, or stops the fit between two blocks
// of filters, and the replay follows.
func TestBudgetPhotosRidge(t *testing.T) {
	p := goldenColour(t, 40)
	const rate = 1e-8
	fit := func(sec float64, procs int, late bool) *Model {
		t.Helper()
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		clk := newFakeClock()
		b := Budget{Duration: time.Duration(sec * float64(time.Second)), Now: clk.now, Rates: &Rates{Score: rate, Chol: rate}, Seed: 3}
		m, err := b.Fit(context.Background(), p, nil, func(BudgetPlan) {
			if late {
				clk.t = clk.t.Add(b.Duration) // the fit takes the whole budget
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := fit(3, 1, false)
	pl := m.Budget.Plan
	sel := m.Selection
	if pl.Validation != photoValidation || !slices.Equal(pl.Ridges, photoRidges) || pl.FitRidge != PhotoRidge || m.Budget.Stopped != "plan" {
		t.Fatalf("plan %+v, stopped %q", pl, m.Budget.Stopped)
	}
	if sel == nil || len(sel.Curve) != len(photoRidges) || sel.Ridge != m.Config.Ridge || !slices.Contains(photoRidges, sel.Ridge) || sel.Held != 4 {
		t.Fatalf("selection %+v, ridge %g", sel, m.Config.Ridge)
	}
	if pick(sel.Curve, true).Ridge != sel.Ridge {
		t.Errorf("chose ridge %g, the best of the curve is %g", sel.Ridge, pick(sel.Curve, true).Ridge)
	}
	back := sameReplay(t, p, m)
	if back.Selection == nil || back.Selection.Ridge != sel.Ridge || back.Budget.Plan.Validation != photoValidation {
		t.Errorf("read back: selection %+v, plan %+v", back.Selection, back.Budget.Plan)
	}
	file, _ := roundTrip(t, m)
	if other, _ := roundTrip(t, fit(3, 4, false)); !bytes.Equal(file, other) {
		t.Error("GOMAXPROCS 1 and 4 give different models")
	}
	late := fit(3, 1, true)
	if late.Budget.Stopped != "budget" || late.Selection != nil || late.Config.Ridge != PhotoRidge || late.Summary.Stop != BudgetSpent {
		t.Errorf("no time for the choice: stopped %q, selection %+v, ridge %g, stop %v", late.Budget.Stopped, late.Selection, late.Config.Ridge, late.Summary.Stop)
	}
	sameReplay(t, p, late)
	// A clock that moves 0.3 s at every reading once the plan is made: the
	// choice scores the first terms of its grid only, and the replay the
	// same ones.
	clk0 := newFakeClock()
	var tick time.Duration
	b0 := Budget{Duration: 3 * time.Second, Now: func() time.Time { clk0.t = clk0.t.Add(tick); return clk0.t }, Rates: &Rates{Score: rate, Chol: rate}, Seed: 3}
	cut, err := b0.Fit(context.Background(), p, nil, func(BudgetPlan) { tick = 300 * time.Millisecond })
	if err != nil {
		t.Fatal(err)
	}
	if cs := cut.Selection; cut.Budget.Stopped != "budget" || cs == nil || len(cs.Curve) < 2 || len(cs.Curve) >= len(photoRidges) ||
		cs.Ridge != pick(cs.Curve, true).Ridge || cut.Config.Ridge != cs.Ridge {
		t.Errorf("grid cut short: stopped %q, selection %+v", cut.Budget.Stopped, cs)
	} else if back := sameReplay(t, p, cut); len(back.Selection.Curve) != len(cs.Curve) {
		t.Errorf("replay scored %d terms, the budget %d", len(back.Selection.Curve), len(cs.Curve))
	}
	// A clock that moves 8 s at every reading of a 30 s budget: the fit
	// stops after a whole block of filters, with no time for the choice,
	// and the model is a fit of the filters drawn (its replay).
	clk1 := newFakeClock()
	tick = 0
	b1 := Budget{Duration: 30 * time.Second, Now: func() time.Time { clk1.t = clk1.t.Add(tick); return clk1.t }, Rates: &Rates{Score: rate, Chol: rate}, Seed: 3}
	var pl1 BudgetPlan
	short, err := b1.Fit(context.Background(), p, nil, func(x BudgetPlan) { pl1, tick = x, 8*time.Second })
	if err != nil {
		t.Fatal(err)
	}
	per := short.Config.Local.PerFilter()
	if f := short.Nodes() / per; short.Nodes() >= pl1.Nodes || f%localRandomBlock != 0 || short.Config.Local.Filters != f ||
		short.Local.Geometry.Filters != f || short.Budget.Stopped != "budget" || short.Selection != nil || short.Budget.FitNodes != short.Nodes() {
		t.Errorf("fit stopped by the clock: %d of %d nodes, filters %d, stopped %q, selection %+v", short.Nodes(), pl1.Nodes, short.Config.Local.Filters, short.Budget.Stopped, short.Selection)
	} else {
		sameReplay(t, p, short)
	}
	// A class of one image: nothing can be held out, the presets' ridge.
	idx := []int{}
	seen := false
	for i, c := range ArgMax(p.T, p.M) {
		if c == 0 {
			if seen {
				continue
			}
			seen = true
		}
		idx = append(idx, i)
	}
	q := p.subset(idx)
	clk := newFakeClock()
	b := Budget{Duration: time.Minute, Now: clk.now, Rates: &Rates{Score: rate, Chol: rate}, Seed: 3}
	one, err := b.Fit(context.Background(), q, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if one.Budget.Plan.Validation != 0 || one.Selection != nil || one.Config.Ridge != PhotoRidge {
		t.Errorf("a class of one image: plan %+v, selection %+v", one.Budget.Plan, one.Selection)
	}
	sameReplay(t, q, one)
}
