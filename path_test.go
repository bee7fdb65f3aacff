package scn

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestPathSolveIsTheRidgeClosedForm checks that a path's model for any
// prefix and ridge term has the output weights (H^T H + alpha I)^-1 H^T T of
// its nodes, and the training RMSE of those weights, for every kind and on
// both sides of rank for the random learners.
func TestPathSolveIsTheRidgeClosedForm(t *testing.T) {
	p := blobProblem(t, 60)
	tt := mat.NewDense(p.X.Len(), p.M, p.T)
	for _, k := range Kinds {
		c := Paper(k)
		c.MaxNodes = 90
		path, err := c.FitPath(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []int{1, 17, min(path.Nodes(), 45), path.Nodes()} {
			for _, alpha := range []float64{1e-3, 0.5, 20} {
				pm, err := path.Solve(l, alpha)
				if err != nil {
					t.Fatal(err)
				}
				h := hiddenDense(pm, p.X)
				var g, ht mat.Dense
				g.Mul(h.T(), h)
				for i := 0; i < l; i++ {
					g.Set(i, i, g.At(i, i)+alpha)
				}
				ht.Mul(h.T(), tt)
				var want mat.Dense
				if err := want.Solve(&g, &ht); err != nil {
					t.Fatal(err)
				}
				if d := relDiff(pm.Beta, want.RawMatrix().Data); d > 1e-8 {
					t.Errorf("%v L=%d alpha=%g: beta differs from the closed form by %.3g", k, l, alpha, d)
				}
				y, _ := pm.Predict(p.X)
				if got, want := pm.Summary.TrainRMSE, RMSE(y, p.T); math.Abs(got-want) > 1e-7*max(1, want) {
					t.Errorf("%v L=%d alpha=%g: train RMSE %v, direct %v", k, l, alpha, got, want)
				}
				if pm.Config.Ridge != alpha {
					t.Errorf("%v: prefix model records ridge %v, want %v", k, pm.Config.Ridge, alpha)
				}
			}
		}
		if _, err := path.Solve(0, 0); err == nil {
			t.Errorf("%v: a prefix of 0 nodes was accepted", k)
		}
		if _, err := path.Solve(1, math.NaN()); err == nil {
			t.Errorf("%v: a NaN ridge was accepted", k)
		}
	}
}
