package scn

import (
	"bytes"
	"github.com/scn2d/scn/internal/suffstats"
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
	if err := o.c.L.Refactor(); err != nil {
		t.Fatal(err)
	}
	l := o.c.L.S.L
	_, ref := o.Snapshot() // symmetric G of the same sums
	if err := ref.Factorize(c.Ridge); err != nil {
		t.Fatal(err)
	}
	first := o.c.L.Fac
	if !suffstats.IsWhole(first) || len(suffstats.Values(first)) != l*l {
		t.Fatalf("a factor of %d values (full %v), want the %d of an L x L array", len(suffstats.Values(first)), suffstats.IsWhole(first), l*l)
	}
	for i := 0; i < l; i++ {
		if !slices.Equal(suffstats.Tri(first).Row(i), suffstats.Tri(ref.Factor).Row(i)) {
			t.Fatalf("row %d of the factor differs from Factorize's", i)
		}
		for j := 0; j < i; j++ {
			if suffstats.Values(first)[j*l+i] != suffstats.Values(first)[i*l+j] {
				t.Fatalf("(%d, %d) above the diagonal is not F's (%d, %d)", j, i, i, j)
			}
		}
	}
	want := slices.Clone(suffstats.Values(first))

	// Snapshot above handed the first factor out: never written again.
	if err := o.c.L.Refactor(); err != nil {
		t.Fatal(err)
	}
	second := o.c.L.Fac
	if &suffstats.Values(second)[0] == &suffstats.Values(first)[0] || !slices.Equal(suffstats.Values(first), want) || o.c.L.SpareFactor() != nil {
		t.Fatal("a refactor reused a factor Snapshot handed out")
	}
	if !slices.Equal(suffstats.Values(second), want) {
		t.Fatal("the same sums gave another factor")
	}
	// A factor no one else holds is reused at once, whatever it held.
	for i := range suffstats.Values(o.c.L.Fac) {
		suffstats.Values(o.c.L.Fac)[i] = math.NaN()
	}
	if err := o.c.L.Refactor(); err != nil {
		t.Fatal(err)
	}
	if o.c.L.SpareFactor() == nil || &o.c.L.SpareFactor()[0] != &suffstats.Values(second)[0] {
		t.Fatal("the replaced factor's values were not kept for the next refactor")
	}
	third := o.c.L.Fac
	if err := o.c.L.Refactor(); err != nil {
		t.Fatal(err)
	}
	if &suffstats.Values(o.c.L.Fac)[0] != &suffstats.Values(second)[0] || !slices.Equal(suffstats.Values(o.c.L.Fac), want) {
		t.Fatal("refactor did not form its factor, the same bits, in the values of the one it replaced")
	}

	// A frozen solve: its factor is formed in the Online's spare values
	// (third's), never in the Online's current one; the factor its Commit
	// replaces is reused after its release only.
	cur := o.c.L.Fac
	fz := o.Freeze()
	if o.c.L.SpareFactor() != nil || fz.f.Fo.L.SpareFactor() == nil || &fz.f.Fo.L.SpareFactor()[0] != &suffstats.Values(third)[0] {
		t.Fatal("the frozen solve did not take the Online's spare values")
	}
	if err := fz.f.Fo.L.Refactor(); err != nil {
		t.Fatal(err)
	}
	if &suffstats.Values(fz.f.Fo.L.Fac)[0] != &suffstats.Values(third)[0] || fz.f.Fo.L.SpareFactor() != nil {
		t.Fatal("the frozen solve's factor was not formed in the spare values, or it kept its parent's")
	}
	if _, err := fz.Solve(); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Commit(fz); err != nil {
		t.Fatal(err)
	}
	if o.c.L.SpareFactor() != nil {
		t.Fatal("the replaced factor's values were taken back before the frozen solve's release")
	}
	o.Release(fz)
	if o.c.L.SpareFactor() == nil || &o.c.L.SpareFactor()[0] != &suffstats.Values(cur)[0] || !slices.Equal(suffstats.Values(cur), want) {
		t.Fatal("Release did not keep the replaced factor's values, unchanged until then")
	}
	if !slices.Equal(suffstats.Values(o.c.L.Fac), want) {
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
	if !suffstats.IsWhole(o2.c.L.Fac) || o2.c.L.Fac.N != packed.N || o2.c.L.Fac.Ridge != packed.Ridge {
		t.Fatalf("a stored factor held as %+v", o2.c.L.Fac)
	}
	for i := 0; i < l; i++ {
		if !slices.Equal(suffstats.Tri(o2.c.L.Fac).Row(i), suffstats.Tri(packed).Row(i)) {
			t.Fatalf("row %d of the stored factor changed", i)
		}
		for j := 0; j < i; j++ {
			if suffstats.Values(o2.c.L.Fac)[j*l+i] != suffstats.Values(o2.c.L.Fac)[i*l+j] {
				t.Fatalf("(%d, %d) of the stored factor not mirrored", j, i)
			}
		}
	}

	// Saved, a whole factor is the packed one's bytes.
	_, s1 := o.Snapshot()
	s2 := *s1
	s2.Factor = suffstats.FactorOf(suffstats.Values(o.c.L.Fac), l, o.c.L.Fac.N, o.c.L.Fac.Ridge)
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
		if st.Factor == nil || suffstats.IsWhole(st.Factor) {
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
