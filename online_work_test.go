package scn

import (
	"math"
	"slices"
	"testing"
)

// TestOnlineRefactorScratch: refactor keeps its L x L scratch and gives
// the same factor, bit for bit, whatever the scratch held before (NaN
// above and below the diagonal: nothing of it is read), and a frozen
// solve takes the scratch from its Online and Release gives it back, so
// that a stream of solves allocates it once. A new factor is formed in the
// panels of the one it replaces when nothing else can read them: at once
// outside frozen solves, after the frozen solve's release for a factor a
// Commit replaced, never for a factor Snapshot handed out.
func TestOnlineRefactorScratch(t *testing.T) {
	p := blobProblem(t, 600)
	c := Paper(SCN2D)
	c.MaxNodes, c.Ridge = 40, 0.1
	a, b := subsetProblem(p, 0, 300), subsetProblem(p, 300, 600)
	m := fitT(t, c, a)
	o, err := NewOnline(m, statsT(t, m, a), 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Add(b); err != nil {
		t.Fatal(err)
	}
	if err := o.refactor(); err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(o.fac.p)
	fp := &o.fac.p[0]
	l := o.st.Nodes()
	if len(o.work) != l*l {
		t.Fatalf("scratch of %d values after refactor, want %d", len(o.work), l*l)
	}
	for i := range o.work {
		o.work[i] = math.NaN()
	}
	w := &o.work[0]
	if err := o.refactor(); err != nil {
		t.Fatal(err)
	}
	if &o.work[0] != w {
		t.Fatal("refactor allocated a new scratch")
	}
	if &o.fac.p[0] != fp {
		t.Fatal("refactor did not form its factor in the panels of the one it replaced")
	}
	if !slices.Equal(o.fac.p, want) {
		t.Fatal("the factor formed in a used scratch differs from the first")
	}

	old := o.fac
	fz := o.Freeze()
	if o.work != nil || fz.fo.work == nil || &fz.fo.work[0] != w {
		t.Fatal("the frozen solve did not take the Online's scratch")
	}
	if err := fz.fo.refactor(); err != nil {
		t.Fatal(err)
	}
	if _, err := fz.Solve(); err != nil {
		t.Fatal(err)
	}
	if &fz.fo.fac.p[0] == fp {
		t.Fatal("a frozen solve formed its factor in its Online's current one")
	}
	if _, err := o.Commit(fz); err != nil {
		t.Fatal(err)
	}
	if o.panels != nil {
		t.Fatal("the replaced factor's panels were taken back before the frozen solve's release")
	}
	o.Release(fz)
	if len(o.panels) == 0 || &o.panels[0] != fp {
		t.Fatal("Release did not keep the replaced factor's panels")
	}
	if !slices.Equal(old.p, want) {
		t.Fatal("the replaced factor changed before it was reused")
	}
	if o.work == nil || &o.work[0] != w {
		t.Fatal("Release did not give the scratch back")
	}
	if !slices.Equal(o.fac.p, want) {
		t.Fatal("the frozen solve's factor differs from the Online's own of the same sums")
	}

	// A factor handed out by Snapshot is never written again.
	_, snap := o.Snapshot()
	keep := slices.Clone(snap.Factor.p)
	for range 2 {
		if err := o.refactor(); err != nil {
			t.Fatal(err)
		}
	}
	if &o.fac.p[0] == &snap.Factor.p[0] || !slices.Equal(snap.Factor.p, keep) {
		t.Fatal("a refactor wrote over the factor a Snapshot handed out")
	}
}
