package holdout

import (
	"math"
	"testing"
)

// TestPointOrder: accuracy first for classification, then RMSE, fewer
// nodes, the larger ridge; RMSE first for regression.
func TestPointOrder(t *testing.T) {
	a := Point{Nodes: 10, Ridge: 1, Accuracy: 0.9, RMSE: 0.5}
	for i, c := range []struct {
		s, t     Point
		classify bool
		want     bool
	}{
		{a, Point{Nodes: 10, Ridge: 1, Accuracy: 0.8, RMSE: 0.1}, true, true},   // accuracy beats RMSE
		{a, Point{Nodes: 10, Ridge: 1, Accuracy: 0.8, RMSE: 0.1}, false, false}, // regression: RMSE
		{a, Point{Nodes: 10, Ridge: 1, Accuracy: 0.9, RMSE: 0.6}, true, true},
		{a, Point{Nodes: 5, Ridge: 1, Accuracy: 0.9, RMSE: 0.5}, true, false},   // fewer nodes win
		{a, Point{Nodes: 10, Ridge: 0.1, Accuracy: 0.9, RMSE: 0.5}, true, true}, // the larger ridge wins
		{a, a, true, false},
	} {
		if got := c.s.Better(c.t, c.classify); got != c.want {
			t.Errorf("case %d: Better %v, want %v", i, got, c.want)
		}
	}
	if !a.PrimaryBetter(Point{Accuracy: 0.8}, true) || a.PrimaryBetter(Point{RMSE: 0.4}, false) {
		t.Error("PrimaryBetter")
	}
}

// TestGains: one standard error of the held-out score, by hand: accuracy
// 0.8 on 100 images has sqrt(0.16 / 100) = 0.04; an RMSE of 1 on 50
// images 1 / sqrt(100) = 0.1.
func TestGains(t *testing.T) {
	base := Point{Accuracy: 0.8, RMSE: 1}
	if (Point{Accuracy: 0.839}).Gains(base, true, 100) || !(Point{Accuracy: 0.841}).Gains(base, true, 100) {
		t.Error("classification: the threshold is not 0.04")
	}
	if (Point{RMSE: 0.901}).Gains(base, false, 50) || !(Point{RMSE: 0.899}).Gains(base, false, 50) {
		t.Error("regression: the threshold is not 0.1")
	}
	if s := (Point{Accuracy: 0.81}); s.Gains(base, true, 0) != s.Gains(base, true, 1) {
		t.Error("no held-out image is not counted as one")
	}
}

// TestPool: two folds of 30 and 10 images; a point only the first fold
// scored, and one past the nodes every fold reached, are left out; the
// means are over images, worked out by hand, in the order first scored.
func TestPool(t *testing.T) {
	var p Pool
	p.Add([]Point{
		{Nodes: 20, Ridge: 1, Accuracy: 0.5, RMSE: 2},
		{Nodes: 10, Ridge: 1, Accuracy: 0.6, RMSE: 1},
		{Nodes: 10, Ridge: 1, Direct: true, Accuracy: 0.7, RMSE: 1},
		{Nodes: 40, Ridge: 1, Accuracy: 0.9, RMSE: 1},
	}, 30)
	p.Add([]Point{
		{Nodes: 10, Ridge: 1, Accuracy: 0.2, RMSE: 3},
		{Nodes: 20, Ridge: 1, Accuracy: 1, RMSE: 0},
		{Nodes: 40, Ridge: 1, Accuracy: 0.9, RMSE: 1},
	}, 10)
	if p.Held() != 40 {
		t.Fatalf("held %d", p.Held())
	}
	got := p.Means(30)
	want := []Point{
		{Nodes: 20, Ridge: 1, Accuracy: (30*0.5 + 10*1) / 40, RMSE: math.Sqrt((30*4 + 0) / 40.0)},
		{Nodes: 10, Ridge: 1, Accuracy: (30*0.6 + 10*0.2) / 40, RMSE: math.Sqrt((30*1 + 10*9) / 40.0)},
	}
	if len(got) != len(want) {
		t.Fatalf("means %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Nodes != w.Nodes || g.Ridge != w.Ridge || g.Direct || math.Abs(g.Accuracy-w.Accuracy) > 1e-15 || math.Abs(g.RMSE-w.RMSE) > 1e-15 {
			t.Errorf("point %d: %+v, want %+v", i, g, w)
		}
	}
	if len(p.Means(40)) != 3 {
		t.Error("a point every fold scored within the nodes is left out")
	}
	var empty Pool
	if empty.Means(10) != nil || empty.Held() != 0 {
		t.Error("an empty pool has means")
	}
}

// TestPickDirect: the best plain point unless the best direct-link one
// gains more than a standard error (0.04 at accuracy 0.8 on 100 images).
func TestPickDirect(t *testing.T) {
	plain := []Point{{Nodes: 10, Accuracy: 0.7}, {Nodes: 20, Accuracy: 0.8}, {Nodes: 30, Accuracy: 0.8}}
	if got := Pick(plain, true); got.Nodes != 20 {
		t.Errorf("Pick %+v, want 20 nodes (fewer at equal accuracy)", got)
	}
	small := append(plain[:3:3], Point{Nodes: 5, Direct: true, Accuracy: 0.83})
	if got := PickDirect(small, true, 100); got.Direct || got.Nodes != 20 {
		t.Errorf("a gain of 0.03 chose %+v", got)
	}
	large := append(plain[:3:3], Point{Nodes: 5, Direct: true, Accuracy: 0.85})
	if got := PickDirect(large, true, 100); !got.Direct {
		t.Errorf("a gain of 0.05 chose %+v", got)
	}
	if got := PickDirect(plain, true, 100); got.Nodes != 20 {
		t.Errorf("no direct point: %+v", got)
	}
	only := []Point{{Nodes: 5, Direct: true, RMSE: 2}, {Nodes: 6, Direct: true, RMSE: 1}}
	if got := PickDirect(only, false, 100); got.Nodes != 6 {
		t.Errorf("direct points only: %+v", got)
	}
}

func TestFallback(t *testing.T) {
	failed := Point{Nodes: 50, Ridge: 1e-4, Accuracy: 0.9}
	scores := []Point{
		failed,
		{Nodes: 50, Ridge: 1e-2, Accuracy: 0.85},
		{Nodes: 40, Ridge: 1e-3, Accuracy: 0.88},
		{Nodes: 60, Ridge: 1, Accuracy: 0.95},               // more nodes
		{Nodes: 30, Ridge: 1, Accuracy: 0.99, Direct: true}, // direct links
		{Nodes: 30, Ridge: 1e-5, Accuracy: 0.99},            // a smaller ridge term
	}
	got, ok := Fallback(scores, failed, true)
	if !ok || got != scores[2] {
		t.Fatalf("Fallback = %+v, %v; want %+v", got, ok, scores[2])
	}
	if _, ok := Fallback(scores[3:], failed, true); ok {
		t.Fatal("a fallback among no admissible scores")
	}
}
