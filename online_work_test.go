package scn

import (
	"bytes"
	"math"
	"slices"
	"testing"
)

// TestOnlineFactorReuse: refactor holds its factor whole (F below the
// diagonal, exactly the packed factor Stats.Factorize forms, and F^T
// mirrored above it), and forms each new factor in the values of the one
// it replaced once nothing can read them, so that a stream of solves
// allocates two factors and no more: at once outside frozen solves,
// whatever those values were (NaN: none is read); for a factor a Commit
// replaced, only after the frozen solve's release; never a factor
// Snapshot handed out. Saved statistics hold the same bytes whole or
// packed.
func TestOnlineFactorReuse(t *testing.T) {
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
	l := o.st.Nodes()
	_, ref := o.Snapshot() // symmetric G of the same sums
	if err := ref.Factorize(c.Ridge); err != nil {
		t.Fatal(err)
	}
	first := o.fac
	if !first.full || len(first.p) != l*l {
		t.Fatalf("a factor of %d values (full %v), want the %d of an L x L array", len(first.p), first.full, l*l)
	}
	for i := 0; i < l; i++ {
		if !slices.Equal(first.tri().Row(i), ref.Factor.tri().Row(i)) {
			t.Fatalf("row %d of the factor differs from Factorize's", i)
		}
		for j := 0; j < i; j++ {
			if first.p[j*l+i] != first.p[i*l+j] {
				t.Fatalf("(%d, %d) above the diagonal is not F's (%d, %d)", j, i, i, j)
			}
		}
	}
	want := slices.Clone(first.p)

	// Snapshot above handed the first factor out: never written again.
	if err := o.refactor(); err != nil {
		t.Fatal(err)
	}
	second := o.fac
	if &second.p[0] == &first.p[0] || !slices.Equal(first.p, want) || o.spareFac != nil {
		t.Fatal("a refactor reused a factor Snapshot handed out")
	}
	if !slices.Equal(second.p, want) {
		t.Fatal("the same sums gave another factor")
	}
	// A factor no one else holds is reused at once, whatever it held.
	for i := range o.fac.p {
		o.fac.p[i] = math.NaN()
	}
	if err := o.refactor(); err != nil {
		t.Fatal(err)
	}
	if o.spareFac == nil || &o.spareFac[0] != &second.p[0] {
		t.Fatal("the replaced factor's values were not kept for the next refactor")
	}
	third := o.fac
	if err := o.refactor(); err != nil {
		t.Fatal(err)
	}
	if &o.fac.p[0] != &second.p[0] || !slices.Equal(o.fac.p, want) {
		t.Fatal("refactor did not form its factor, the same bits, in the values of the one it replaced")
	}

	// A frozen solve: its factor is formed in the Online's spare values
	// (third's), never in the Online's current one; the factor its Commit
	// replaces is reused after its release only.
	cur := o.fac
	fz := o.Freeze()
	if o.spareFac != nil || fz.fo.spareFac == nil || &fz.fo.spareFac[0] != &third.p[0] {
		t.Fatal("the frozen solve did not take the Online's spare values")
	}
	if err := fz.fo.refactor(); err != nil {
		t.Fatal(err)
	}
	if &fz.fo.fac.p[0] != &third.p[0] || fz.fo.spareFac != nil {
		t.Fatal("the frozen solve's factor was not formed in the spare values, or it kept its parent's")
	}
	if _, err := fz.Solve(); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Commit(fz); err != nil {
		t.Fatal(err)
	}
	if o.spareFac != nil {
		t.Fatal("the replaced factor's values were taken back before the frozen solve's release")
	}
	o.Release(fz)
	if o.spareFac == nil || &o.spareFac[0] != &cur.p[0] || !slices.Equal(cur.p, want) {
		t.Fatal("Release did not keep the replaced factor's values, unchanged until then")
	}
	if !slices.Equal(o.fac.p, want) {
		t.Fatal("the frozen solve's factor differs from the Online's own of the same sums")
	}

	// A stored factor (packed, from a statistics file) is held whole.
	st := statsT(t, m, a)
	if err := st.Factorize(c.Ridge); err != nil {
		t.Fatal(err)
	}
	packed := st.Factor
	o2, err := NewOnline(m, st, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !o2.fac.full || o2.fac.N != packed.N || o2.fac.Ridge != packed.Ridge {
		t.Fatalf("a stored factor held as %+v", o2.fac)
	}
	for i := 0; i < l; i++ {
		if !slices.Equal(o2.fac.tri().Row(i), packed.tri().Row(i)) {
			t.Fatalf("row %d of the stored factor changed", i)
		}
		for j := 0; j < i; j++ {
			if o2.fac.p[j*l+i] != o2.fac.p[i*l+j] {
				t.Fatalf("(%d, %d) of the stored factor not mirrored", j, i)
			}
		}
	}

	// Saved, a whole factor is the packed one's bytes.
	_, s1 := o.Snapshot()
	s2 := *s1
	s2.Factor = factorOf(o.fac.p, l, o.fac.N, o.fac.Ridge)
	var b1, b2 []byte
	for i, s := range []*Stats{s1, &s2} {
		path := t.TempDir() + "/s.scnstats"
		if err := s.Save(path); err != nil {
			t.Fatal(err)
		}
		st, err := LoadStats(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Factor == nil || st.Factor.full {
			t.Fatal("read back without a packed factor")
		}
		var buf bytes.Buffer
		if _, err := s.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		raw := buf.Bytes()
		if i == 0 {
			b1 = raw
		} else {
			b2 = raw
		}
	}
	if !slices.Equal(b1, b2) {
		t.Fatal("statistics with the factor whole and packed differ in their bytes")
	}
}
