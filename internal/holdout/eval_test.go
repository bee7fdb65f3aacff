package holdout

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// naiveScore is Held.Score by plain loops.
func naiveScore(n, m, l int, beta, hv []float64, stride int, t []float64, classify bool) Point {
	var ss float64
	hits := 0
	for i := 0; i < n; i++ {
		arg, best := 0, math.Inf(-1)
		targ, tbest := 0, math.Inf(-1)
		for q := 0; q < m; q++ {
			var y float64
			for j := 0; j < l; j++ {
				y += hv[i*stride+j] * beta[j*m+q]
			}
			d := y - t[i*m+q]
			ss += d * d
			if y > best {
				arg, best = q, y
			}
			if t[i*m+q] > tbest {
				targ, tbest = q, t[i*m+q]
			}
		}
		if arg == targ {
			hits++
		}
	}
	p := Point{Nodes: l, RMSE: math.Sqrt(ss / float64(n*m))}
	if classify {
		p.Accuracy = float64(hits) / float64(n)
	}
	return p
}

func TestHeldScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, m, L, stride := 37, 3, 9, 11
	hv := make([]float64, n*stride)
	for i := range hv {
		hv[i] = rng.NormFloat64()
	}
	tt := make([]float64, n*m)
	for i := 0; i < n; i++ {
		tt[i*m+rng.IntN(m)] = 1
	}
	for _, classify := range []bool{true, false} {
		h := NewHeld(n, m, tt, classify)
		for _, l := range []int{1, 4, L} {
			beta := make([]float64, l*m)
			for i := range beta {
				beta[i] = rng.NormFloat64()
			}
			got := h.Score(l, 0.5, beta, hv, stride)
			want := naiveScore(n, m, l, beta, hv, stride, tt, classify)
			if got.Nodes != l || got.Ridge != 0.5 || got.Direct || math.Abs(got.RMSE-want.RMSE) > 1e-12*want.RMSE || got.Accuracy != want.Accuracy {
				t.Errorf("classify %v, l %d: Score = %+v, want %+v", classify, l, got, want)
			}
		}
		pred := make([]float64, n*m)
		copy(pred, tt)
		d := h.DirectScore(3, 2, pred)
		if !d.Direct || d.Nodes != 3 || d.Ridge != 2 || d.RMSE != 0 || (classify && d.Accuracy != 1) || (!classify && d.Accuracy != 0) {
			t.Errorf("classify %v: DirectScore of the targets = %+v", classify, d)
		}
	}
}

func TestPatience(t *testing.T) {
	p := Patience{N: 2}
	seq := []float64{0.5, 0.6, 0.55, 0.7, 0.6, 0.65}
	stops := []bool{false, false, false, false, false, true}
	for i, a := range seq {
		l := 10 * (i + 1)
		if got := p.Observe(Point{Nodes: l, Accuracy: a}, l, true); got != stops[i] {
			t.Fatalf("checkpoint %d: stop %v, want %v", i, got, stops[i])
		}
	}
	if p.Stopped != 60 {
		t.Fatalf("Stopped = %d", p.Stopped)
	}
}

// solve solves the small dense system a x = b (n x n, b n x m) by
// Gaussian elimination with partial pivoting.
func solve(a, b []float64, n, m int) {
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r*n+c]) > math.Abs(a[p*n+c]) {
				p = r
			}
		}
		for j := 0; j < n; j++ {
			a[c*n+j], a[p*n+j] = a[p*n+j], a[c*n+j]
		}
		for j := 0; j < m; j++ {
			b[c*m+j], b[p*m+j] = b[p*m+j], b[c*m+j]
		}
		for r := c + 1; r < n; r++ {
			f := a[r*n+c] / a[c*n+c]
			for j := c; j < n; j++ {
				a[r*n+j] -= f * a[c*n+j]
			}
			for j := 0; j < m; j++ {
				b[r*m+j] -= f * b[c*m+j]
			}
		}
	}
	for c := n - 1; c >= 0; c-- {
		for j := 0; j < m; j++ {
			s := b[c*m+j]
			for k := c + 1; k < n; k++ {
				s -= a[c*n+k] * b[k*m+j]
			}
			b[c*m+j] = s / a[c*n+c]
		}
	}
}

func TestRidgeScores(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, nh, l, mo := 60, 25, 6, 3
	h := make([]float64, n*l)
	tr := make([]float64, n*mo)
	for i := range h {
		h[i] = rng.NormFloat64()
	}
	for i := 0; i < n; i++ {
		tr[i*mo+rng.IntN(mo)] = 1
	}
	g := make([]float64, l*l)
	ht := make([]float64, l*mo)
	for i := 0; i < n; i++ {
		for a := 0; a < l; a++ {
			for b := 0; b < l; b++ {
				g[a*l+b] += h[i*l+a] * h[i*l+b]
			}
			for q := 0; q < mo; q++ {
				ht[a*mo+q] += h[i*l+a] * tr[i*mo+q]
			}
		}
	}
	hh := make([]float64, nh*l)
	th := make([]float64, nh*mo)
	for i := range hh {
		hh[i] = rng.NormFloat64()
	}
	for i := 0; i < nh; i++ {
		th[i*mo+rng.IntN(mo)] = 1
	}
	g0 := append([]float64(nil), g...)
	ridges := []float64{0.1, 10, 1000}
	curve, best, err := RidgeScores(g, ht, hh, th, l, mo, nh, ridges, true, func() error { return nil })
	if err != nil || len(curve) != len(ridges) {
		t.Fatalf("RidgeScores = %v, %v", curve, err)
	}
	for i := range g {
		if g[i] != g0[i] {
			t.Fatal("RidgeScores changed g")
		}
	}
	held := NewHeld(nh, mo, th, true)
	for k, r := range ridges {
		a := append([]float64(nil), g...)
		for i := 0; i < l; i++ {
			a[i*l+i] += r
		}
		beta := append([]float64(nil), ht...)
		solve(a, beta, l, mo)
		want := held.Score(l, r, beta, hh, l)
		got := curve[k]
		if got.Nodes != l || got.Ridge != r || got.Accuracy != want.Accuracy || math.Abs(got.RMSE-want.RMSE) > 1e-9*want.RMSE {
			t.Errorf("ridge %v: %+v, want %+v", r, got, want)
		}
	}
	if Pick(curve, true) != curve[best] {
		t.Errorf("best %d is not Pick's %+v", best, Pick(curve, true))
	}
	stop := errors.New("stopped")
	calls := 0
	_, _, err = RidgeScores(g, ht, hh, th, l, mo, nh, ridges, true, func() error {
		if calls++; calls == 2 {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Errorf("stopped scoring: %v", err)
	}
	// A system that cannot be solved names its term.
	if _, _, err := RidgeScores(make([]float64, l*l), ht, hh, th, l, mo, nh, []float64{0}, true, func() error { return nil }); err == nil || !strings.Contains(err.Error(), "ridge 0") {
		t.Errorf("singular system: %v", err)
	}
}

func TestLateGain(t *testing.T) {
	early := Point{Nodes: 100, Accuracy: 0.80}
	for _, tc := range []struct {
		name  string
		curve []Point
		want  bool
	}{
		{"a clear late gain", []Point{early, {Nodes: 400, Accuracy: 0.90}}, true},
		{"within a standard error", []Point{early, {Nodes: 400, Accuracy: 0.81}}, false},
		{"late worse", []Point{early, {Nodes: 400, Accuracy: 0.70}}, false},
		{"nothing late", []Point{early}, false},
		{"nothing early", []Point{{Nodes: 300, Accuracy: 0.5}}, true},
		{"the half itself is early", []Point{early, {Nodes: 250, Accuracy: 0.99}}, false},
	} {
		if got := LateGain(tc.curve, 500, 1000, true); got != tc.want {
			t.Errorf("%s: LateGain = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSettings(t *testing.T) {
	r := DefaultRidges()
	if len(r) != 10 || r[0] != 0 || r[1] != 1e-4 || r[9] != 1e4 {
		t.Fatalf("DefaultRidges = %v", r)
	}
	if err := CheckSettings(0, 0.2, 40, 0, nil); err != nil {
		t.Fatal(err)
	}
	if err := CheckSettings(5, 0, 40, 3, []float64{0, 1}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		folds, points, patience int
		validation              float64
		ridges                  []float64
		want                    string
	}{
		{-1, 0, 0, 0.2, nil, "Folds"}, {101, 0, 0, 0.2, nil, "Folds"}, {1, 0, 0, 1, nil, "Validation"},
		{0, 0, 0, math.NaN(), nil, "Validation"}, {0, 10001, 0, 0.2, nil, "Points"}, {0, 0, -1, 0.2, nil, "Patience"},
		{0, 0, 0, 0.2, []float64{}, "empty"}, {0, 0, 0, 0.2, []float64{1, -1}, "ridge 1"}, {0, 0, 0, 0.2, []float64{math.Inf(1)}, "ridge 0"},
	} {
		if err := CheckSettings(tc.folds, tc.validation, tc.points, tc.patience, tc.ridges); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error about %s", tc, err, tc.want)
		}
	}
	if FoldsForSize(100, nil) != SmallSetFolds || FoldsForSize(SmallSetImages+1, nil) != 0 || FoldsForSize(280, []int{7, 3}) != 3 || FoldsForSize(10, []int{9, 1}) != 0 {
		t.Error("FoldsForSize")
	}
}

func TestCheckpointRidges(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n, m, L := 20, 2, 6
	hv := make([]float64, n*L)
	for i := range hv {
		hv[i] = rng.NormFloat64()
	}
	tt := make([]float64, n*m)
	for i := 0; i < n; i++ {
		tt[i*m+rng.IntN(m)] = 1
	}
	h := NewHeld(n, m, tt, true)
	cps := []Point{{Nodes: 2}, {Nodes: 4}, {Nodes: 4}, {Nodes: 6}}
	var grids [][]int
	betas := map[float64][][]float64{}
	solve := func(alpha float64, grid []int) ([][]float64, bool) {
		grids = append(grids, grid)
		if alpha == 3 {
			return nil, false
		}
		var out [][]float64
		for _, l := range grid {
			b := make([]float64, l*m)
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			out = append(out, b)
		}
		betas[alpha] = out
		return out, true
	}
	pts, best := h.CheckpointRidges(cps, 5, []float64{1, 3, 10}, hv, L, solve)
	if len(grids) != 3 || len(grids[0]) != 2 || grids[0][0] != 2 || grids[0][1] != 4 {
		t.Fatalf("grids %v, want [2 4] for each term", grids)
	}
	if len(pts) != 4 {
		t.Fatalf("%d scores, want 4 (the term that cannot be solved left out)", len(pts))
	}
	var want Point
	var wantBeta []float64
	k := 0
	for _, alpha := range []float64{1, 10} {
		for i, l := range []int{2, 4} {
			s := h.Score(l, alpha, betas[alpha][i], hv, L)
			if pts[k] != s {
				t.Errorf("score %d = %+v, want %+v", k, pts[k], s)
			}
			if wantBeta == nil || s.Better(want, true) {
				want, wantBeta = s, betas[alpha][i]
			}
			k++
		}
	}
	if &best[0] != &wantBeta[0] {
		t.Error("the best weights are not the best score's")
	}
	if pts, best := h.CheckpointRidges(cps, 5, []float64{3}, hv, L, solve); pts != nil || best != nil {
		t.Errorf("no term solved: %v, %v", pts, best)
	}
}
