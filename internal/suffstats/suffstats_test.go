package suffstats

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/scn2d/scn/internal/lsq"
	"gonum.org/v1/gonum/mat"
)

// data is n rows of l hidden columns (row-major float32, as hidden
// outputs are) and one-hot targets of m classes.
type data struct {
	n, l, m int
	h       []float32
	t       []float64
}

func newData(seed uint64, n, l, m int) data {
	r := rand.New(rand.NewPCG(seed, 1))
	d := data{n: n, l: l, m: m, h: make([]float32, n*l), t: make([]float64, n*m)}
	for i := range d.h {
		d.h[i] = float32(r.NormFloat64())
	}
	for i := 0; i < n; i++ {
		d.t[i*m+r.IntN(m)] = 1
	}
	return d
}

// forRows calls f with the hidden outputs node-major, batch rows at a
// time (as scn's forHidden does).
func (d data) forRows(batch int, f func(lo, rows int, hb []float32)) {
	for lo := 0; lo < d.n; lo += batch {
		rows := min(batch, d.n-lo)
		hb := make([]float32, d.l*rows)
		for k := 0; k < rows; k++ {
			for j := 0; j < d.l; j++ {
				hb[j*rows+k] = d.h[(lo+k)*d.l+j]
			}
		}
		f(lo, rows, hb)
	}
}

// naive returns G, H^T T and T^T T by their definitions, each row scaled
// by w[i] (nil: 1).
func (d data) naive(w []float64) (g, ht, tt []float64) {
	l, m := d.l, d.m
	g, ht, tt = make([]float64, l*l), make([]float64, l*m), make([]float64, m*m)
	for i := 0; i < d.n; i++ {
		s := 1.0
		if w != nil {
			s = w[i]
		}
		for a := 0; a < l; a++ {
			ha := s * float64(d.h[i*l+a])
			for b := 0; b < l; b++ {
				g[a*l+b] += ha * s * float64(d.h[i*l+b])
			}
			for q := 0; q < m; q++ {
				ht[a*m+q] += ha * s * d.t[i*m+q]
			}
		}
		for p := 0; p < m; p++ {
			for q := 0; q < m; q++ {
				tt[p*m+q] += s * d.t[i*m+p] * s * d.t[i*m+q]
			}
		}
	}
	return g, ht, tt
}

// sums returns the Sums of d by AddRows, chunks of cw rows.
func (d data) sums(cw, batch int, classes []string) *Sums {
	l, m := d.l, d.m
	s := &Sums{L: l, M: m, N: d.n, G: make([]float64, l*l), HT: make([]float64, l*m), TT: make([]float64, m*m), Classes: classes}
	if classes != nil {
		s.ClassCounts = make([]int, m)
		for i := 0; i < d.n; i++ {
			for q := 0; q < m; q++ {
				if d.t[i*m+q] == 1 {
					s.ClassCounts[q]++
				}
			}
		}
	}
	cs := lsq.NewChunkSums(l, m, cw, s.G, s.HT, s.TT, nil, false)
	d.forRows(batch, func(lo, rows int, hb []float32) { AddRows(cs, l, lo, rows, hb, d.t, nil, nil) })
	cs.Flush()
	lsq.Symmetrize(s.G, l)
	return s
}

func maxRel(a, b []float64) float64 {
	var num, den float64
	for i := range a {
		num = max(num, math.Abs(a[i]-b[i]))
		den = max(den, math.Abs(b[i]))
	}
	return num / max(den, 1e-300)
}

// TestAddRows: the chunked products of rows, weighted and with direct
// features after the hidden outputs, are the sums by definition; the
// chunk width and the batches change the rounding only.
func TestAddRows(t *testing.T) {
	d := newData(1, 97, 6, 3)
	w := make([]float64, d.n)
	for i := range w {
		w[i] = 0.5 + float64(i%7)/7
	}
	// The last two columns as direct features.
	lh := d.l - 2
	direct := func(at, take int) []float64 {
		fd := make([]float64, 2*take)
		for j := 0; j < 2; j++ {
			for r := 0; r < take; r++ {
				fd[j*take+r] = float64(d.h[(at+r)*d.l+lh+j]) * w[at+r]
			}
		}
		return fd
	}
	g0, ht0, tt0 := d.naive(w)
	for _, cw := range []int{1, 16, 97} {
		l, m := d.l, d.m
		g, ht, tt := make([]float64, l*l), make([]float64, l*m), make([]float64, m*m)
		cs := lsq.NewChunkSums(l, m, cw, g, ht, tt, nil, false)
		d.forRows(10, func(lo, rows int, hb []float32) {
			AddRows(cs, lh, lo, rows, hb[:lh*rows], d.t, w, direct)
		})
		cs.Flush()
		lsq.Symmetrize(g, l)
		for name, p := range map[string][2][]float64{"G": {g, g0}, "HT": {ht, ht0}, "TT": {tt, tt0}} {
			if e := maxRel(p[0], p[1]); !(e < 1e-13) {
				t.Errorf("chunks of %d: %s differs from its definition by %.3g", cw, name, e)
			}
		}
	}
}

// TestMergeWithClasses: merged sums of two sets whose classes differ are
// the sums of their union in the merged class order; WithClasses refuses
// a list missing a class; regression and classification do not merge.
func TestMergeWithClasses(t *testing.T) {
	a, b := newData(2, 40, 5, 2), newData(3, 30, 5, 3)
	sa := a.sums(16, 7, []string{"x", "y"})
	sb := b.sums(16, 7, []string{"y", "z", "x"})
	sb.Factor = FactorOf(make([]float64, 25), 5, 30, 1)
	m, err := sa.Merge(sb, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Classes, []string{"x", "y", "z"}) || m.N != 70 || m.Factor != sb.Factor {
		t.Fatalf("merged classes %q, %d images, factor kept %v", m.Classes, m.N, m.Factor == sb.Factor)
	}
	// The union by definition: a's targets padded, b's permuted.
	u := data{n: 70, l: 5, m: 3, h: append(slices.Clone(a.h), b.h...), t: make([]float64, 70*3)}
	for i := 0; i < 40; i++ {
		copy(u.t[i*3:i*3+2], a.t[i*2:i*2+2])
	}
	perm := []int{1, 2, 0} // b's column q is the union's perm[q]
	for i := 0; i < 30; i++ {
		for q := 0; q < 3; q++ {
			u.t[(40+i)*3+perm[q]] = b.t[i*3+q]
		}
	}
	g, ht, tt := u.naive(nil)
	for name, p := range map[string][2][]float64{"G": {m.G, g}, "HT": {m.HT, ht}, "TT": {m.TT, tt}} {
		if e := maxRel(p[0], p[1]); !(e < 1e-13) {
			t.Errorf("%s of the merge differs from the union's by %.3g", name, e)
		}
	}
	want := make([]int, 3)
	for i := 0; i < 70; i++ {
		for q := 0; q < 3; q++ {
			if u.t[i*3+q] == 1 {
				want[q]++
			}
		}
	}
	if !slices.Equal(m.ClassCounts, want) {
		t.Errorf("class counts %v, want %v", m.ClassCounts, want)
	}
	if _, err := sb.WithClasses([]string{"x", "y"}); !errors.Is(err, ErrStats) {
		t.Errorf("a class list missing a class: %v", err)
	}
	r := a.sums(16, 7, nil)
	if _, err := r.Merge(sa, false); !errors.Is(err, ErrStats) {
		t.Errorf("regression and classification merged: %v", err)
	}
	if _, err := r.Merge(b.sums(16, 7, nil), false); !errors.Is(err, ErrStats) {
		t.Errorf("regressions of 2 and 3 targets merged: %v", err)
	}
	// Without G: the same HT and TT, no G.
	m2, err := sa.Merge(sb, false)
	if err != nil || m2.G != nil || !slices.Equal(m2.HT, m.HT) || !slices.Equal(m2.TT, m.TT) {
		t.Errorf("a merge without G: %v, G %v", err, m2.G != nil)
	}
}

// TestSolve: the ridge solve satisfies its normal equations, the
// pseudo-inverse solve is least squares, RMSE and NearRMSE are the
// residual's, and an unread G is read (and its error returned).
func TestSolve(t *testing.T) {
	d := newData(4, 60, 8, 3)
	s := d.sums(2048, 60, nil)
	h := mat.NewDense(d.n, d.l, nil)
	for i := 0; i < d.n; i++ {
		for j := 0; j < d.l; j++ {
			h.Set(i, j, float64(d.h[i*d.l+j]))
		}
	}
	tm := mat.NewDense(d.n, d.m, d.t)
	for _, ridge := range []float64{0, 0.5} {
		beta, err := s.Solve(ridge)
		if err != nil {
			t.Fatal(err)
		}
		b := mat.NewDense(d.l, d.m, beta)
		// (G + ridge I) beta - H^T T = 0.
		var lhs, rhs mat.Dense
		lhs.Mul(mat.NewDense(d.l, d.l, s.G), b)
		lhs.Add(&lhs, scaled(b, ridge))
		rhs.Sub(&lhs, mat.NewDense(d.l, d.m, s.HT))
		if e := mat.Norm(&rhs, math.Inf(1)) / mat.Norm(mat.NewDense(d.l, d.m, s.HT), math.Inf(1)); !(e < 1e-10) {
			t.Errorf("ridge %v: normal equations' residual %.3g", ridge, e)
		}
		var res mat.Dense
		res.Mul(h, b)
		res.Sub(tm, &res)
		want := mat.Norm(&res, 2) / math.Sqrt(float64(d.n*d.m))
		if got := s.RMSE(beta, ridge); math.Abs(got-want) > 1e-9*want {
			t.Errorf("ridge %v: RMSE %v, want %v", ridge, got, want)
		}
		if ridge > 0 {
			// NearRMSE: the residual from the normal equations beta solves.
			if got := s.NearRMSE(beta, ridge); math.Abs(got-want) > 1e-6*want {
				t.Errorf("NearRMSE %v, want %v", got, want)
			}
		}
	}
	lazy := *s
	lazy.G, lazy.LoadG = nil, func() ([]float64, error) { return nil, fmt.Errorf("%w: gone", ErrStats) }
	if _, err := lazy.Solve(1); err == nil || !errors.Is(err, ErrStats) {
		t.Errorf("an unreadable G: %v", err)
	}
	lazy.LoadG = func() ([]float64, error) { return slices.Clone(s.G), nil }
	if b1, err := lazy.Solve(1); err != nil || lazy.G == nil || lazy.LoadG != nil {
		t.Errorf("a G read on demand: %v", err)
	} else if b0, _ := s.Solve(1); !slices.Equal(b0, b1) {
		t.Error("a G read on demand solved to other weights")
	}
}

func scaled(b *mat.Dense, a float64) *mat.Dense {
	var out mat.Dense
	out.Scale(a, b)
	return &out
}

// TestFactor: Factorize's F F^T is G + ridge I, Lower gives F whole,
// whole and packed factors hold the same rows, CheckFactor refuses bad
// ones.
func TestFactor(t *testing.T) {
	d := newData(5, 400, 300, 2) // L past a panel (lsq.StatsPanel)
	s := d.sums(128, 100, nil)
	f, err := Factorize(s.G, s.L, s.N, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	l := s.L
	lo := mat.NewDense(l, l, f.Lower())
	var ff mat.Dense
	ff.Mul(lo, lo.T())
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			want := s.G[i*l+j]
			if i == j {
				want += 0.1
			}
			if math.Abs(ff.At(i, j)-want) > 1e-9*max(1, math.Abs(want)) {
				t.Fatalf("(F F^T)[%d, %d] = %v, want %v", i, j, ff.At(i, j), want)
			}
		}
	}
	if f.Nodes() != l || IsWhole(f) || CheckFactor(f, l, s.N) != nil {
		t.Fatalf("a factor of order %d, whole %v: %v", f.Nodes(), IsWhole(f), CheckFactor(f, l, s.N))
	}
	w := wholeFactor(f)
	if !IsWhole(w) || w.N != f.N || w.Ridge != f.Ridge || CheckFactor(w, l, s.N) != nil {
		t.Fatal("the whole factor lost its count, ridge or shape")
	}
	for i := 0; i < l; i++ {
		if !slices.Equal(Tri(w).Row(i), Tri(f).Row(i)) {
			t.Fatalf("row %d of the whole factor differs", i)
		}
		for j := 0; j < i; j++ {
			if Values(w)[j*l+i] != Values(w)[i*l+j] {
				t.Fatalf("(%d, %d) not mirrored", j, i)
			}
		}
	}
	if wholeFactor(w) != w {
		t.Error("a whole factor held again")
	}
	for name, bad := range map[string]*Factor{
		"more images": Packed(Values(f), l, s.N+1, 0.1),
		"no image":    Packed(Values(f), l, 0, 0.1),
		"ridge":       Packed(Values(f), l, s.N, math.NaN()),
		"size":        Packed(Values(f)[:l], l, s.N, 0.1),
		"order":       Packed(Values(f), l-1, s.N, 0.1),
		"diagonal":    Packed(make([]float64, lsq.PackedLen(l)), l, s.N, 0.1),
	} {
		if err := CheckFactor(bad, l, s.N); !errors.Is(err, ErrStats) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Factorize(make([]float64, 4), 2, 1, 0); err == nil {
		t.Error("a singular G factored")
	}
	if !(&Sums{L: l, N: s.N, Factor: f}).FreshFactor(0.1) || (&Sums{L: l, N: s.N + 1, Factor: f}).FreshFactor(0.1) {
		t.Error("FreshFactor")
	}
}

// TestSolveNear: the preconditioned conjugate gradients reach the direct
// solve of the merged sums with a fresh stored factor, a stale one, and
// one formed in place (old.G restored exactly).
func TestSolveNear(t *testing.T) {
	a, b := newData(6, 200, 20, 3), newData(7, 30, 20, 3)
	l, m := a.l, a.m
	old := a.sums(2048, 200, nil)
	fresh := &Sums{L: l, M: m, N: b.n, HT: make([]float64, l*m), TT: make([]float64, m*m)}
	cs := lsq.NewChunkSums(l, m, 16, nil, fresh.HT, fresh.TT, nil, true)
	b.forRows(9, func(lo, rows int, hb []float32) { AddRows(cs, l, lo, rows, hb, b.t, nil, nil) })
	cs.Flush()
	kept := cs.Kept()
	merged, err := old.Merge(fresh, false)
	if err != nil {
		t.Fatal(err)
	}
	merged.G = AddKept(old.G, kept, l)
	want, err := merged.Solve(0.3)
	if err != nil {
		t.Fatal(err)
	}
	g0 := slices.Clone(old.G)
	stale, _ := Factorize(old.G, l, old.N-1, 0.3) // "of fewer images"
	for name, fa := range map[string]*Factor{"formed": nil, "stale": stale} {
		o := *old
		o.Factor = fa
		beta, err := merged.SolveNear(&o, kept, 0.3)
		if err != nil || beta == nil {
			t.Fatalf("%s: %v", name, err)
		}
		if e := maxRel(beta, want); !(e < 1e-8) {
			t.Errorf("%s: the iterative solve differs from the direct by %.3g", name, e)
		}
		if !slices.Equal(old.G, g0) {
			t.Fatalf("%s: old's G was not restored", name)
		}
	}
	o := *old
	o.Factor, _ = Factorize(old.G, l, old.N, 0.3)
	o.G, o.LoadG = nil, func() ([]float64, error) { return nil, errors.New("G read with a fresh factor") }
	if beta, err := merged.SolveNear(&o, kept, 0.3); err != nil || maxRel(beta, want) > 1e-8 {
		t.Errorf("a fresh factor: %v", err)
	}
}

// TestLearner: accumulating with forgetting gives the weighted sums by
// definition; each solve solves the normal equations; a frozen copy
// solves what was there at the freeze while the live sums go on; the
// factors' values are reused only when nothing can read them.
func TestLearner(t *testing.T) {
	for _, forget := range []float64{1, 0.995} {
		a, b := newData(8, 150, 12, 3), newData(9, 70, 12, 3)
		st := a.sums(2048, 150, []string{"a", "b", "c"})
		lr, err := NewLearner(st, 0.2, forget)
		if err != nil {
			t.Fatal(err)
		}
		if !IsWhole(lr.Fac) || lr.Steps != -1 {
			t.Fatal("the learner's factor is not whole")
		}
		if err := lr.Accumulate(b.n, b.t, 1, func(f func(lo, rows int, hb []float32)) error {
			b.forRows(32, f)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		// By definition: a's sums scaled by forget^70, b's rows by
		// sqrt(forget^(69-i)).
		w := make([]float64, b.n)
		for i := range w {
			w[i] = math.Sqrt(math.Pow(forget, float64(b.n-1-i)))
		}
		g, ht, tt := b.naive(w)
		ga, hta, tta := a.naive(nil)
		decay := math.Pow(forget, float64(b.n))
		for i := range g {
			g[i] += decay * ga[i]
		}
		for i := range ht {
			ht[i] += decay * hta[i]
		}
		for i := range tt {
			tt[i] += decay * tta[i]
		}
		snap := lr.Snapshot()
		if snap.N != 220 || snap.Factor != lr.Fac || snap.LoadG != nil {
			t.Fatalf("forget %v: a snapshot of %d images", forget, snap.N)
		}
		for name, p := range map[string][2][]float64{"G": {snap.G, g}, "HT": {snap.HT, ht}, "TT": {snap.TT, tt}} {
			if e := maxRel(p[0], p[1]); !(e < 1e-12) {
				t.Errorf("forget %v: %s differs from its definition by %.3g", forget, name, e)
			}
		}
		beta, err := lr.Solve(make([]float64, 12*3))
		if err != nil {
			t.Fatal(err)
		}
		direct, _ := snap.Solve(0.2)
		if e := maxRel(beta, direct); !(e < 1e-8) {
			t.Errorf("forget %v: the learner's solve differs from the direct one by %.3g (%d steps)", forget, e, lr.Steps)
		}
		// Frozen: the copy solves the sums of the freeze.
		fo := lr.Freeze()
		if err := lr.Accumulate(a.n, a.t, 1, func(f func(lo, rows int, hb []float32)) error {
			a.forRows(50, f)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if fo.S.N != 220 || lr.S.N != 370 {
			t.Fatalf("frozen %d, live %d images", fo.S.N, lr.S.N)
		}
		fb, err := fo.Solve(slices.Clone(beta))
		if err != nil || maxRel(fb, direct) > 1e-8 {
			t.Errorf("forget %v: the frozen solve: %v", forget, err)
		}
		lr.Adopt(fo)
		lr.Release(fo)
		if lr.frozen != 0 || lr.spare == nil {
			t.Error("the frozen copy of G was not taken back")
		}
	}
}

// TestLearnerReuse: Refactor forms a factor in the values of the one it
// replaced when nothing else can read them: never in one Snapshot handed
// out, nor while a frozen solve is out (until its Release).
func TestLearnerReuse(t *testing.T) {
	a := newData(10, 100, 10, 2)
	lr, err := NewLearner(a.sums(2048, 100, nil), 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	first := lr.Fac
	want := slices.Clone(Values(first))
	if err := lr.Refactor(); err != nil {
		t.Fatal(err)
	}
	second := lr.Fac
	if lr.SpareFactor() == nil || &lr.SpareFactor()[0] != &Values(first)[0] || !slices.Equal(Values(second), want) {
		t.Fatal("a factor nothing reads was not kept for the next refactor")
	}
	lr.Snapshot() // hands the second out
	if err := lr.Refactor(); err != nil {
		t.Fatal(err)
	}
	if &Values(lr.Fac)[0] != &Values(first)[0] || lr.SpareFactor() != nil || !slices.Equal(Values(second), want) {
		t.Fatal("a refactor did not take the spare values, or kept a factor handed out")
	}
	cur := lr.Fac
	if err := lr.Refactor(); err != nil { // cur nothing else reads: spare
		t.Fatal(err)
	}
	third := lr.Fac
	fo := lr.Freeze()
	if lr.SpareFactor() != nil || fo.SpareFactor() == nil || &fo.SpareFactor()[0] != &Values(cur)[0] {
		t.Fatal("the frozen learner did not take the spare values")
	}
	if err := fo.Refactor(); err != nil {
		t.Fatal(err)
	}
	if &Values(fo.Fac)[0] != &Values(cur)[0] || fo.SpareFactor() != nil {
		t.Fatal("the frozen learner's factor was not formed in the spare values, or it kept its parent's")
	}
	lr.Adopt(fo)
	if lr.SpareFactor() != nil || lr.Fac != fo.Fac {
		t.Fatal("the replaced factor's values were taken back before the release")
	}
	lr.Release(fo)
	if lr.SpareFactor() == nil || &lr.SpareFactor()[0] != &Values(third)[0] || !slices.Equal(Values(third), want) {
		t.Fatal("Release did not keep the replaced factor's values, unchanged until then")
	}
}

// TestFile: sums written and read back are the same values, factor
// included; the sizes and the values are checked.
func TestFile(t *testing.T) {
	d := newData(11, 40, 7, 2)
	s := d.sums(2048, 40, []string{"p", "q"})
	s.Factor, _ = Factorize(s.G, s.L, s.N, 0.5)
	finite := func(v []float64, what string) error {
		for i, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%s %d is %v", what, i, x)
			}
		}
		return nil
	}
	var buf bytes.Buffer
	recipe := []byte("recipe bytes")
	if _, err := s.Write(&buf, recipe, finite); err != nil {
		t.Fatal(err)
	}
	back, rec, err := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil, finite)
	if err != nil || back.Check(finite) != nil {
		t.Fatal(err, back.Check(finite))
	}
	if !bytes.Equal(rec, recipe) || back.L != s.L || back.N != s.N || !slices.Equal(back.G, s.G) || !slices.Equal(back.HT, s.HT) ||
		!slices.Equal(back.TT, s.TT) || !slices.Equal(back.ClassCounts, s.ClassCounts) || !slices.Equal(back.Classes, s.Classes) ||
		!slices.Equal(back.Factor.Lower(), s.Factor.Lower()) || back.Factor.N != s.Factor.N || back.Factor.Ridge != s.Factor.Ridge {
		t.Fatal("the sums read back differ")
	}
	bad := *s
	bad.HT = bad.HT[1:]
	if _, err := bad.Write(&bytes.Buffer{}, recipe, finite); !errors.Is(err, ErrStats) {
		t.Errorf("sums of the wrong size written: %v", err)
	}
	bad = *s
	bad.Factor = Packed(slices.Clone(Values(s.Factor)), s.L, s.N, 0.5)
	Values(bad.Factor)[1] = math.Inf(1)
	if _, err := bad.Write(&bytes.Buffer{}, recipe, finite); err == nil {
		t.Error("a factor with an infinite value written")
	}
	back.HT[0] = math.NaN()
	if err := back.Check(finite); !errors.Is(err, ErrStats) {
		t.Errorf("a NaN sum: %v", err)
	}
}

// TestCheckImagesResidual: the counts statistics compare, and the
// residual's columns in the merged order.
func TestCheckImagesResidual(t *testing.T) {
	s := &Sums{N: 8, Classes: []string{"a", "b"}, ClassCounts: []int{4, 4}}
	lab := func(labels ...int) []float64 {
		t := make([]float64, 2*len(labels))
		for i, c := range labels {
			t[i*2+c] = 1
		}
		return t
	}
	// Two rows per image: 4 images, two of each class.
	if err := s.CheckImages(4, lab(0, 1, 1, 0), 2, []string{"a", "b"}, 2); err != nil {
		t.Errorf("the same counts: %v", err)
	}
	if err := s.CheckImages(4, lab(1, 0, 1, 0), 2, []string{"b", "a"}, 2); err != nil {
		t.Errorf("the same counts in another class order: %v", err)
	}
	var me *ImagesMismatchError
	if err := s.CheckImages(5, nil, 2, nil, 2); !errors.As(err, &me) || me.Images != 5 || me.Summed != 4 || !errors.Is(err, ErrStats) {
		t.Errorf("another count: %v", err)
	}
	if err := s.CheckImages(4, lab(0, 0, 0, 1), 2, []string{"a", "b"}, 2); !errors.As(err, &me) || me.Class != "a" {
		t.Errorf("another count of a class: %v", err)
	}
	// Residual: the model's classes b, a; the images' a, c.
	y := []float64{0.25, 0.5, 1, 2} // two images, the model's two outputs
	r, ok := Residual(y, lab(1, 0), 2, 2, 2, []string{"b", "a"}, []string{"a", "c"})
	if !ok || !slices.Equal(r, []float64{-0.25, -0.5, 1, -1, -1, 0}) {
		t.Errorf("residual %v", r)
	}
	if r, ok := Residual(y, []float64{1, 1, 1, 1}, 2, 2, 2, nil, nil); !ok || !slices.Equal(r, []float64{0.75, 0.5, 0, -1}) {
		t.Errorf("regression residual %v", r)
	}
	if _, ok := Residual(y, y, 2, 2, 1, nil, nil); ok {
		t.Error("targets of another width")
	}
}

// TestBatchSum: sums over batches of odd sizes are those of all the rows
// at once, bit for bit; Bytes counts what they hold.
func TestBatchSum(t *testing.T) {
	d := newData(12, 300, 9, 3)
	hidden := func(pix []float32, f func(lo, rows int, hb []float32)) {
		sub := data{n: len(pix) / d.l, l: d.l, h: pix}
		sub.forRows(64, f)
	}
	want := d.sums(min(d.n, Chunk), 64, []string{"x", "y", "z"})
	for _, step := range []int{1, 7, 64, 300} {
		b := NewBatchSum(d.l, d.m, d.n, d.l, 64, []string{"x", "y", "z"}, hidden)
		for lo := 0; lo < d.n; lo += step {
			hi := min(d.n, lo+step)
			b.Add(d.h[lo*d.l:hi*d.l], d.t[lo*d.m:hi*d.m], hi-lo)
		}
		s := b.Sums()
		if !b.Done() || s.N != d.n || !slices.Equal(s.G, want.G) || !slices.Equal(s.HT, want.HT) || !slices.Equal(s.TT, want.TT) ||
			!slices.Equal(s.ClassCounts, want.ClassCounts) {
			t.Errorf("batches of %d: other sums", step)
		}
	}
	l, m, n := 9, 3, 300
	if got := Bytes(l, m, n, false); got != int64(8*(l*l+l*m+m*m+l*n)) {
		t.Errorf("Bytes %d", got)
	}
	if got := Bytes(l, m, n, true); got != int64(8*(l*l+l*m+m*m+l*n)+8*l*l+8*lsq.PackedLen(l)) {
		t.Errorf("Bytes with the factor %d", got)
	}
}
