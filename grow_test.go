package scn

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
)

// split returns the images [lo, hi) of p as a problem.
func split(p Problem, lo, hi int) Problem {
	d := p.X.Dim()
	x := p.X
	x.Pix = p.X.Pix[lo*d : hi*d]
	return Problem{X: x, T: p.T[lo*p.M : hi*p.M], M: p.M, Classes: p.Classes}
}

// objective is the ridge objective ||T - H beta||^2 + a ||beta||^2 of a
// solve of s, from the sums alone.
func objective(s *Stats, m *Model, ridge float64) float64 {
	r := s.view().RMSE(m.Beta, ridge)
	o := r * r * float64(s.N*s.M)
	for _, b := range m.Beta {
		o += ridge * b * b
	}
	return o
}

// TestGrowIsLeastSquaresOnBoth: a supervised model fitted on A and grown
// on the residual it leaves on B keeps its nodes first; the solve of the
// merged statistics of A and B for all the nodes is the least squares on
// A + B (1e-9 relative in beta against the statistics of A + B summed at
// once), and its ridge objective is no larger than that of the old nodes
// re-solved on A + B (the new nodes can only help).
func TestGrowIsLeastSquaresOnBoth(t *testing.T) {
	p := blobProblem(t, 900)
	a, b := split(p, 0, 600), split(p, 600, 900)
	for _, k := range []Kind{SCN, SCN2D} {
		c := Fast(k)
		c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax, c.Candidates = 40, 10, 3, 6, 2
		m := fitT(t, c, a)
		y, err := m.Predict(b.X)
		if err != nil {
			t.Fatal(err)
		}
		r := make([]float64, len(y))
		for i := range r {
			r[i] = b.T[i] - y[i]
		}
		g, err := m.Grow(context.Background(), b.X, r, 20, 7)
		if err != nil {
			t.Fatal(err)
		}
		np := m.ParamsPerNode()
		if g.Nodes() <= m.Nodes() || g.Nodes() > m.Nodes()+20 || !slices.Equal(g.Params[:m.Nodes()*np], m.Params) {
			t.Fatalf("%v: %d nodes grown to %d, old nodes kept %v", k, m.Nodes(), g.Nodes(), slices.Equal(g.Params[:m.Nodes()*np], m.Params))
		}
		sa, _ := g.Stats(a)
		sb, _ := g.Stats(b)
		merged, err := sa.Merge(sb)
		if err != nil {
			t.Fatal(err)
		}
		got, err := merged.Solve(c.Ridge)
		if err != nil {
			t.Fatal(err)
		}
		all, _ := g.Stats(p)
		want, _ := all.Solve(c.Ridge)
		var diff, norm float64
		for i := range want.Beta {
			diff = math.Max(diff, math.Abs(got.Beta[i]-want.Beta[i]))
			norm = math.Max(norm, math.Abs(want.Beta[i]))
		}
		if diff > 1e-9*norm {
			t.Fatalf("%v: beta of the merged statistics %g from the least squares on A + B (max %g)", k, diff, norm)
		}
		so, _ := m.Stats(p)
		old, _ := so.Solve(c.Ridge)
		if og, oo := objective(merged, got, c.Ridge), objective(so, old, c.Ridge); og > oo*(1+1e-9) {
			t.Fatalf("%v: the grown model's ridge objective %g exceeds the old nodes' %g", k, og, oo)
		}
	}
	m := fitT(t, func() Config { c := Fast(RVFL); c.MaxNodes = 20; return c }(), a)
	if _, err := m.Grow(context.Background(), b.X, b.T, 5, 1); !errors.Is(err, ErrConfig) {
		t.Fatalf("grew a random learner: %v", err)
	}
}
