package scn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/linalg"
)

// TestSelectStreamIsSelect: a streamed selection with a hold-out chooses
// what Select chooses on the same images, with the same scores for every
// (L, ridge) of the grid (bit for bit; with OpenBLAS to 1e-4 relative),
// the same nodes, and output weights equal to rounding (relative 1e-9;
// OpenBLAS 1e-4), for a random and both supervised learners, the source
// cut into shards that do not line up with the row shards.
func TestSelectStreamIsSelect(t *testing.T) {
	withShardRows(t, 64)
	p := oddProblem(t, 300)
	for _, k := range []Kind{RVFL2D, SCN2D, SCN} {
		c := streamSupervisedConfig(k, false)
		if k.Choice == Random {
			c.MaxNodes, c.BlockSize = 90, 30
		}
		s := Selection{Validation: 0.2, Points: 12}
		want, err := c.Select(context.Background(), p, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, sizes := range [][]int{{300}, {37, 101, 1}} {
			name := fmt.Sprintf("%v, source shards %v", k, sizes)
			got, err := c.SelectStream(context.Background(), ProblemSource(p, sizes...), s, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			ws, gs := *want.Selection, *got.Selection
			// OpenBLAS: the fits and the scores agree to rounding (see
			// sameStreamed), amplified in the scores of the smallest
			// ridge terms (2e-6 relative seen).
			tol, btol := 0.0, 1e-9
			if linalg.Backend() == "openblas" {
				tol, btol = 1e-4, 1e-4
			}
			if !sameChoice(gs, ws, tol) {
				t.Fatalf("%s: the streamed choice differs:\n got  %+v\n want %+v", name, gs, ws)
			}
			if !slices.Equal(got.Params, want.Params) || !slices.Equal(got.Bias, want.Bias) || got.Config.Ridge != want.Config.Ridge {
				t.Fatalf("%s: the streamed model's nodes differ", name)
			}
			if d := relDiff(got.Beta, want.Beta); d > btol {
				t.Fatalf("%s: the output weights differ by %.3g relative", name, d)
			}
			if math.Abs(got.Summary.TrainRMSE-want.Summary.TrainRMSE) > (1e-9+tol)*want.Summary.TrainRMSE || got.Summary.Samples != 300 {
				t.Fatalf("%s: training RMSE %v (%d images), %v in memory", name, got.Summary.TrainRMSE, got.Summary.Samples, want.Summary.TrainRMSE)
			}
			t.Logf("%s: L = %d of %d, ridge %g, held-out accuracy %.3f", name, gs.Nodes, gs.FitNodes, gs.Ridge, gs.Accuracy)
		}
	}
}

// TestSelectStreamBadInput: k-fold selection and Patience are refused; a
// shard with another image size stops the selection with its name; a
// cancelled stream returns its error and no model, in the labels' pass, the
// fit and the held-out pass.
func TestSelectStreamBadInput(t *testing.T) {
	p := oddProblem(t, 300)
	c := streamSupervisedConfig(SCN, false)
	for _, s := range []Selection{{Folds: 3}, {Validation: 0.2, Patience: 2}} {
		if m, err := c.SelectStream(context.Background(), ProblemSource(p, 50), s, nil); m != nil || !errors.Is(err, ErrConfig) {
			t.Fatalf("%+v: model %v, error %v", s, m != nil, err)
		}
	}
	s := Selection{Validation: 0.2}
	if m, err := c.SelectStream(context.Background(), badShapeSource{p}, s, nil); m != nil || !errors.Is(err, ErrData) || !containsStr(err, "part-00002") {
		t.Fatalf("a bad shard: model %v, error %v", m != nil, err)
	}
	// 6 shards a pass: the labels (1), the fit (2-6), the held-out part (7).
	for _, after := range []int{2, 8, 20, 39} {
		ctx, cancel := context.WithCancel(context.Background())
		seen := 0
		m, err := c.SelectStream(ctx, cancelSource{ProblemSource(p, 50), after, cancel, &seen}, s, nil)
		cancel()
		if m != nil || !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled after %d shards: model %v, error %v", after, m != nil, err)
		}
	}
}

// sameChoice reports whether two selections are the same but for their
// scores' RMSE, equal to within tol relative (0: the same bits).
func sameChoice(a, b Choice, tol float64) bool {
	near := func(x, y float64) bool { return x == y || math.Abs(x-y) <= tol*math.Abs(y) }
	ca, cb := a.Curve, b.Curve
	a.Curve, b.Curve = nil, nil
	if !near(a.RMSE, b.RMSE) || len(ca) != len(cb) {
		return false
	}
	a.RMSE = b.RMSE
	if !reflect.DeepEqual(a, b) {
		return false
	}
	for i := range ca {
		if ca[i].Nodes != cb[i].Nodes || ca[i].Ridge != cb[i].Ridge || ca[i].Accuracy != cb[i].Accuracy || !near(ca[i].RMSE, cb[i].RMSE) {
			return false
		}
	}
	return true
}

func containsStr(err error, s string) bool {
	return err != nil && strings.Contains(err.Error(), s)
}
