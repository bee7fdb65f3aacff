package scn

import (
	"slices"
	"testing"
)

// TestOnlineFrozenSolve: a solve of frozen sums running while Add adds
// more images (on another goroutine: run under -race) gives the weights
// of the images before the freeze alone (those of a fresh Online fed only
// them, 1e-9 relative), its statistics hold those images only; after
// Commit the later images stay unsolved and the next solve holds them
// (a fresh Online fed every image), with forgetting too; classes added
// while solving get zero weights; a frozen solve commits once, to its
// own Online.
func TestOnlineFrozenSolve(t *testing.T) {
	p := blobProblem(t, 900)
	c := Paper(SCN2D)
	c.MaxNodes, c.Ridge = 40, 0.1
	a, b := subsetProblem(p, 0, 300), subsetProblem(p, 300, 900)
	m := fitT(t, c, a)
	fresh := func(forget float64, until int) *Model {
		o, err := NewOnline(m, statsT(t, m, a), forget)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range [][2]int{{0, 140}, {140, 400}, {400, 600}} {
			if r[0] >= until {
				break
			}
			if err := o.Add(subsetProblem(b, r[0], min(r[1], until))); err != nil {
				t.Fatal(err)
			}
		}
		got, err := o.Solve()
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, forget := range []float64{1, 0.999} {
		o, err := NewOnline(m, statsT(t, m, a), forget)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range [][2]int{{0, 140}, {140, 400}} {
			if err := o.Add(subsetProblem(b, r[0], r[1])); err != nil {
				t.Fatal(err)
			}
		}
		fz := o.Freeze()
		if fz.Images() != 400 || fz.Learnt() != 400 || fz.StatImages() != 700 {
			t.Fatalf("frozen: %d images to solve, %d learnt, %d in the statistics", fz.Images(), fz.Learnt(), fz.StatImages())
		}
		done := make(chan error)
		var fm *Model
		go func() {
			var err error
			fm, err = fz.Solve()
			done <- err
		}()
		if err := o.Add(subsetProblem(b, 400, 600)); err != nil { // while the solve runs
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		want := fresh(forget, 400)
		if d := relDiff(fm.Beta, want.Beta); d > 1e-9 {
			t.Errorf("forget %v: the frozen solve differs from a fresh Online fed the images before the freeze by %.3g", forget, d)
		}
		if sm, st := fz.Stats(); sm != fm || st.N != 700 {
			t.Errorf("forget %v: frozen statistics of %d images, want 700; model the solve's: %v", forget, st.N, sm == fm)
		}
		cm, err := o.Commit(fz)
		if err != nil || cm != fm || o.Model() != fm {
			t.Fatalf("commit: %v", err)
		}
		if o.Unsolved() != 200 || o.Images() != 900 {
			t.Errorf("after the commit: %d unsolved, %d images; want 200, 900", o.Unsolved(), o.Images())
		}
		if _, err := o.Commit(fz); err == nil {
			t.Error("a frozen solve committed twice")
		}
		// Released, the copy of G is the next frozen solve's.
		g := fz.f.Fo.L.S.G
		o.Release(fz)
		if st, _ := fz.Stats(); st != nil || fz.StatImages() != 700 {
			t.Error("a released frozen solve still gives its statistics")
		}
		if _, err := o.Commit(fz); err == nil {
			t.Error("a released frozen solve committed")
		}
		fz2 := o.Freeze()
		if &fz2.f.Fo.L.S.G[0] != &g[0] || fz2.Images() != 200 || fz2.StatImages() != 900 {
			t.Errorf("the next freeze: a new copy of G %v, %d images to solve, %d in the statistics", &fz2.f.Fo.L.S.G[0] != &g[0], fz2.Images(), fz2.StatImages())
		}
		if _, err := fz2.Solve(); err != nil {
			t.Fatal(err)
		}
		next, err := o.Commit(fz2)
		if err != nil || o.Unsolved() != 0 {
			t.Fatalf("commit: %v, %d unsolved", err, o.Unsolved())
		}
		if d := relDiff(next.Beta, fresh(forget, 600).Beta); d > 1e-9 {
			t.Errorf("forget %v: the solve after the frozen one differs from a fresh Online fed every image by %.3g", forget, d)
		}
		if d := relDiff(next.Beta, fm.Beta); d < 1e-6 {
			t.Errorf("forget %v: the later images changed nothing (%.3g)", forget, d)
		}
	}
	// Another Online's frozen solve, an unsolved one.
	o1, _ := NewOnline(m, statsT(t, m, a), 1)
	o2, _ := NewOnline(m, statsT(t, m, a), 1)
	if err := o1.Add(subsetProblem(b, 0, 50)); err != nil {
		t.Fatal(err)
	}
	fz := o1.Freeze()
	if _, err := o1.Commit(fz); err == nil {
		t.Error("an unsolved frozen solve committed")
	}
	if _, err := fz.Solve(); err != nil {
		t.Fatal(err)
	}
	if _, err := o2.Commit(fz); err == nil {
		t.Error("a frozen solve committed to another Online")
	}
	if _, err := fz.Solve(); err == nil {
		t.Error("a frozen solve solved twice")
	}
	if !m.IsClassifier() {
		return
	}
	// Classes added after the freeze: zero weights, the rest the solve's.
	if err := o1.AddClasses("zz"); err != nil {
		t.Fatal(err)
	}
	cm, err := o1.Commit(fz)
	if err != nil {
		t.Fatal(err)
	}
	fm, _ := fz.Stats()
	mo, mf := len(cm.Classes), len(fm.Classes)
	if mo != mf+1 || !slices.Equal(cm.Classes[:mf], fm.Classes) || o1.Unsolved() != 0 {
		t.Fatalf("classes after the commit %q, frozen %q", cm.Classes, fm.Classes)
	}
	for j := 0; j < len(fm.Beta)/mf; j++ {
		if !slices.Equal(cm.Beta[j*mo:j*mo+mf], fm.Beta[j*mf:(j+1)*mf]) || cm.Beta[j*mo+mf] != 0 {
			t.Fatalf("row %d of the weights after the commit differs from the frozen solve's", j)
		}
	}
}
