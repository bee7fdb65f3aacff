package scn

import (
	"bytes"
	"github.com/scn2d/scn/internal/lsq"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// learnInBatches learns p in batches of the given sizes (the last one
// taking the rest).
func learnInBatches(t *testing.T, o *Online, p Problem, sizes ...int) *Model {
	t.Helper()
	var m *Model
	lo := 0
	for i := 0; lo < p.X.Len(); i++ {
		hi := p.X.Len()
		if i < len(sizes) {
			hi = min(hi, lo+sizes[i])
		}
		var err error
		if m, err = o.Learn(subsetProblem(p, lo, hi)); err != nil {
			t.Fatal(err)
		}
		lo = hi
	}
	return m
}

// TestOnlineEqualsUpdate: online learning without forgetting, in batches
// of uneven sizes (one image, a part of a chunk, more than a chunk), gives
// the output weights scn update gives with the same images (1e-9
// relative), with the statistics' stored factor or without one (formed),
// for a supervised and a random learner; its snapshot's sums are
// Merge's, and the models it returned before are unchanged.
func TestOnlineEqualsUpdate(t *testing.T) {
	for _, tc := range []struct {
		kind     Kind
		old, new int
		factor   bool
	}{{SCN2D, 300, 2300, true}, {RVFL, 250, 400, false}} {
		p := blobProblem(t, tc.old+tc.new)
		c := Paper(tc.kind)
		c.MaxNodes, c.Ridge = 40, 0.1
		a, b := subsetProblem(p, 0, tc.old), subsetProblem(p, tc.old, tc.old+tc.new)
		m := fitT(t, c, a)
		m.Meta = map[string]string{"source": "blobs"}
		old := statsT(t, m, a)
		if tc.factor {
			if err := old.Factorize(c.Ridge); err != nil {
				t.Fatal(err)
			}
		}
		want, wantStats, err := m.Update(old, b, true)
		if err != nil {
			t.Fatal(err)
		}
		o, err := NewOnline(m, old, 1)
		if err != nil {
			t.Fatal(err)
		}
		first := learnInBatches(t, o, subsetProblem(b, 0, 1))
		firstBeta := slices.Clone(first.Beta)
		got := learnInBatches(t, o, subsetProblem(b, 1, tc.new), 37, 2100)
		if d := relDiff(got.Beta, want.Beta); d > 1e-9 {
			t.Errorf("%v: online beta differs from scn update's by %.3g", tc.kind, d)
		}
		if !slices.Equal(first.Beta, firstBeta) {
			t.Errorf("%v: a model Learn returned changed afterwards", tc.kind)
		}
		if got.Summary.Samples != tc.old+tc.new || got.Meta["source"] != "blobs" || o.Learnt() != tc.new {
			t.Errorf("%v: summary %+v, meta %v, learnt %d", tc.kind, got.Summary, got.Meta, o.Learnt())
		}
		if math.Abs(got.Summary.TrainRMSE-want.Summary.TrainRMSE) > 1e-8 {
			t.Errorf("%v: training RMSE %v, update's %v", tc.kind, got.Summary.TrainRMSE, want.Summary.TrainRMSE)
		}
		sm, snap := o.Snapshot()
		if sm != got || snap.N != wantStats.N || !slices.Equal(snap.ClassCounts, wantStats.ClassCounts) {
			t.Errorf("%v: snapshot N %d counts %v, want %d %v", tc.kind, snap.N, snap.ClassCounts, wantStats.N, wantStats.ClassCounts)
		}
		for _, x := range []struct {
			name      string
			got, want []float64
		}{{"G", snap.G, wantStats.G}, {"H^T T", snap.HT, wantStats.HT}, {"T^T T", snap.TT, wantStats.TT}} {
			if d := relDiff(x.got, x.want); d > 1e-13 {
				t.Errorf("%v: snapshot %s differs from Merge's by %.3g", tc.kind, x.name, d)
			}
		}
		l := snap.Nodes()
		for i := 0; i < l; i++ {
			for j := 0; j < i; j++ {
				if snap.G[i*l+j] != snap.G[j*l+i] {
					t.Fatalf("%v: snapshot G not symmetric at %d, %d", tc.kind, i, j)
				}
			}
		}
		// The snapshot is saved and read back, and a new Online from it
		// goes on as this one does.
		var buf bytes.Buffer
		if _, err := snap.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ReadStats(&buf)
		if err != nil {
			t.Fatal(err)
		}
		o2, err := NewOnline(got, back, 1)
		if err != nil {
			t.Fatal(err)
		}
		extra := subsetProblem(p, 0, 50)
		m1, err := o.Learn(extra)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := o2.Learn(extra)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiff(m2.Beta, m1.Beta); d > 1e-9 {
			t.Errorf("%v: learning from the saved snapshot differs by %.3g", tc.kind, d)
		}
	}
}

// TestOnlineForgetting: with a forgetting factor, the output weights are
// the weighted least squares computed directly: every image weighted by
// lambda to the power of the images learnt after it (the training images
// as if learnt before the first batch), the ridge term not forgotten.
func TestOnlineForgetting(t *testing.T) {
	const old, nw, lambda, ridge = 300, 500, 0.995, 0.1
	p := blobProblem(t, old+nw)
	c := Paper(SCN2D)
	c.MaxNodes, c.Ridge = 30, ridge
	a, b := subsetProblem(p, 0, old), subsetProblem(p, old, old+nw)
	m := fitT(t, c, a)
	o, err := NewOnline(m, statsT(t, m, a), lambda)
	if err != nil {
		t.Fatal(err)
	}
	got := learnInBatches(t, o, b, 1, 99, 250)
	// Direct: H^T W H and H^T W T with the weights, solved densely.
	h := hiddenDense(m, p.X)
	n, l := h.Dims()
	w := make([]float64, n)
	for i := range w {
		after := nw - 1 - (i - old) // images learnt after image i
		if i < old {
			after = nw
		}
		w[i] = math.Pow(lambda, float64(after))
	}
	hw := mat.NewDense(n, l, nil)
	tw := mat.NewDense(n, p.M, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < l; j++ {
			hw.Set(i, j, w[i]*h.At(i, j))
		}
		for q := 0; q < p.M; q++ {
			tw.Set(i, q, w[i]*p.T[i*p.M+q])
		}
	}
	var gd, ht mat.Dense
	gd.Mul(h.T(), hw)
	ht.Mul(h.T(), tw)
	g := mat.NewSymDense(l, nil)
	for i := 0; i < l; i++ {
		for j := i; j < l; j++ {
			g.SetSym(i, j, (gd.At(i, j)+gd.At(j, i))/2)
		}
	}
	want, err := lsq.RidgeSolve(g, &ht, ridge)
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(got.Beta, want); d > 1e-9 {
		t.Errorf("forgetting: beta differs from the weighted least squares by %.3g", d)
	}
	// Forgetting weighs the recent images more: its fit to them is closer
	// than without forgetting's.
	if o.Forget() != lambda {
		t.Errorf("Forget() = %v", o.Forget())
	}
}

// TestOnlineNewClass: a class added online gets zero output weights until
// images of it are learnt, and then the weights scn update gives with the
// new class's images (Update adds the class too).
func TestOnlineNewClass(t *testing.T) {
	x, y, names := blobs(600, 10, 8, 4, 9)
	keep, rest := []int{}, []int{}
	for i, c := range y {
		if c == 3 && i < 400 {
			continue
		}
		if i < 400 {
			keep = append(keep, i)
		} else {
			rest = append(rest, i)
		}
	}
	all, err := Classification(x, y, names)
	if err != nil {
		t.Fatal(err)
	}
	a := all.subset(keep)
	// The old model knows three classes.
	a.T, a.M, a.Classes = dropColumn(a.T, 4, 3), 3, names[:3]
	c := Paper(RVFL2D)
	c.MaxNodes, c.Ridge = 30, 0.1
	m := fitT(t, c, a)
	old := statsT(t, m, a)
	b := all.subset(rest)
	want, _, err := m.Update(old, b, false)
	if err != nil {
		t.Fatal(err)
	}
	o, err := NewOnline(m, old, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.AddClasses(names[3]); err != nil {
		t.Fatal(err)
	}
	if err := o.AddClasses(names[0]); err == nil {
		t.Error("a class the model has was added again")
	}
	z := o.Model()
	for j := 0; j < z.Nodes(); j++ {
		if z.Beta[j*4+3] != 0 {
			t.Fatal("the new class's output weights are not zero before any image of it")
		}
	}
	got := learnInBatches(t, o, b, 100)
	if !slices.Equal(got.Classes, want.Classes) {
		t.Fatalf("classes %q, update's %q", got.Classes, want.Classes)
	}
	if d := relDiff(got.Beta, want.Beta); d > 1e-9 {
		t.Errorf("new class: beta differs from scn update's by %.3g", d)
	}
}

// dropColumn returns the n x m row-major t without column c.
func dropColumn(t []float64, m, c int) []float64 {
	var out []float64
	for i := 0; i < len(t); i += m {
		for q := 0; q < m; q++ {
			if q != c {
				out = append(out, t[i+q])
			}
		}
	}
	return out
}

// TestOnlineRefuses: bad forgetting factors, statistics of another model,
// images of another size, targets of another width: errors, and the
// Online unchanged.
func TestOnlineRefuses(t *testing.T) {
	p := blobProblem(t, 200)
	c := Paper(RVFL)
	c.MaxNodes, c.Ridge = 20, 0.1
	m := fitT(t, c, p)
	st := statsT(t, m, p)
	for _, f := range []float64{0, -1, 1.5, math.NaN()} {
		if _, err := NewOnline(m, st, f); err == nil {
			t.Errorf("forgetting factor %v taken", f)
		}
	}
	c.Seed++
	other := fitT(t, c, p)
	if _, err := NewOnline(other, st, 1); err == nil {
		t.Error("statistics of another model's nodes taken")
	}
	o, err := NewOnline(m, st, 1)
	if err != nil {
		t.Fatal(err)
	}
	before := o.Model()
	bad := subsetProblem(p, 0, 5)
	bad.X.Cols++
	bad.X.Pix = make([]float32, 5*bad.X.Dim())
	if _, err := o.Learn(bad); err == nil {
		t.Error("images of another size learnt")
	}
	wide := subsetProblem(p, 0, 5)
	wide.T, wide.M, wide.Classes = make([]float64, 5*4), 4, nil
	if _, err := o.Learn(wide); err == nil {
		t.Error("targets of another width learnt")
	}
	if o.Model() != before || o.Images() != 200 || o.Learnt() != 0 {
		t.Error("a refused batch changed the Online")
	}
}
