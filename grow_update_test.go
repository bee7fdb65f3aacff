package scn

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestGrowUpdateIsTheChain: GrowUpdate gives the bits of the chain it
// stands for (the residual written out here, with a column for the class
// the new images bring; Grow with the seed after the model's; the grown
// model's statistics of the old and new images merged and solved with the
// model's ridge term), keeps the metadata and preprocessing, and returns
// the merged statistics of all the images.
func TestGrowUpdateIsTheChain(t *testing.T) {
	p := blobProblem(t, 600)
	old := split(p, 0, 400)
	labels := ArgMax(p.T[400*p.M:], p.M)
	for i := 0; i < len(labels); i += 7 {
		labels[i] = p.M // a class the model has not seen
	}
	x := p.X
	x.Pix = p.X.Pix[400*p.X.Dim():]
	fresh, err := Classification(x, labels, append(slices.Clone(p.Classes), "new"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []Kind{SCN, SCN2D} {
		c := Fast(k)
		c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax, c.Candidates, c.Ridge = 30, 10, 3, 6, 2, 1e-3
		m := fitT(t, c, old)
		m.Meta = map[string]string{"source": "blobs"}
		m.Preprocessing = PreprocessRecord{Invert: "no"}
		st, err := m.Stats(old)
		if err != nil {
			t.Fatal(err)
		}
		got, merged, err := m.GrowUpdate(context.Background(), st, old, fresh, 10)
		if err != nil {
			t.Fatal(err)
		}
		// The chain, by hand.
		y, err := m.Predict(fresh.X)
		if err != nil {
			t.Fatal(err)
		}
		q := m.M + 1
		r := make([]float64, fresh.X.Len()*q)
		for i, l := range labels {
			copy(r[i*q:], y[i*m.M:(i+1)*m.M])
			for j := 0; j < m.M; j++ {
				r[i*q+j] = -r[i*q+j]
			}
			r[i*q+l]++
		}
		g, err := m.Grow(context.Background(), fresh.X, r, 10, c.Seed+1)
		if err != nil {
			t.Fatal(err)
		}
		so, _ := g.Stats(old)
		sn, _ := g.Stats(fresh)
		all, err := so.Merge(sn)
		if err != nil {
			t.Fatal(err)
		}
		want, err := all.Solve(c.Ridge)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !slices.Equal(got.Beta, want.Beta) || !slices.Equal(got.Params, want.Params) || got.Nodes() <= m.Nodes():
			t.Errorf("%v: %d nodes, not the chain's %d (or other bits)", k, got.Nodes(), want.Nodes())
		case !slices.Equal(got.Classes, fresh.Classes) || got.Meta["source"] != "blobs" || got.Preprocessing != m.Preprocessing:
			t.Errorf("%v: classes %v, meta %v, preprocessing %+v", k, got.Classes, got.Meta, got.Preprocessing)
		case merged.Images() != 600 || !slices.Equal(merged.G, all.G) || !slices.Equal(merged.HT, all.HT):
			t.Errorf("%v: merged statistics of %d images, not the chain's", k, merged.Images())
		}
	}
}

// TestGrowUpdateRefuses: old images other than the statistics' (another
// count, other class counts), a random learner, a regression residual of
// another width, and no nodes to add are refused with the error that says
// so.
func TestGrowUpdateRefuses(t *testing.T) {
	p := blobProblem(t, 300)
	old, fresh := split(p, 0, 200), split(p, 200, 300)
	c := Fast(SCN2D)
	c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax, c.Candidates = 20, 10, 3, 6, 2
	m := fitT(t, c, old)
	st, err := m.Stats(old)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var mis *ImagesMismatchError
	_, _, err = m.GrowUpdate(ctx, st, split(p, 0, 150), fresh, 5)
	if !errors.As(err, &mis) || !errors.Is(err, ErrStats) || mis.Images != 150 || mis.Summed != 200 || mis.Class != "" {
		t.Errorf("other count: %v", err)
	}
	_, _, err = m.GrowUpdate(ctx, st, split(p, 100, 300), fresh, 5) // 200 images, other classes' counts
	if !errors.As(err, &mis) || mis.Class == "" || st.CheckImages(old) != nil {
		t.Errorf("other class counts: %v", err)
	}
	r := Fast(RVFL2D)
	r.MaxNodes = 20
	rm := fitT(t, r, old)
	rs, _ := rm.Stats(old)
	if _, _, err := rm.GrowUpdate(ctx, rs, old, fresh, 5); !errors.Is(err, ErrConfig) {
		t.Errorf("random learner: %v", err)
	}
	if _, _, err := m.GrowUpdate(ctx, st, old, fresh, 0); !errors.Is(err, ErrConfig) {
		t.Errorf("no nodes: %v", err)
	}
	reg, err := Regression(old.X, old.T, old.M)
	if err != nil {
		t.Fatal(err)
	}
	gm := fitT(t, c, reg)
	gs, _ := gm.Stats(reg)
	narrow, err := Regression(fresh.X, fresh.T[:fresh.X.Len()], 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gm.GrowUpdate(ctx, gs, reg, narrow, 5); !errors.Is(err, ErrData) {
		t.Errorf("regression of another width: %v", err)
	}
	if _, _, err := gm.GrowUpdate(ctx, gs, reg, fresh, 5); !errors.Is(err, ErrData) {
		t.Errorf("classes for a regression model: %v", err)
	}
}
