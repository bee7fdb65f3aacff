package timing

import (
	"math"
	"testing"
	"time"
)

// at returns the time s seconds after t0.
func at(t0 time.Time, s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// TestWatch: a model of 1 ms per node and a finish of 0.1 s; blocks of
// 10 nodes, a cap of 100, safety 0.5. Each decision is worked out by hand.
func TestWatch(t *testing.T) {
	t0 := time.Unix(1000, 0)
	w := &Watch{Run: Run{Fit: func(l int) float64 { return float64(l) * 1e-3 }, Finish: func(int) float64 { return 0.1 },
		Block: 10, MaxNodes: 100, Safety: 0.5, Start: t0}}
	// 10 nodes in 0.02 s: pace 2; the next block 2 * 0.01 and the finish
	// 2 * 0.1: 0.22 s, against half of 0.5 s left: go on.
	if w.Stop(10, at(t0, 0.02), 0.5) {
		t.Error("stopped with 0.22 s needed of 0.25")
	}
	// 20 nodes at 0.03 s: the average pace 1.5, the last block's 1 (0.01 s
	// for 0.01 s of model): 1.5; needs 0.015 + 0.15 = 0.165 against 0.16.
	if !w.Stop(20, at(t0, 0.03), 0.32) {
		t.Error("went on with 0.165 s needed of 0.16")
	}
	// A slow last block raises the pace: 30 nodes at 0.06 s (average 2),
	// the last 10 in 0.03 s (pace 3): 0.03 + 0.3 needed, 0.33 of 0.7 left.
	if w.Stop(30, at(t0, 0.06), 0.7) {
		t.Error("stopped with 0.33 s needed of 0.35")
	}
	w2 := *w
	w2.started = false
	w2.Start = t0
	w2.prevNodes = 0
	w2.Stop(20, at(t0, 0.02), 10)
	if !w2.Stop(30, at(t0, 0.08), 0.7) { // last pace 6: 0.06 + 0.6 > 0.35
		t.Error("the last block's pace is not used")
	}
	// At the cap the fit is never stopped by the clock (it ends anyway).
	if w.Stop(100, at(t0, 10), 0) {
		t.Error("stopped at the cap")
	}
	// A pace below 1 does not shrink the finish: 40 nodes at 0.01 s (pace
	// 0.25) need 0.0025 + 0.1 against 0.2 * 0.5.
	w3 := &Watch{Run: w.Run}
	if !w3.Stop(40, at(t0, 0.01), 0.2) {
		t.Error("a fast pace scaled the finish down")
	}
}

// TestStages: the first stage a quarter of the plan in whole blocks, the
// next ones as many blocks as 0.9 of the time left after the finish pays
// for at the pace measured, and 0 with the clock's flag when none fits.
func TestStages(t *testing.T) {
	t0 := time.Unix(2000, 0)
	// A model of 1 ms per node, no rescoring cost (Score 0), a finish of
	// 0.1 s, blocks of 10, a plan of 100 and a cap of 200, safety 1.
	s := &Stages{Run: Run{Fit: func(l int) float64 { return float64(l) * 1e-3 }, Finish: func(int) float64 { return 0.1 },
		Block: 10, MaxNodes: 200, Safety: 1, Start: t0}, Train: 1000, Nodes: 100}
	if n, clock := s.Next(0, at(t0, 0.5), 9); n != 20 || clock {
		t.Errorf("first stage %d %v, want 20 (a quarter of 100 in whole blocks)", n, clock)
	}
	// 20 nodes took 0.04 s (pace 2): left 1 - 2*0.1 = 0.8; 0.9 * 0.8 =
	// 0.72 pays for 2 * 0.001 * n: n = 360, capped at 200 - 20 = 180.
	if n, clock := s.Next(20, at(t0, 0.54), 1); n != 180 || clock {
		t.Errorf("second stage %d %v, want 180", n, clock)
	}
	// Now 180 more took 0.9 s (pace 5); 0.6 s left - 5 * 0.1: 0.1 pays
	// for 0.1 / 0.005 = 20 nodes, 0.09 for 18: one block.
	s.MaxNodes = 1000
	if n, clock := s.Next(200, at(t0, 1.44), 0.6); n != 10 || clock {
		t.Errorf("third stage %d %v, want 10", n, clock)
	}
	// Not one block: 0 and the clock.
	if n, clock := s.Next(210, at(t0, 1.49), 0.5); n != 0 || !clock {
		t.Errorf("fourth stage %d %v, want 0 and the clock", n, clock)
	}
	// The rescoring cost: Score per image and earlier node.
	r := &Stages{Run: Run{Fit: s.Fit}, Score: 1e-6, Train: 1000}
	if c := r.cost(100, 10); math.Abs(c-(0.01+1000*100*1e-6)) > 1e-15 {
		t.Errorf("cost %v", c)
	}
	// Small plans still fit a block.
	q := &Stages{Run: Run{Fit: s.Fit, Finish: s.Finish, Block: 64, MaxNodes: 640, Safety: 1, Start: t0}, Nodes: 100}
	if n, _ := q.Next(0, t0, 100); n != 64 {
		t.Errorf("first stage of a small plan %d, want 64", n)
	}
}
