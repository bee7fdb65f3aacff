package scn

import (
	"slices"
	"testing"

	"github.com/scn2d/scn/internal/par"
)

// TestOnlineDeferredSolve: Add only adds sums (the model stays the last
// solve's, Unsolved counts the images), and one Solve after several Adds
// gives the output weights scn update gives with the same images (1e-9
// relative), with and without forgetting matching Learn's; a Solve with
// nothing added returns the same model; and the passes, solves and
// snapshot are the same bits with their loops limited to one goroutine
// (par.Limited, what scn serve --learn-workers uses) as unlimited.
func TestOnlineDeferredSolve(t *testing.T) {
	p := blobProblem(t, 900)
	c := Paper(SCN2D)
	c.MaxNodes, c.Ridge = 40, 0.1
	a, b := subsetProblem(p, 0, 300), subsetProblem(p, 300, 900)
	m := fitT(t, c, a)
	want, _, err := m.Update(statsT(t, m, a), b, false)
	if err != nil {
		t.Fatal(err)
	}
	run := func(workers int, forget float64, solveEach bool) (*Online, *Model) {
		var o *Online
		var got *Model
		par.Limited(workers, func() {
			var err error
			if o, err = NewOnline(m, statsT(t, m, a), forget); err != nil {
				t.Fatal(err)
			}
			for _, r := range [][2]int{{0, 1}, {1, 140}, {140, 600}} {
				before := o.Model()
				if err := o.Add(subsetProblem(b, r[0], r[1])); err != nil {
					t.Fatal(err)
				}
				if o.Model() != before {
					t.Error("Add changed the model")
				}
				if solveEach {
					if _, err := o.Solve(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !solveEach && o.Unsolved() != 600 {
				t.Errorf("unsolved %d images, want 600", o.Unsolved())
			}
			if got, err = o.Solve(); err != nil {
				t.Fatal(err)
			}
		})
		if o.Unsolved() != 0 || o.Learnt() != 600 || o.Images() != 900 {
			t.Errorf("after Solve: unsolved %d, learnt %d, images %d", o.Unsolved(), o.Learnt(), o.Images())
		}
		return o, got
	}
	o, got := run(0, 1, false)
	if d := relDiff(got.Beta, want.Beta); d > 1e-9 {
		t.Errorf("one solve after three passes differs from scn update by %.3g", d)
	}
	if again, err := o.Solve(); err != nil || again != got {
		t.Errorf("a solve with nothing added: %v, a new model %v", err, again != got)
	}
	if sm, snap := o.Snapshot(); sm != got || snap.N != 900 {
		t.Errorf("snapshot of %d images, model the last solve's %v", snap.N, sm == got)
	}
	_, each := run(0, 1, true)
	if d := relDiff(each.Beta, got.Beta); d > 1e-9 {
		t.Errorf("a solve per pass and one at the end differ by %.3g", d)
	}
	// Forgetting: deferred solves weigh the images as Learn does.
	_, fd := run(0, 0.999, false)
	_, fe := run(0, 0.999, true)
	if d := relDiff(fd.Beta, fe.Beta); d > 1e-9 {
		t.Errorf("forgetting: deferred and per-pass solves differ by %.3g", d)
	}
	// The same bits on one goroutine.
	o1, one := run(1, 1, false)
	if !slices.Equal(one.Beta, got.Beta) {
		t.Errorf("beta with the loops on one goroutine differs (%.3g)", relDiff(one.Beta, got.Beta))
	}
	_, s0 := o.Snapshot()
	_, s1 := o1.Snapshot()
	if !slices.Equal(s0.G, s1.G) || !slices.Equal(s0.HT, s1.HT) {
		t.Error("statistics with the loops on one goroutine differ")
	}
}
