package budget

import (
	"testing"
	"time"
)

func TestFitClock(t *testing.T) {
	start := time.Unix(0, 0)
	now := start
	clock := Clock{Duration: 10 * time.Second, Start: start, Now: func() time.Time { return now }}
	if clock.Left(start.Add(4*time.Second)) != 6 {
		t.Fatal("Left")
	}
	// Rates that make a block of 100 nodes on 1000 images cost a second.
	pl := Plan{Nodes: 300, MaxNodes: 1000, BlockSize: 100, Ridges: []float64{1}, Rates: Rates{Score: 1e-5}}
	f := NewFit(clock, pl, 1000, 100, 10, 784, start, false)
	stopped := 0
	for l := 100; l <= 1000; l += 100 {
		now = now.Add(time.Second)
		if f.Checkpoint(l, now, 0.5, 0.4, l != 200) {
			stopped = l
			break
		}
	}
	if stopped == 0 || stopped > 900 || !f.ByClock {
		t.Fatalf("the clock stopped the fit at %d (by clock %v)", stopped, f.ByClock)
	}
	cps := f.Record.Checkpoints
	if len(cps) != stopped/100 || cps[0].Elapsed != time.Second || cps[0].Accuracy != 0.5 || cps[0].RMSE != 0.4 || cps[1].Accuracy != 0 || cps[1].RMSE != 0 {
		t.Fatalf("checkpoints %+v", cps)
	}
	r := f.End(stopped, "tolerance", now.Add(time.Second))
	if r.Stopped != "budget" || r.FitNodes != stopped || r.Elapsed != time.Duration(stopped/100+1)*time.Second || r.Budget != 10*time.Second || r.Plan.Nodes != 300 {
		t.Fatalf("record %+v", r)
	}
	// Not stopped by the clock: the plan's cap, or the fit's own stop.
	for _, tc := range []struct {
		nodes int
		want  string
	}{{1000, "plan"}, {400, "tolerance"}} {
		g := NewFit(Clock{Duration: time.Hour, Start: start, Now: clock.Now}, pl, 1000, 100, 10, 784, start, false)
		if g.Checkpoint(100, start.Add(time.Second), 0, 0, false) {
			t.Fatal("an hour's budget stopped after a second")
		}
		if r := g.End(tc.nodes, "tolerance", start); r.Stopped != tc.want {
			t.Errorf("%d nodes: stopped %q, want %q", tc.nodes, r.Stopped, tc.want)
		}
	}
	// A staged fit: checkpoints are recorded, the stages decide.
	now = start
	s := NewFit(clock, pl, 1000, 100, 10, 784, start, true)
	if s.Checkpoint(100, start.Add(20*time.Second), 0, 0, false) || s.ByClock {
		t.Fatal("a staged fit's checkpoint stopped it")
	}
	if n := s.Stage(0); n < 100 || n%100 != 0 || s.ByClock {
		t.Fatalf("first stage %d (by clock %v)", n, s.ByClock)
	}
	now = start.Add(11 * time.Second)
	if n := s.Stage(300); n != 0 || !s.ByClock {
		t.Fatalf("past the budget: stage %d (by clock %v)", n, s.ByClock)
	}
}

func TestProbeDesign(t *testing.T) {
	a, b := ProbeSample(10000, 7), ProbeSample(10000, 7)
	if len(a) != ProbeImages {
		t.Fatalf("%d images sampled of 10000", len(a))
	}
	seen := map[int]bool{}
	for i, v := range a {
		if v != b[i] || v < 0 || v >= 10000 || seen[v] || (i > 0 && v <= a[i-1]) {
			t.Fatalf("sample %d = %d: not a sorted, repeatable draw of distinct images", i, v)
		}
		seen[v] = true
	}
	if c := ProbeSample(10000, 8); c[0] == a[0] && c[1] == a[1] && c[2] == a[2] {
		t.Error("the seed does not change the sample")
	}
	if s := ProbeSample(30, 1); len(s) != 30 || s[0] != 0 || s[29] != 29 {
		t.Errorf("a small set is probed whole: %v", s)
	}
	for _, tc := range []struct{ in, nodes, block int }{{0, 2, 1}, {100, 200, 100}, {500, 1000, 500}, {800, 1000, 800}, {2000, 1000, 1000}} {
		if n, b := ProbeNodes(tc.in); n != tc.nodes || b != tc.block {
			t.Errorf("ProbeNodes(%d) = %d, %d; want %d, %d", tc.in, n, b, tc.nodes, tc.block)
		}
	}
}
