package scn

import (
	"bytes"
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scn2d/scn/internal/budgetflow"
	"github.com/scn2d/scn/internal/localplan"
	"github.com/scn2d/scn/internal/modelfile"
)

// greyRidges are the grey budget's ridge terms (internal/budgetflow's).
var greyRidges = budgetflow.GreyRidges

// greyRidge is the grey budget's local configuration's ridge term.
const greyRidge = localplan.GreyRidge

// budgetGrey reports whether a budget probes local against global nodes
// on p: grey classification problems that are not photos, of images of at
// least localplan.GreyMinSide pixels a side and at least localplan.GreyMinImages images.
func budgetGrey(p Problem) bool {
	return localplan.Grey(p.Classes != nil, p.X.Len(), p.X.Rows, p.X.Cols, p.X.Chans())
}

// shiftedProblem is a grey classification problem of n images of side x
// side pixels in 4 classes: each class is a fixed 5 x 5 pattern placed at
// a random position on noise. Local pooled nodes see the pattern wherever
// it is; global nodes see a different image for every position.
func shiftedProblem(t testing.TB, n, side int) Problem {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 5))
	const k, m = 5, 4
	pats := make([][]float32, m)
	for c := range pats {
		pats[c] = make([]float32, k*k)
		for i := range pats[c] {
			pats[c][i] = float32(2 * rng.NormFloat64())
		}
	}
	x := Images{Rows: side, Cols: side, Pix: make([]float32, n*side*side)}
	y := make([]int, n)
	for i := range y {
		y[i] = i % m
		im := x.Pix[i*side*side : (i+1)*side*side]
		for j := range im {
			im[j] = float32(0.3 * rng.NormFloat64())
		}
		r0, c0 := rng.IntN(side-k+1), rng.IntN(side-k+1)
		for r := 0; r < k; r++ {
			for c := 0; c < k; c++ {
				im[(r0+r)*side+c0+c] += pats[y[i]][r*k+c]
			}
		}
	}
	p, err := Classification(x, y, []string{"a", "b", "c", "d"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// linearProblem is a grey classification problem of n images of side x
// side pixels of noise in 4 classes, the class being the largest of 4
// random linear functions of the pixels: every pixel counts where it is,
// which global nodes see and pooled local nodes blur.
func linearProblem(t testing.TB, n, side int) Problem {
	t.Helper()
	rng := rand.New(rand.NewPCG(12, 6))
	const m = 4
	d := side * side
	w := make([]float64, m*d)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	x := Images{Rows: side, Cols: side, Pix: make([]float32, n*d)}
	y := make([]int, n)
	for i := range y {
		im := x.Pix[i*d : (i+1)*d]
		for j := range im {
			im[j] = float32(rng.NormFloat64())
		}
		best, arg := 0.0, 0
		for c := 0; c < m; c++ {
			s := 0.0
			for j, v := range im {
				s += w[c*d+j] * float64(v)
			}
			if c == 0 || s > best {
				best, arg = s, c
			}
		}
		y[i] = arg
	}
	p, err := Classification(x, y, []string{"a", "b", "c", "d"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// greyBudget fits p within sec seconds on a fake clock that does not move,
// with rates that make the probe's modelled time about 60 s on 600 images
// of 20 x 20 and a local plan of 16 filters in 500 s.
func greyBudget(t *testing.T, p Problem, sec float64, procs int) *Model {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	clk := newFakeClock()
	b := Budget{Duration: time.Duration(sec * float64(time.Second)), Now: clk.now, Rates: &Rates{Score: 1e-6, Chol: 1e-8, Gram: 1e-9}, LocalRates: &Rates{Score: 1e-6, Chol: 1e-8}, Seed: 5}
	var lines []BudgetPlan
	m, err := b.Fit(context.Background(), p, nil, func(pl BudgetPlan) { lines = append(lines, pl) })
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0].Probe != m.Budget.Plan.Probe {
		t.Fatalf("plan callbacks %d, probe %q", len(lines), m.Budget.Plan.Probe)
	}
	return m
}

func TestBudgetGreyProbeLocalWins(t *testing.T) {
	p := shiftedProblem(t, 600, 20)
	m := greyBudget(t, p, 500, 1)
	pl := m.Budget.Plan
	if m.Local == nil || pl.Filters < 1 || !strings.HasSuffix(pl.Probe, ": local") {
		t.Fatalf("shifted patterns: local %v, filters %d, probe %q", m.Local != nil, pl.Filters, pl.Probe)
	}
	if g := m.Local.Geometry; g.Pooling != PoolAvgMax || g.Whiten || !slices.Equal(pl.Ridges, greyRidges) || pl.FitRidge != greyRidge {
		t.Errorf("geometry %+v, ridges %v at %g", g, pl.Ridges, pl.FitRidge)
	}
	if m.Selection == nil || !slices.Contains(greyRidges, m.Selection.Ridge) {
		t.Errorf("no ridge chosen among %v: %+v", greyRidges, m.Selection)
	}
	back := sameReplay(t, p, m)
	if back.Budget.Plan.Probe != pl.Probe {
		t.Errorf("probe record read back %q, want %q", back.Budget.Plan.Probe, pl.Probe)
	}
	file, _ := roundTrip(t, m)
	if other, _ := roundTrip(t, greyBudget(t, p, 500, 2)); !bytes.Equal(file, other) {
		t.Error("GOMAXPROCS 1 and 2 give different models")
	}
}

func TestBudgetGreyProbeGlobalWins(t *testing.T) {
	p := linearProblem(t, 600, 20)
	m := greyBudget(t, p, 500, 1)
	pl := m.Budget.Plan
	if m.Local != nil || pl.Filters != 0 || !strings.HasSuffix(pl.Probe, ": global") {
		t.Fatalf("linear classes: local %v, filters %d, probe %q", m.Local != nil, pl.Filters, pl.Probe)
	}
	back := sameReplay(t, p, m)
	if back.Budget.Plan.Probe != pl.Probe {
		t.Errorf("probe record read back %q, want %q", back.Budget.Plan.Probe, pl.Probe)
	}
	// The probe's record is a version 3 field: the global model is
	// written as version 3, and without the record as before.
	if v := m.fileVersion(); v != modelfile.Version {
		t.Errorf("global model with a probe record: version %d, want %d", v, modelfile.Version)
	}
	plain := *m
	rec := *m.Budget
	rec.Plan.Probe = ""
	plain.Budget = &rec
	if v := plain.fileVersion(); v != modelfile.GreyVersion {
		t.Errorf("global model without a probe record: version %d, want %d", v, modelfile.GreyVersion)
	}
	file, _ := roundTrip(t, m)
	if other, _ := roundTrip(t, greyBudget(t, p, 500, 2)); !bytes.Equal(file, other) {
		t.Error("GOMAXPROCS 1 and 2 give different models")
	}
}

func TestBudgetGreyProbeSkipped(t *testing.T) {
	// 100 s: the probe's modelled 60 s is more than its share.
	p := shiftedProblem(t, 600, 20)
	m := greyBudget(t, p, 100, 1)
	if pl := m.Budget.Plan; m.Local != nil || !strings.HasPrefix(pl.Probe, "skipped, global nodes kept") {
		t.Fatalf("small budget: local %v, probe %q", m.Local != nil, pl.Probe)
	}
	sameReplay(t, p, m)
}

func TestBudgetGreyWhich(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Problem
		want bool
	}{
		{"grey 20 x 20", shiftedProblem(t, 600, 20), true},
		{"small images", noisyProblem(t, 600), false},
		{"few images", shiftedProblem(t, localplan.GreyMinImages-1, 20), false},
		{"photos", shiftedProblem(t, 600, 41), false},
	} {
		if got := budgetGrey(c.p); got != c.want {
			t.Errorf("%s: probe %v, want %v", c.name, got, c.want)
		}
	}
	q := shiftedProblem(t, 600, 20)
	r, err := Regression(q.X, q.T, q.M)
	if err != nil {
		t.Fatal(err)
	}
	if budgetGrey(r) {
		t.Error("regression: probed, want global nodes")
	}
}
