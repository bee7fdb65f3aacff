package selection

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/holdout"
	"gonum.org/v1/gonum/mat"
)

// fakePath is a Path over fixed hidden outputs: train (n x L) and held
// (nh x L) row-major, targets t (n x m); its prefixes are solved by the
// normal equations with gonum (an independent reference).
type fakePath struct {
	nodes    int
	n, nh, m int
	train    []float64
	held     []float64
	t        []float64
	hidden   int // calls of Hidden
	beta     int // calls of Beta
}

func newFakePath(rng *rand.Rand, n, nh, L, m int) *fakePath {
	p := &fakePath{nodes: L, n: n, nh: nh, m: m, train: make([]float64, n*L), held: make([]float64, nh*L), t: make([]float64, n*m)}
	for i := range p.train {
		p.train[i] = float64(float32(rng.Float64()))
	}
	for i := range p.held {
		p.held[i] = float64(float32(rng.Float64()))
	}
	for i := range p.t {
		p.t[i] = rng.NormFloat64()
	}
	return p
}

func (p *fakePath) Nodes() int { return p.nodes }

func (p *fakePath) Hidden(from, to int, f func(lo, rows int, hb []float32)) {
	p.hidden++
	// Batches of three images, node-major within each.
	for lo := 0; lo < p.nh; lo += 3 {
		rows := min(3, p.nh-lo)
		hb := make([]float32, (to-from)*rows)
		for j := from; j < to; j++ {
			for i := 0; i < rows; i++ {
				hb[(j-from)*rows+i] = float32(p.held[(lo+i)*(len(p.held)/p.nh)+j])
			}
		}
		f(lo, rows, hb)
	}
}

// solve is the reference: (H_l^T H_l + alpha I) beta = H_l^T T by gonum.
func (p *fakePath) solve(l int, alpha float64) []float64 {
	L := len(p.train) / p.n
	h := mat.NewDense(p.n, l, nil)
	for i := 0; i < p.n; i++ {
		for j := 0; j < l; j++ {
			h.Set(i, j, p.train[i*L+j])
		}
	}
	var g mat.Dense
	g.Mul(h.T(), h)
	for j := 0; j < l; j++ {
		g.Set(j, j, g.At(j, j)+alpha)
	}
	var ht mat.Dense
	ht.Mul(h.T(), mat.NewDense(p.n, p.m, p.t))
	var b mat.Dense
	if err := b.Solve(&g, &ht); err != nil {
		return nil
	}
	return mat.DenseCopyOf(&b).RawMatrix().Data
}

func (p *fakePath) normal(l int) (*mat.SymDense, *mat.Dense) {
	L := len(p.train) / p.n
	h := mat.NewDense(p.n, l, nil)
	for i := 0; i < p.n; i++ {
		for j := 0; j < l; j++ {
			h.Set(i, j, p.train[i*L+j])
		}
	}
	var g mat.SymDense
	g.SymOuterK(1, h.T())
	var ht mat.Dense
	ht.Mul(h.T(), mat.NewDense(p.n, p.m, p.t))
	return &g, &ht
}

func (p *fakePath) PrefixSolves(maxL int, grid []int, ridges []float64, each func(l int, alpha float64, beta []float64)) error {
	PrefixSolves(maxL, p.m, grid, ridges, p.normal, func(l int) ([]float64, error) { return p.solve(l, 0), nil }, each)
	return nil
}

func (p *fakePath) Beta(l int, alpha float64) ([]float64, error) {
	p.beta++
	return p.solve(l, alpha), nil
}

// heldScore is the reference score of weights beta of the first l nodes
// on the held-out rows.
func heldScore(p *fakePath, h *holdout.Held, l int, beta []float64) float64 {
	L := len(p.held) / p.nh
	var ss float64
	for i := 0; i < p.nh; i++ {
		for q := 0; q < p.m; q++ {
			var y float64
			for j := 0; j < l; j++ {
				y += p.held[i*L+j] * beta[j*p.m+q]
			}
			d := y - h.T[i*p.m+q]
			ss += d * d
		}
	}
	return math.Sqrt(ss / float64(p.nh*p.m))
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func TestEvaluatorScoresEveryPairAsTheReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := newFakePath(rng, 40, 7, 9, 2)
	tv := make([]float64, p.nh*p.m)
	for i := range tv {
		tv[i] = rng.NormFloat64()
	}
	h := holdout.NewHeld(p.nh, p.m, tv, false)
	e := New(h, Spec{Points: 4, Ridges: []float64{0, 0.1, 10}})
	grid := e.Grid(p.nodes)
	if len(grid) == 0 || grid[len(grid)-1] != p.nodes {
		t.Fatalf("grid %v does not end at L = %d", grid, p.nodes)
	}
	pts, err := e.ScorePath(p, grid)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(grid) * 3; len(pts) != want {
		t.Fatalf("%d points, want %d (every prefix, every ridge)", len(pts), want)
	}
	for k, pt := range pts {
		// Ridge by ridge, L within.
		if pt.Ridge != e.Spec.Ridges[k/len(grid)] || pt.Nodes != grid[k%len(grid)] {
			t.Fatalf("point %d is (%d, %g), out of order", k, pt.Nodes, pt.Ridge)
		}
		want := heldScore(p, h, pt.Nodes, p.solve(pt.Nodes, pt.Ridge))
		if !near(pt.RMSE, want, 1e-9) {
			t.Errorf("(%d, %g): RMSE %v, reference %v", pt.Nodes, pt.Ridge, pt.RMSE, want)
		}
	}
	// The held-out outputs are formed once for the path's nodes.
	if _, err := e.ScorePath(p, grid); err != nil || p.hidden != 1 {
		t.Errorf("second scoring: err %v, %d passes over the held-out images, want 1", err, p.hidden)
	}
	if r, c := e.HV.Dims(); r != p.nh || c != p.nodes {
		t.Errorf("held-out outputs %d x %d, want %d x %d", r, c, p.nh, p.nodes)
	}
	if e.Metric() != "rmse" || MetricOf(true) != "accuracy" {
		t.Errorf("metrics %q, %q", e.Metric(), MetricOf(true))
	}
}

func TestCheckpointsExtendAndRepeat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := newFakePath(rng, 30, 5, 6, 1)
	h := holdout.NewHeld(p.nh, p.m, make([]float64, p.nh), false)
	e := New(h, Spec{Points: 3, Ridges: []float64{1}, Checkpoints: 2})
	var grown []int
	for l := 2; l <= 6; l += 2 {
		p.nodes = l
		s, err := e.Checkpoint(p, l, 1)
		if err != nil {
			t.Fatal(err)
		}
		want := heldScore(p, h, l, p.solve(l, 1))
		if s.Nodes != l || s.Ridge != 1 || !near(s.RMSE, want, 1e-9) {
			t.Errorf("checkpoint %d: %+v, reference RMSE %v", l, s, want)
		}
		_, c := e.HV.Dims()
		grown = append(grown, c)
	}
	if grown[0] != 2 || grown[1] != 4 || grown[2] != 6 {
		t.Errorf("held-out outputs grew to %v nodes, want [2 4 6]", grown)
	}
	// A second checkpoint at the same step is the first one's score.
	calls := p.beta
	if _, err := e.Checkpoint(p, 6, 1); err != nil || p.beta != calls || len(e.Checkpoints) != 3 {
		t.Errorf("repeated checkpoint solved again (%d solves) or was recorded (%d)", p.beta-calls, len(e.Checkpoints))
	}
	// Without an engine no further ridge term is scored.
	if extra, beta := e.RidgeCheckpoints(6, 1, nil); extra != nil || beta != nil {
		t.Errorf("ridge checkpoints without an engine: %v", extra)
	}
	best, scores, _, err := e.CheckpointChoice(p, 1, nil)
	if err != nil || len(scores) != 3 || best != holdout.Pick(e.Checkpoints, false) {
		t.Errorf("checkpoint choice %+v of %d scores (%v)", best, len(scores), err)
	}
}

func TestCheckComposesMonitorCheckpointsAndWatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := newFakePath(rng, 30, 6, 8, 1)
	h := holdout.NewHeld(p.nh, p.m, make([]float64, p.nh), false)
	if New(h, Spec{Points: 4, Ridges: []float64{1}}).Check(8, false, 1, nil) != nil {
		t.Fatal("a check without Patience, checkpoints or watch")
	}
	e := New(h, Spec{Points: 4, Ridges: []float64{1}, Checkpoints: 2})
	watched := 0
	check := e.Check(8, true, 1, func(Path) bool { watched++; return watched == 3 })
	var stopped int
	for l := 1; l <= 8; l++ {
		p.nodes = l
		if check(p) {
			stopped = l
			break
		}
	}
	if stopped != 3 || watched != 3 {
		t.Errorf("the watch stopped the fit at %d after %d calls, want 3", stopped, watched)
	}
	if len(e.Checkpoints) != 1 || e.Checkpoints[0].Nodes != 2 {
		t.Errorf("checkpoints %+v, want one at 2 nodes", e.Checkpoints)
	}
}

func TestMonitorStopsAfterPatience(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	p := newFakePath(rng, 50, 8, 12, 1)
	// Targets the hidden outputs cannot follow: the held-out score does
	// not improve for long.
	h := holdout.NewHeld(p.nh, p.m, make([]float64, p.nh), false)
	e := New(h, Spec{Points: 12, Ridges: []float64{1e3}, Patience: 2})
	mon := e.Monitor(12)
	stop := 0
	for l := 1; l <= 12 && stop == 0; l++ {
		p.nodes = l
		if mon(p) {
			stop = l
		}
	}
	// The reference: the best score at each prefix, Patience applied.
	var best float64
	since, want := 0, 0
	for l := 1; l <= 12; l++ {
		s := heldScore(p, h, l, p.solve(l, 1e3))
		if l == 1 || s < best {
			best, since = s, 0
			continue
		}
		if since++; since >= 2 {
			want = l
			break
		}
	}
	if want == 0 || stop != want || e.Stopped() != want {
		t.Errorf("stopped at %d (recorded %d), reference %d", stop, e.Stopped(), want)
	}
}

func TestPoolFolds(t *testing.T) {
	a := []holdout.Point{{Nodes: 1, Ridge: 1, RMSE: 1}, {Nodes: 2, Ridge: 1, RMSE: 2}}
	b := []holdout.Point{{Nodes: 1, Ridge: 1, RMSE: 3}}
	pts, held, minNodes, err := PoolFolds(2, 5, func(f int) ([]holdout.Point, int, int, error) {
		if f == 0 {
			return a, 1, 2, nil
		}
		return b, 3, 1, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Only (1, 1) was scored by both; its RMSE is the root of the images'
	// mean squared error.
	if len(pts) != 1 || held != 4 || minNodes != 1 || !near(pts[0].RMSE, math.Sqrt((1*1+3*9)/4.0), 1e-15) {
		t.Errorf("pooled %+v over %d images, min nodes %d", pts, held, minNodes)
	}
	if _, _, _, err := PoolFolds(2, 5, func(f int) ([]holdout.Point, int, int, error) {
		return []holdout.Point{{Nodes: f + 1, Ridge: 1}}, 1, 2, nil
	}); err == nil || !strings.Contains(err.Error(), "every fold") {
		t.Errorf("no common point: %v", err)
	}
	boom := errors.New("boom")
	if _, _, _, err := PoolFolds(3, 5, func(f int) ([]holdout.Point, int, int, error) { return nil, 0, 0, boom }); err != boom {
		t.Errorf("a fold's error: %v", err)
	}
}

func TestSolveFallback(t *testing.T) {
	scores := []holdout.Point{{Nodes: 3, Ridge: 1e-4, RMSE: 1}, {Nodes: 3, Ridge: 1, RMSE: 2}, {Nodes: 2, Ridge: 10, RMSE: 3}}
	singular := errors.New("singular")
	var tried []float64
	m, best, err := SolveFallback(scores, scores[0], false, func(p holdout.Point) (float64, error) {
		tried = append(tried, p.Ridge)
		if p.Ridge < 1 {
			return 0, singular
		}
		return p.Ridge, nil
	})
	if err != nil || m != 1 || best != scores[1] || len(tried) != 2 {
		t.Errorf("fallback gave %v at %+v after %v (%v)", m, best, tried, err)
	}
	_, _, err = SolveFallback(scores, scores[0], false, func(holdout.Point) (int, error) { return 0, singular })
	if err != singular {
		t.Errorf("no pair solves: %v", err)
	}
}

func TestGrowKeepsTheBetterFitAndStops(t *testing.T) {
	fitted := func(nodes int) (holdout.Fitted, bool) {
		// The best prefix is always the last: growth goes on until the
		// limit.
		best := holdout.Point{Nodes: nodes, Ridge: 1, RMSE: 1 / float64(nodes)}
		curve := []holdout.Point{{Nodes: nodes / 2, Ridge: 1, RMSE: 10 / float64(nodes)}, best}
		return holdout.Fitted{Best: best, Curve: curve, FitNodes: nodes, Held: 1000, Stop: "max nodes"}, false
	}
	g := &holdout.Growth{Limit: 32}
	var sizes []int
	m, err := Grow(g, 4, func(nodes int) (int, error) { sizes = append(sizes, nodes); return nodes, nil },
		func(m int) (holdout.Fitted, bool) { return fitted(m) }, nil, nil, func() bool { return false })
	if err != nil || m != 32 || len(sizes) != 4 || !strings.Contains(g.Record(), "growth limit") {
		t.Errorf("grew %v, kept %d (%v); %s", sizes, m, err, g.Record())
	}
	// A refused fit stops growth with the reason; a failed grown fit keeps
	// the model so far unless the context is cancelled.
	g = &holdout.Growth{Limit: 32}
	m, err = Grow(g, 4, func(nodes int) (int, error) { return nodes, nil }, func(m int) (holdout.Fitted, bool) { return fitted(m) },
		func(nodes int) error { return errors.New("too big") }, nil, func() bool { return false })
	if err != nil || m != 4 || !strings.Contains(g.Record(), "memory limit: too big") {
		t.Errorf("refused growth kept %d (%v); %s", m, err, g.Record())
	}
	fail := errors.New("singular")
	for _, cancelled := range []bool{false, true} {
		g = &holdout.Growth{Limit: 32}
		m, err = Grow(g, 4, func(nodes int) (int, error) {
			if nodes > 4 {
				return -1, fail
			}
			return nodes, nil
		}, func(m int) (holdout.Fitted, bool) { return fitted(m) }, nil, nil, func() bool { return cancelled })
		if cancelled && (err != fail || m != -1) || !cancelled && (err != nil || m != 4) {
			t.Errorf("cancelled %v: kept %d (%v)", cancelled, m, err)
		}
	}
}

func TestMaskKeepsItsImagesAcrossShards(t *testing.T) {
	held := []bool{true, false, false, true, true}
	pix := []float32{0, 0, 1, 1, 2, 2, 3, 3, 4, 4}
	tt := []float64{0, 1, 2, 3, 4}
	for _, want := range []bool{true, false} {
		k := Mask{Held: held, Want: want}
		var got []float64
		// Shards of 2, 2 and 1 images.
		for lo := 0; lo < 5; lo += 2 {
			n := min(2, 5-lo)
			p, t2 := k.Keep(pix[2*lo:2*(lo+n)], tt[lo:lo+n], n, 2, 1)
			for i, v := range t2 {
				if p[2*i] != float32(v) {
					t.Errorf("image %v's pixels %v", v, p[2*i])
				}
			}
			got = append(got, t2...)
		}
		for _, v := range got {
			if held[int(v)] != want {
				t.Errorf("want %v: kept image %v", want, v)
			}
		}
		if n := len(got); want && n != 3 || !want && n != 2 {
			t.Errorf("want %v: kept %v", want, got)
		}
	}
}

func TestPrefixSolvesMatchTheReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	p := newFakePath(rng, 60, 1, 10, 3)
	formed := 0
	normal := func(l int) (*mat.SymDense, *mat.Dense) { formed++; return p.normal(l) }
	var got int
	PrefixSolves(10, p.m, []int{1, 4, 10}, []float64{0, 0.5, 5}, normal, func(l int) ([]float64, error) {
		if l == 4 {
			return nil, errors.New("refused")
		}
		return p.solve(l, 0), nil
	}, func(l int, alpha float64, beta []float64) {
		got++
		want := p.solve(l, alpha)
		for i := range want {
			if !near(beta[i], want[i], 1e-8) {
				t.Fatalf("(%d, %g): beta[%d] %v, reference %v", l, alpha, i, beta[i], want[i])
			}
		}
	})
	if got != 8 || formed != 1 {
		t.Errorf("%d solves (want 8: the refused prefix left out), normal equations formed %d times", got, formed)
	}
}

func TestRefitsSolveBothParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	p := newFakePath(rng, 40, 9, 5, 2)
	L := 5
	hv := mat.NewDense(p.nh, L, append([]float64(nil), p.held...))
	tvData := make([]float64, p.nh*p.m)
	for i := range tvData {
		tvData[i] = rng.NormFloat64()
	}
	tv := mat.NewDense(p.nh, p.m, tvData)
	// The reference: one fit over the stacked rows.
	both := &fakePath{n: p.n + p.nh, m: p.m, train: append(append([]float64(nil), p.train...), p.held...), t: append(append([]float64(nil), p.t...), tvData...)}
	for _, alpha := range []float64{0, 0.3} {
		stacked := func() ([]float64, error) {
			return StackedLS(nil, L, p.m, hv, tv, func() *mat.Dense { return mat.NewDense(p.n, L, append([]float64(nil), p.train...)) }, p.t)
		}
		beta, rmse, ok, err := Refit(L, alpha, hv, tv, p.t, tvData, p.normal, stacked)
		if err != nil {
			t.Fatal(err)
		}
		want := both.solve(L, alpha)
		for i := range want {
			if !near(beta[i], want[i], 1e-7) {
				t.Fatalf("alpha %g: beta[%d] %v, reference %v", alpha, i, beta[i], want[i])
			}
		}
		if ok != (alpha > 0) {
			t.Errorf("alpha %g: RMSE from the normal equations %v", alpha, ok)
		}
		if ok {
			var ss float64
			for i := 0; i < both.n; i++ {
				for q := 0; q < p.m; q++ {
					var y float64
					for j := 0; j < L; j++ {
						y += both.train[i*L+j] * beta[j*p.m+q]
					}
					ss += (y - both.t[i*p.m+q]) * (y - both.t[i*p.m+q])
				}
			}
			if want := math.Sqrt(ss / float64(both.n*p.m)); !near(rmse, want, 1e-8) {
				t.Errorf("RMSE %v, reference %v", rmse, want)
			}
		}
	}
	// The streamed refit: the held-out part's sums added to the training
	// part's normal equations.
	hs := &HeldSums{L: L, G: make([]float64, L*L), HT: make([]float64, L*p.m)}
	for i := 0; i < p.nh; i++ {
		for a := 0; a < L; a++ {
			for b := 0; b < L; b++ {
				hs.G[a*L+b] += p.held[i*L+a] * p.held[i*L+b]
			}
			for q := 0; q < p.m; q++ {
				hs.HT[a*p.m+q] += p.held[i*L+a] * tvData[i*p.m+q]
			}
		}
	}
	var tt float64
	for _, v := range both.t {
		tt += v * v
	}
	g, ht := p.normal(L)
	beta, _, err := hs.Refit(g, ht, L, p.m, 0.3, tt, both.n)
	if err != nil {
		t.Fatal(err)
	}
	want := both.solve(L, 0.3)
	for i := range want {
		if !near(beta[i], want[i], 1e-7) {
			t.Fatalf("streamed refit: beta[%d] %v, reference %v", i, beta[i], want[i])
		}
	}
}

func TestLocalFolds(t *testing.T) {
	for _, c := range []struct {
		labels []int
		m      int
		want   int
	}{
		{nil, 1, LocalCalibFolds},
		{[]int{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}, 2, 5},
		{[]int{0, 0, 0, 1, 1, 1, 1, 1, 1}, 2, 3},
		{[]int{0, 1, 1, 1}, 3, 2},
	} {
		if got := LocalFolds(c.labels, c.m); got != c.want {
			t.Errorf("LocalFolds(%v) = %d, want %d", c.labels, got, c.want)
		}
	}
}

func TestCheckExtrasProblem(t *testing.T) {
	for _, c := range []struct {
		coverage float64
		weights  []float64
		classify bool
		want     string
	}{
		{0.9, nil, true, "for regression"},
		{0, []float64{1}, false, "need a classification"},
		{0, []float64{1}, true, "1 class weights for 2 classes"},
		{0.9, nil, false, ""},
		{0, []float64{1, 2}, true, ""},
	} {
		err := CheckExtrasProblem(c.coverage, c.weights, c.classify, 2)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// TestExtrasOrder checks what the extras do in which order, on models
// that record it: reweighting on the right parts, outputs of the model
// solved without the held-out images, and nothing at all without extras.
func TestExtrasOrder(t *testing.T) {
	var log []string
	x := Extras[string, string]{
		Calibrate: true, Weighted: true,
		Check:    func() error { log = append(log, "check"); return nil },
		Reweight: func(m, p string) (string, error) { return m + "/w:" + p, nil },
		Outputs: func(m, p string) ([]float64, []float64, error) {
			log = append(log, "out "+m+" on "+p)
			return []float64{1}, []float64{2}, nil
		},
		Attach: func(m string, y, tt []float64) (string, error) {
			return m + "+cal", nil
		},
	}
	m, err := x.HoldOut("m", func() (string, error) { return "tm", nil }, "tp", "hp", "all")
	if err != nil || m != "m/w:all+cal" || strings.Join(log, "; ") != "check; out tm/w:tp on hp" {
		t.Errorf("hold-out: %q (%v), %v", m, err, log)
	}
	log = nil
	m, err = x.Folds("m", "all", 2, func(f int, pm string) (string, string, string, error) {
		return pm + "-fold", "tp", "hp", nil
	})
	if err != nil || m != "m/w:all+cal" || strings.Join(log, "; ") != "check; out m/w:all-fold/w:tp on hp; out m/w:all-fold/w:tp on hp" {
		t.Errorf("folds: %q (%v), %v", m, err, log)
	}
	// No extras: the model as it is, nothing checked or fitted.
	none := Extras[string, string]{}
	if m, err := none.HoldOut("m", nil, "tp", "hp", "all"); err != nil || m != "m" {
		t.Errorf("no extras: %q (%v)", m, err)
	}
	// A refusal of the problem and a failed fold come back as errors.
	bad := x
	bad.Check = func() error { return errors.New("refused") }
	if _, err := bad.HoldOut("m", nil, "tp", "hp", "all"); err == nil || err.Error() != "refused" {
		t.Errorf("refused problem: %v", err)
	}
	boom := errors.New("boom")
	if _, err := x.Folds("m", "all", 3, func(int, string) (string, string, string, error) { return "", "", "", boom }); err != boom {
		t.Errorf("failed fold: %v", err)
	}
}

func TestKFoldRun(t *testing.T) {
	fold := func(f int) ([]holdout.Point, int, int, error) {
		// Every fold scores (2, 1e-4) best and (2, 1) next; fold 1 made 3
		// nodes only.
		return []holdout.Point{{Nodes: 2, Ridge: 1e-4, RMSE: 1}, {Nodes: 2, Ridge: 1, RMSE: 2}, {Nodes: 4, Ridge: 1, RMSE: 0.5}}, 5, 4 - f%2, nil
	}
	var finalNodes int
	var solved []float64
	k := KFold[float64]{K: 2, MaxNodes: 4, Fold: fold,
		Final: func(nodes int) error { finalNodes = nodes; return nil },
		Solve: func(p holdout.Point) (float64, error) {
			solved = append(solved, p.Ridge)
			if p.Ridge < 1 {
				return 0, errors.New("singular")
			}
			return p.Ridge, nil
		},
		Direct: func(holdout.Point) (float64, error) { t.Fatal("no direct-link pair was chosen"); return 0, nil },
	}
	m, best, scores, held, minNodes, err := k.Run()
	if err != nil {
		t.Fatal(err)
	}
	// (4, 1) was not reached by every fold; the last fit has the chosen
	// nodes, and its solve at 1e-4 falls back to ridge 1.
	if len(scores) != 2 || held != 10 || minNodes != 3 || finalNodes != 2 || m != 1 || best.Ridge != 1 || len(solved) != 2 {
		t.Errorf("model %v at %+v; %d scores over %d images, min nodes %d, final fit %d nodes, solves %v", m, best, len(scores), held, minNodes, finalNodes, solved)
	}
	// A direct-link choice is solved once, by Direct, with at least one node.
	k.Fold = func(f int) ([]holdout.Point, int, int, error) {
		return []holdout.Point{{Nodes: 0, Ridge: 1, RMSE: 0.1, Direct: true}, {Nodes: 2, Ridge: 1, RMSE: 9}}, 100, 4, nil
	}
	k.Direct = func(p holdout.Point) (float64, error) { return -1, nil }
	if m, best, _, _, _, err := k.Run(); err != nil || m != -1 || !best.Direct || finalNodes != 1 {
		t.Errorf("direct: model %v at %+v, final fit %d nodes (%v)", m, best, finalNodes, err)
	}
	boom := errors.New("boom")
	k.Final = func(int) error { return boom }
	if _, _, _, _, _, err := k.Run(); err != boom {
		t.Errorf("failed last fit: %v", err)
	}
}
