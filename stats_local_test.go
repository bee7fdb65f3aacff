package scn

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// localDense returns the hidden outputs of a local model on x, N x L
// float64, computed image by image from the model's filters (the
// predictions' values, independently of hiddenLocal's batches).
func localDense(t *testing.T, m *Model, x Images) *mat.Dense {
	t.Helper()
	n, d, l := x.Len(), x.Dim(), m.Nodes()
	h := mat.NewDense(n, l, nil)
	row := make([]float32, l)
	for i := 0; i < n; i++ {
		if err := m.localFeatures(m.localLayers(), x.Pix[i*d:(i+1)*d], 1, row); err != nil {
			t.Fatal(err)
		}
		for j, v := range row {
			h.Set(i, j, float64(v))
		}
	}
	return h
}

// TestLocalStatsSolveIsTheFit: for local models fitted without
// augmentation (random and supervised filters, grey and colour), the
// statistics of the training images solve to the fit's output weights
// and predictions; the statistics of two halves merge to those of the
// whole.
func TestLocalStatsSolveIsTheFit(t *testing.T) {
	colour, grey := hueProblem(t, 60, 41)
	for _, tc := range []struct {
		k Kind
		p Problem
	}{{RVFL2D, colour}, {RVFL2D, grey}, {RVFL, colour}, {SCN2D, grey}, {SCN, colour}} {
		c := localConfig(tc.k)
		m := fitT(t, c, tc.p)
		s := statsT(t, m, tc.p)
		if s.N != 60 || s.Nodes() != m.Nodes() {
			t.Fatalf("%v: N = %d, L = %d for a model of %d", tc.k, s.N, s.Nodes(), m.Nodes())
		}
		sm, err := s.Solve(c.Ridge)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiff(sm.Beta, m.Beta); !(d <= 1e-9) {
			t.Errorf("%v ch %d: solve of the training statistics differs from the fit's output weights by %.3g", tc.k, tc.p.X.Chans(), d)
		}
		// The least squares of the model's hidden outputs, formed
		// independently.
		h := localDense(t, m, tc.p.X)
		g := mat.NewSymDense(m.Nodes(), nil)
		g.SymOuterK(1, h.T())
		for i := 0; i < m.Nodes(); i++ {
			g.SetSym(i, i, g.At(i, i)+c.Ridge)
		}
		ht := mat.NewDense(m.Nodes(), m.M, nil)
		ht.Mul(h.T(), mat.NewDense(60, m.M, tc.p.T))
		if d := relDiff(sm.Beta, solveRef(t, g, ht)); !(d <= 1e-9) {
			t.Errorf("%v: solve differs from the reference least squares by %.3g", tc.k, d)
		}
		pa, err := m.Predict(tc.p.X)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := sm.Predict(tc.p.X)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiff(pb, pa); !(d <= 1e-9) {
			t.Errorf("%v: predictions differ by %.3g", tc.k, d)
		}
		ca, _ := m.Classify(tc.p.X)
		cb, _ := sm.Classify(tc.p.X)
		if !slices.Equal(ca, cb) {
			t.Errorf("%v: classes differ", tc.k)
		}
		if sm.Summary.Samples != 60 || sm.Local == nil || !slices.Equal(sm.Local.Mean, m.Local.Mean) {
			t.Errorf("%v: the solved model's samples %d or local layer differ", tc.k, sm.Summary.Samples)
		}
		rm, err := sm.RMSE(tc.p.X, tc.p.T)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(rm - sm.Summary.TrainRMSE); d > 1e-6*rm {
			t.Errorf("%v: RMSE from the sums %.9f, predicted %.9f", tc.k, sm.Summary.TrainRMSE, rm)
		}
		// Two halves merged: the whole set's sums.
		ab, err := statsT(t, m, subsetProblem(tc.p, 0, 25)).Merge(statsT(t, m, subsetProblem(tc.p, 25, 60)))
		if err != nil {
			t.Fatal(err)
		}
		if ab.N != 60 || relDiff(ab.G, s.G) > 1e-12 || relDiff(ab.HT, s.HT) > 1e-12 || relDiff(ab.TT, s.TT) > 1e-12 {
			t.Errorf("%v: merged halves differ from the whole (N %d, G by %.3g)", tc.k, ab.N, relDiff(ab.G, s.G))
		}
	}
}

// TestLocalStatsFileAndRecipes: local statistics survive their file, and
// never merge with the statistics of global nodes, of other filters, of
// another standardisation or of other augmented rows.
func TestLocalStatsFileAndRecipes(t *testing.T) {
	p, _ := hueProblem(t, 40, 43)
	c := localConfig(RVFL2D)
	m := fitT(t, c, p)
	s := statsT(t, m, p)
	if err := s.Factorize(c.Ridge); err != nil {
		t.Fatal(err)
	}
	for _, withFactor := range []bool{false, true} {
		s2 := *s
		if !withFactor {
			s2.Factor = nil
		}
		file := statsBytes(t, &s2)
		back, err := ReadStats(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(statsBytes(t, back), file) {
			t.Fatal("local statistics differ after a file round trip")
		}
		if back.Recipe.Local == nil || sameRecipe(back.Recipe, m) != nil {
			t.Fatalf("the recipe read back is not the model's: %v", sameRecipe(back.Recipe, m))
		}
		sm, err := back.Solve(c.Ridge)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiff(sm.Beta, m.Beta); !(d <= 1e-9) {
			t.Errorf("solve of the file's statistics differs by %.3g", d)
		}
		nm, _, err := m.Update(back, subsetProblem(p, 0, 10), false)
		if err != nil || nm.Local == nil {
			t.Fatalf("update from the file's statistics: %v", err)
		}
		for _, n := range []int{20, len(file) / 3, len(file) - 5} {
			if _, err := ReadStats(bytes.NewReader(file[:n])); !errors.Is(err, ErrStats) {
				t.Errorf("truncated to %d bytes: %v", n, err)
			}
		}
	}
	// Global nodes' statistics of the same images.
	gc := Paper(RVFL2D)
	gc.MaxNodes, gc.Ridge, gc.Activation = m.Nodes(), c.Ridge, ReLU
	gm := fitT(t, gc, p)
	gs := statsT(t, gm, p)
	for _, pair := range [][2]*Stats{{s, gs}, {gs, s}} {
		if _, err := pair[0].Merge(pair[1]); !errors.Is(err, ErrStats) || !strings.Contains(err.Error(), "local") {
			t.Errorf("local and global statistics: %v", err)
		}
	}
	if _, err := NewOnline(gm, s, 1); !errors.Is(err, ErrStats) {
		t.Errorf("online learning of a global model from local statistics: %v", err)
	}
	if _, _, err := gm.Update(s, p, false); !errors.Is(err, ErrStats) {
		t.Errorf("update of a global model from local statistics: %v", err)
	}
	// Images of another size: an error, no statistics.
	other, _ := hueProblem(t, 10, 44)
	other.X.Rows, other.X.Cols = other.X.Cols, other.X.Rows
	if st, err := m.Stats(other); err == nil || st != nil {
		t.Errorf("statistics of %d x %d images for a %d x %d model: %v", other.X.Rows, other.X.Cols, m.Rows, m.Cols, err)
	}
	// Other filters (another seed), another geometry, no standardisation.
	c2 := localConfig(RVFL2D)
	c2.Seed = 99
	lg := *c2.Local
	c3 := localConfig(RVFL2D)
	lg.Pooling = PoolMax
	c3.Local = &lg
	c4 := localConfig(RVFL2D)
	ns := *c4.Local
	ns.Standardize = false
	c4.Local = &ns
	c5 := localConfig(RVFL2D)
	wh := *c5.Local
	wh.Whiten, wh.WhitenEps = true, 0.1
	c5.Local = &wh
	for _, tc := range []struct {
		c    Config
		want string
	}{{c2, "filters of bank 0 differ"}, {c3, "geometry"}, {c4, "geometry"}, {c5, "geometry"}} {
		o := fitT(t, tc.c, p)
		if _, err := s.Merge(statsT(t, o, p)); !errors.Is(err, ErrStats) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want %q: %v", tc.want, err)
		}
	}
	// The same filters with another standardisation.
	o := *m
	ll := *m.Local
	ll.Mean = slices.Clone(ll.Mean)
	ll.Mean[3] += 1e-3
	o.Local = &ll
	if _, err := s.Merge(statsT(t, &o, p)); !errors.Is(err, ErrStats) || !strings.Contains(err.Error(), "standardisation") {
		t.Errorf("other standardisation: %v", err)
	}
	// The same filters with augmented rows.
	a := *m
	a.Config.Augment = &Augment{Flip: true}
	as := statsT(t, &a, p)
	if as.N != 80 {
		t.Errorf("augmented statistics of %d rows for 40 images and their mirrors", as.N)
	}
	if _, err := s.Merge(as); !errors.Is(err, ErrStats) || !strings.Contains(err.Error(), "augmentation") {
		t.Errorf("plain and augmented rows: %v", err)
	}
}

// TestLocalStatsAugmented: the statistics of an augmented model's training
// images hold the copies the fit solved: their solve is the fit's output
// weights (float64 Gram products, several row shards), N counts rows and
// the solved model's samples count images; merged halves are the whole
// set's statistics when each half's copies are the whole set's (the moves
// of the first images do not depend on N).
func TestLocalStatsAugmented(t *testing.T) {
	colour, grey := hueProblem(t, 45, 47)
	for _, tc := range []struct {
		k   Kind
		p   Problem
		aug Augment
	}{
		{RVFL2D, colour, Augment{Flip: true, Shift: 2, Copies: 2}},
		{RVFL, grey, Augment{Shift: 1, Copies: 1}},
		{SCN2D, grey, Augment{Flip: true}},
	} {
		c := localConfig(tc.k)
		c.Ridge = 0.5
		c.Augment = &tc.aug
		m := fitT(t, c, tc.p)
		if m.Config.Augment == nil {
			t.Fatalf("%v: the fit did not record its augmentation", tc.k)
		}
		s := statsT(t, m, tc.p)
		rows := 45 * (1 + tc.aug.Extra())
		if s.N != rows || s.ClassCounts[0]+s.ClassCounts[1] != rows {
			t.Fatalf("%v: N = %d, counts %v, want %d rows", tc.k, s.N, s.ClassCounts, rows)
		}
		sm, err := s.Solve(c.Ridge)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiff(sm.Beta, m.Beta); !(d <= 1e-9) {
			t.Errorf("%v %s: solve of the training statistics differs from the augmented fit by %.3g", tc.k, tc.aug.String(), d)
		}
		idx := make([]int, 45)
		for i := range idx {
			idx[i] = i
		}
		if d := relDiff(sm.Beta, augmentedReference(t, m, tc.p, idx, c.Ridge)); !(d <= 1e-9) {
			t.Errorf("%v: solve differs from the explicit augmented least squares by %.3g", tc.k, d)
		}
		if sm.Summary.Samples != 45 || sm.Config.Augment == nil || *sm.Config.Augment != tc.aug {
			t.Errorf("%v: solved model of %d samples, augmentation %v", tc.k, sm.Summary.Samples, sm.Config.Augment)
		}
		rm, err := sm.RMSE(tc.p.X, tc.p.T)
		if err != nil || !(rm > 0) {
			t.Fatal(rm, err)
		}
		// Statistics of more images: their copies are drawn for their
		// positions in the set summed, so a set's first images have the
		// copies they have in the whole set.
		first := statsT(t, m, subsetProblem(tc.p, 0, 20))
		wantFirst := augmentedReference(t, m, tc.p, idx[:20], c.Ridge)
		fs, err := first.Solve(c.Ridge)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiff(fs.Beta, wantFirst); !(d <= 1e-9) {
			t.Errorf("%v: statistics of the first 20 images differ from their explicit augmented least squares by %.3g", tc.k, d)
		}
		// The rest from its place in the set (StatsFrom), merged with the
		// first part: the whole set's statistics; summed from place 0
		// instead, shifted copies differ.
		rest, err := m.StatsFrom(subsetProblem(tc.p, 20, 45), 20)
		if err != nil {
			t.Fatal(err)
		}
		merged, err := first.Merge(rest)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiff(merged.G, s.G); !(d <= 1e-12) || merged.N != s.N {
			t.Errorf("%v: the parts' merged statistics differ from the whole set's by %.3g (N %d, want %d)", tc.k, d, merged.N, s.N)
		}
		if d := relDiff(merged.HT, s.HT); !(d <= 1e-12) {
			t.Errorf("%v: the parts' merged H^T T differs from the whole set's by %.3g", tc.k, d)
		}
		if tc.aug.Shift > 0 {
			atZero := statsT(t, m, subsetProblem(tc.p, 20, 45))
			if d := relDiff(atZero.G, rest.G); !(d > 1e-6) {
				t.Errorf("%v: the copies of images 20-44 summed from place 0 are those of their places (%.3g): the test cannot tell", tc.k, d)
			}
		}
		if _, err := m.StatsFrom(tc.p, -1); err == nil {
			t.Errorf("%v: a negative place was accepted", tc.k)
		}
	}
}

// TestLocalUpdateIsTheFitOnBoth: updating a random local model with new
// images gives the solve of the statistics of old and new images, and the
// least squares on both with the model's filters.
func TestLocalUpdateIsTheFitOnBoth(t *testing.T) {
	p, _ := hueProblem(t, 90, 53)
	c := localConfig(RVFL2D)
	a, b := subsetProblem(p, 0, 50), subsetProblem(p, 50, 90)
	m := fitT(t, c, a)
	old := statsT(t, m, a)
	nm, merged, err := m.Update(old, b, true)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := statsT(t, m, p).Solve(c.Ridge)
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(nm.Beta, whole.Beta); !(d <= 1e-9) {
		t.Errorf("update differs from the solve of all images' statistics by %.3g", d)
	}
	if merged.N != 90 || nm.Summary.Samples != 90 || nm.Local == nil || !slices.Equal(nm.Local.Banks[0].Params, m.Local.Banks[0].Params) {
		t.Errorf("merged N %d, samples %d, or other filters", merged.N, nm.Summary.Samples)
	}
	// The model file of the update reads back and predicts as it did.
	_, back := roundTrip(t, nm)
	pa, _ := nm.Predict(p.X)
	pb, err := back.Predict(p.X)
	if err != nil || !slices.Equal(pa, pb) {
		t.Errorf("the updated model's file predicts otherwise (%v)", err)
	}
}

// TestLocalOnlineAugmented: online learning of an augmented local model
// adds each image's copies, as Update does: a batch learnt gives Update's
// output weights and counts its rows.
func TestLocalOnlineAugmented(t *testing.T) {
	p, _ := hueProblem(t, 70, 59)
	c := localConfig(RVFL2D)
	c.Augment = &Augment{Flip: true, Shift: 1, Copies: 1}
	a, b := subsetProblem(p, 0, 40), subsetProblem(p, 40, 70)
	m := fitT(t, c, a)
	old := statsT(t, m, a)
	want, _, err := m.Update(old, b, false)
	if err != nil {
		t.Fatal(err)
	}
	o, err := NewOnline(m, statsT(t, m, a), 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.Learn(b)
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(got.Beta, want.Beta); !(d <= 1e-9) {
		t.Errorf("online learning differs from Update by %.3g", d)
	}
	_, snap := o.Snapshot()
	if o.Images() != 70 || snap.N != 70*3 || snap.Images() != 70 {
		t.Errorf("online statistics of %d images, a snapshot of %d rows", o.Images(), snap.N)
	}
}

// FuzzReadLocalStats: statistics files of local recipes (plain and
// augmented, with a factor) read back or are refused, never a panic, and
// what reads can be written and solved.
func FuzzReadLocalStats(f *testing.F) {
	p, _ := hueProblem(f, 12, 73)
	c := localConfig(RVFL2D)
	c.Local.Sizes, c.Local.Filters, c.Local.Pool = []int{3}, 2, 1
	m := fitT(f, c, p)
	a := *m
	a.Config.Augment = &Augment{Flip: true}
	for _, r := range []*Model{m, &a} {
		s, err := r.Stats(p)
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		s.WriteTo(&buf)
		f.Add(buf.Bytes())
		if err := s.Factorize(c.Ridge); err != nil {
			f.Fatal(err)
		}
		buf.Reset()
		s.WriteTo(&buf)
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ReadStats(bytes.NewReader(b))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if _, err := s.WriteTo(&out); err != nil {
			t.Fatalf("read statistics cannot be written: %v", err)
		}
		if s.N > 0 && s.Images() < 0 {
			t.Fatalf("statistics of %d rows, %d images", s.N, s.Images())
		}
	})
}
