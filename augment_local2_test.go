package scn

import (
	"bytes"
	"context"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/scn2d/scn/internal/lsq"
)

// TestLocal2Augment: augmented fits of two layers of local nodes (random
// and supervised second layers, both layers' outputs or the second's
// only, grey and colour) have the output weights of the ridge least
// squares of the explicitly augmented set (the originals and their
// copies through both layers) to 1e-9 relative, the filters of both
// layers of the fit without augmentation, the same bytes whatever
// GOMAXPROCS, files that read back, and statistics of the training images
// that solve to the output weights.
func TestLocal2Augment(t *testing.T) {
	old := lsq.ShardRows
	lsq.ShardRows = 16
	defer func() { lsq.ShardRows = old }()
	colour, grey := hueProblem(t, 45, 41)
	for _, tc := range []struct {
		k      Kind
		p      Problem
		aug    Augment
		concat bool
	}{
		{RVFL2D, colour, Augment{Flip: true, Shift: 2, Copies: 2}, true},
		{RVFL, grey, Augment{Shift: 1, Copies: 1}, false},
		{SCN2D, grey, Augment{Flip: true}, true},
	} {
		c := secondConfig(tc.k)
		c.Ridge = 0.5
		c.Local.Second.Concat = tc.concat
		c.Augment = &tc.aug
		var files [][]byte
		var m *Model
		for _, procs := range []int{1, 3} {
			prev := runtime.GOMAXPROCS(procs)
			m = fitT(t, c, tc.p)
			runtime.GOMAXPROCS(prev)
			file, back := roundTrip(t, m)
			files = append(files, file)
			y, _ := m.Predict(tc.p.X)
			yb, err := back.Predict(tc.p.X)
			if err != nil || !slices.Equal(y, yb) {
				t.Fatalf("%v: the read model predicts otherwise (%v)", tc.k, err)
			}
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("%v: bytes differ between GOMAXPROCS 1 and 3", tc.k)
		}
		if m.Config.Augment == nil || *m.Config.Augment != tc.aug || m.Local.Second == nil || m.Local.Second.Filters() == 0 {
			t.Fatalf("%v: model's augmentation %+v, second layer %+v", tc.k, m.Config.Augment, m.Local.Second)
		}
		idx := make([]int, tc.p.X.Len())
		for i := range idx {
			idx[i] = i
		}
		if d := augRelDiff(m.Beta, augmentedReference(t, m, tc.p, idx, c.Ridge)); !(d <= 1e-9) {
			t.Errorf("%v %s: output weights differ from the explicit least squares by %.3g (relative)", tc.k, tc.aug.String(), d)
		}
		st, err := m.Stats(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if st.N != tc.p.X.Len()*(1+tc.aug.Extra()) {
			t.Errorf("%v: statistics of %d rows", tc.k, st.N)
		}
		solved, err := st.Solve(c.Ridge)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range solved.Beta {
			if math.Abs(v-m.Beta[i]) > 1e-6*(1+math.Abs(m.Beta[i])) {
				t.Fatalf("%v: output weight %d solved from the statistics %v, fitted %v", tc.k, i, v, m.Beta[i])
			}
		}
		c.Augment = nil
		plain := fitT(t, c, tc.p)
		if !slices.Equal(plain.Local.Banks[0].Params, m.Local.Banks[0].Params) || !slices.Equal(plain.Local.Second.Params, m.Local.Second.Params) ||
			!slices.Equal(plain.Local.Mean, m.Local.Mean) {
			t.Fatalf("%v: augmentation changed the filters or the standardisation", tc.k)
		}
		if slices.Equal(plain.Beta, m.Beta) {
			t.Fatalf("%v: augmentation left the output weights as they were", tc.k)
		}
	}
}

// TestLocal2AugmentSelection: selection of an augmented two-layer fit
// scores each ridge term on the held-out images with their copies taken
// out of the sums: the held-out RMSE of the explicit least squares of the
// training part and its copies.
func TestLocal2AugmentSelection(t *testing.T) {
	p, _ := hueProblem(t, 60, 42)
	c := secondConfig(RVFL2D)
	c.Ridge = 1
	c.Augment = &Augment{Flip: true, Shift: 2, Copies: 1}
	m, err := c.Select(context.Background(), p, Selection{Validation: 0.25, Ridges: []float64{0.1, 10}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	train, held, err := splitHoldout(p, 0.25, c.Seed)
	if err != nil {
		t.Fatal(err)
	}
	hx := Images{Rows: p.X.Rows, Cols: p.X.Cols, Channels: p.X.Channels}
	var ht []float64
	d := p.X.Dim()
	for _, i := range held {
		hx.Pix = append(hx.Pix, p.X.Pix[i*d:(i+1)*d]...)
		ht = append(ht, p.T[i*p.M:(i+1)*p.M]...)
	}
	if len(m.Selection.Curve) != 2 {
		t.Fatalf("%d ridge terms scored", len(m.Selection.Curve))
	}
	for _, sc := range m.Selection.Curve {
		mm := *m
		mm.Beta = augmentedReference(t, m, p, train, sc.Ridge)
		y, err := mm.Predict(hx)
		if err != nil {
			t.Fatal(err)
		}
		if r := RMSE(y, ht); math.Abs(r-sc.RMSE) > 1e-9*r {
			t.Errorf("ridge %v: held-out RMSE %v, explicit %v", sc.Ridge, sc.RMSE, r)
		}
	}
}
