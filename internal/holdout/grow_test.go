package holdout

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// fitted is a fit of nodes whose curve is early up to half its nodes,
// late past it, and whose choice is the better of the two.
func fitted(nodes int, early, late float64) Fitted {
	e := Point{Nodes: nodes / 4, Accuracy: early}
	l := Point{Nodes: nodes, Accuracy: late}
	best := e
	if l.Better(e, true) {
		best = l
	}
	return Fitted{Best: best, Curve: []Point{e, l}, FitNodes: nodes, Held: 1000}
}

func TestGrowth(t *testing.T) {
	now := time.Unix(1000, 0)
	if GrowLimit(0, 100, 5000) != 5000 || GrowLimit(0, 10, 5000) != 640 || GrowLimit(9000, 10, 5000) != 5000 || GrowLimit(300, 10, 5000) != 300 {
		t.Fatal("GrowLimit")
	}
	// Growth while the second half gains, until a fit gains nothing over
	// the last: that fit is not kept.
	g := Growth{Limit: 10000}
	steps := []struct {
		f          Fitted
		keep       bool
		next       int
		nodes      int
		reasonPart string
	}{
		{fitted(100, 0.70, 0.80), true, 200, 100, ""},
		{fitted(200, 0.75, 0.86), true, 400, 200, ""},
		{fitted(400, 0.80, 0.861), false, 0, 400, "400 nodes gave no gain over 200"},
	}
	for i, s := range steps {
		keep, next := g.Next(s.f, s.nodes, true, time.Second, now)
		if keep != s.keep || next != s.next || !strings.Contains(g.Reason, s.reasonPart) {
			t.Fatalf("fit %d: keep %v next %d (%q), want %v %d", i, keep, next, g.Reason, s.keep, s.next)
		}
	}
	if got := g.Record(); got != "fits of 100, 200, 400 nodes; growth stopped: held-out score stopped improving: 400 nodes gave no gain over 200" {
		t.Errorf("Record = %q", got)
	}
	for _, tc := range []struct {
		name string
		g    Growth
		f    Fitted
		took time.Duration
		want string
	}{
		{"short fit", Growth{Limit: 10000}, func() Fitted { f := fitted(80, 0.7, 0.8); f.Stop = "tolerance"; return f }(), time.Second, "the fit stopped at 80 of 100 nodes (tolerance)"},
		{"no late gain", Growth{Limit: 10000}, fitted(100, 0.8, 0.801), time.Second, "best at L = 100 of 100, no gain in the second half"},
		{"limit", Growth{Limit: 150}, fitted(100, 0.7, 0.8), time.Second, "growth limit: 200 nodes would pass 150"},
		{"deadline", Growth{Limit: 10000, Deadline: now.Add(time.Minute)}, fitted(100, 0.7, 0.8), 31 * time.Second, "time budget: a fit of 200 nodes"},
	} {
		keep, next := tc.g.Next(tc.f, 100, true, tc.took, now)
		if !keep || next != 0 || !strings.Contains(tc.g.Reason, tc.want) {
			t.Errorf("%s: keep %v next %d reason %q, want it kept, no next fit and %q", tc.name, keep, next, tc.g.Reason, tc.want)
		}
	}
	// Within the deadline at twice the pace: growth goes on.
	g = Growth{Limit: 10000, Deadline: now.Add(time.Minute)}
	if keep, next := g.Next(fitted(100, 0.7, 0.8), 100, true, 29*time.Second, now); !keep || next != 200 {
		t.Errorf("within the deadline: %v %d (%q)", keep, next, g.Reason)
	}
	g.Failed(200, errors.New("singular"))
	if !strings.HasSuffix(g.Record(), "the fit of 200 nodes failed (singular)") {
		t.Errorf("Record = %q", g.Record())
	}
	g.Stop("memory limit: too big")
	if !strings.HasSuffix(g.Record(), "memory limit: too big") {
		t.Errorf("Record = %q", g.Record())
	}
}
