package scn

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
)

// TestStatsSumIsStats: statistics summed over batches of odd sizes are
// Model.Stats's bits over all the images, below and above a chunk of
// images; the counts are checked.
func TestStatsSumIsStats(t *testing.T) {
	n := 2600
	if testing.Short() {
		n = 700
	}
	p := blobProblem(t, n)
	c := Fast(SCN2D)
	c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax, c.Candidates, c.Ridge = 12, 6, 3, 6, 2, 1e-3
	m := fitT(t, c, split(p, 0, 200))
	for _, total := range []int{150, n} {
		q := split(p, 0, total)
		want, err := m.Stats(q)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := m.NewStatsSum(total, q.M, q.Classes)
		if err != nil {
			t.Fatal(err)
		}
		for lo, b := 0, 1; lo < total; b = b*3 + 1 {
			hi := min(total, lo+b)
			if err := sum.Add(split(q, lo, hi)); err != nil {
				t.Fatal(err)
			}
			lo = hi
		}
		if err := sum.Add(split(q, 0, 1)); err == nil {
			t.Fatal("an image beyond the count was taken")
		}
		got, err := sum.Stats()
		if err != nil {
			t.Fatal(err)
		}
		if got.N != want.N || !slices.Equal(got.ClassCounts, want.ClassCounts) || !slices.Equal(got.Classes, want.Classes) {
			t.Fatalf("%d images: counts %d %v, want %d %v", total, got.N, got.ClassCounts, want.N, want.ClassCounts)
		}
		for name, pair := range map[string][2][]float64{"G": {got.G, want.G}, "HT": {got.HT, want.HT}, "TT": {got.TT, want.TT}} {
			if !slices.Equal(pair[0], pair[1]) {
				t.Fatalf("%d images: %s differs from Model.Stats's", total, name)
			}
		}
		if _, err := sum.Stats(); err == nil {
			t.Fatal("Stats twice")
		}
	}
	short, err := m.NewStatsSum(10, p.M, p.Classes)
	if err != nil {
		t.Fatal(err)
	}
	if err := short.Add(split(p, 0, 5)); err != nil {
		t.Fatal(err)
	}
	if _, err := short.Stats(); err == nil {
		t.Fatal("statistics of 5 of 10 images")
	}
	if _, err := m.NewStatsSum(10, p.M+1, p.Classes); err == nil {
		t.Fatal("classes and outputs disagree")
	}
}

// TestGrowNodesIsGrowUpdate: GrowNodes, then the summed statistics of the
// old and the new images merged and solved, is GrowUpdate bit for bit;
// random learners are refused.
func TestGrowNodesIsGrowUpdate(t *testing.T) {
	p := blobProblem(t, 500)
	old, fresh := split(p, 0, 350), split(p, 350, 500)
	c := Fast(SCN2D)
	c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax, c.Candidates, c.Ridge = 20, 10, 3, 6, 2, 1e-3
	m := fitT(t, c, old)
	st, err := m.Stats(old)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := m.GrowUpdate(context.Background(), st, old, fresh, 8)
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.GrowNodes(context.Background(), fresh, 8)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(q Problem) *Stats {
		s, err := g.NewStatsSum(q.X.Len(), q.M, q.Classes)
		if err != nil {
			t.Fatal(err)
		}
		for lo := 0; lo < q.X.Len(); lo += 37 {
			if err := s.Add(split(q, lo, min(q.X.Len(), lo+37))); err != nil {
				t.Fatal(err)
			}
		}
		out, err := s.Stats()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	merged, err := sum(old).Merge(sum(fresh))
	if err != nil {
		t.Fatal(err)
	}
	got, err := merged.Solve(m.Config.Ridge)
	if err != nil {
		t.Fatal(err)
	}
	if got.Nodes() != want.Nodes() || !slices.Equal(got.Beta, want.Beta) || !slices.Equal(got.Params, want.Params) {
		t.Fatalf("grown by GrowNodes: %d nodes, GrowUpdate %d; weights equal %v", got.Nodes(), want.Nodes(), slices.Equal(got.Beta, want.Beta))
	}
	for _, b := range got.Beta {
		if math.IsNaN(b) {
			t.Fatal("NaN weight")
		}
	}
	r := Fast(RVFL2D)
	r.MaxNodes = 10
	rm := fitT(t, r, old)
	if _, err := rm.GrowNodes(context.Background(), fresh, 4); !errors.Is(err, ErrConfig) {
		t.Fatalf("a random learner grown: %v", err)
	}
}
