package scn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/localnet"
)

// TestLocal2Stream: a streamed fit of two layers of local random filters
// (2DRVFL and RVFL, grey and colour, both layers' outputs or the second's
// only, max and average between the layers, standardised or not,
// whitened first layer, float32 and bfloat16 Gram products, several
// blocks of each layer's filters, the planes' moments over a sample of
// the images) gives the fit in memory's filters of both layers,
// means and trace exactly, its scales to their last bit, its output
// weights the same bits when the scales are (else to 1e-9 relative, 1e-4
// with rounded products), as TestLocalStreamIsTheFit asserts for one
// layer, whatever the source's shards.
func TestLocal2Stream(t *testing.T) {
	withShardRows(t, 16)
	colour, grey := hueProblem(t, 45, 61)
	// Blocks of 33 second-layer filters on 45 images of 8 pooled outputs.
	defer func(old int) { localnet.SecondBlockBytes = old }(localnet.SecondBlockBytes)
	localnet.SecondBlockBytes = 4 * 45 * 8 * 33
	for _, tc := range []struct {
		k      Kind
		p      Problem
		edit   func(*Local)
		prec   string
		shards []int
	}{
		{RVFL2D, colour, func(*Local) {}, "float64", []int{45}},
		{RVFL2D, colour, func(*Local) {}, "float64", []int{7, 13, 1}},
		{RVFL2D, grey, func(l *Local) { l.Second.Concat, l.Second.MidPooling = false, PoolAvg }, "float64", []int{10}},
		{RVFL, colour, func(l *Local) { l.Second.Window, l.Second.Stride = 3, 1 }, "float64", []int{16, 4}},
		{RVFL, grey, func(l *Local) { l.Standardize, l.TwoSided = false, false }, "float64", []int{9}},
		{RVFL2D, colour, func(l *Local) { l.Whiten, l.WhitenEps = true, 0.1 }, "float64", []int{7, 13, 1}},
		{RVFL2D, colour, func(*Local) {}, "float32", []int{20}},
		{RVFL2D, grey, func(*Local) {}, "bfloat16", []int{9}},
		// The planes' moments over a sample of 17 of the 45 images.
		{RVFL2D, colour, func(*Local) { localnet.SecondMomentImages = 17 }, "float64", []int{7, 13, 1}},
	} {
		defer func(old int) { localnet.SecondMomentImages = old }(localnet.SecondMomentImages)
		c := secondConfig(tc.k)
		c.Local.Filters = 40        // two blocks of the first layer's
		c.Local.Second.Filters = 40 // two blocks of the second layer's (33 + 7)
		tc.edit(c.Local)
		setGramPrecision(&c, tc.prec)
		name := fmt.Sprintf("%v ch %d %s %s shards %v", tc.k, tc.p.X.Chans(), c.Local, tc.prec, tc.shards)
		want := fitT(t, c, tc.p)
		var steps int
		got, err := c.FitStream(context.Background(), ProblemSource(tc.p, tc.shards...), func(Step) { steps++ })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got.Local.Banks) != 1 || got.Local.Second == nil {
			t.Fatalf("%s: %d banks, second layer %v", name, len(got.Local.Banks), got.Local.Second != nil)
		}
		wb, gb := want.Local.Banks[0], got.Local.Banks[0]
		if !slices.Equal(wb.Params, gb.Params) || !slices.Equal(wb.Bias, gb.Bias) || !slices.Equal(wb.Whiten, gb.Whiten) {
			t.Fatalf("%s: the first layer's filters differ from the fit in memory's", name)
		}
		ws, gs := want.Local.Second, got.Local.Second
		if ws.Size != gs.Size || ws.Filters() != 40 || !slices.Equal(ws.Params, gs.Params) || !slices.Equal(ws.Bias, gs.Bias) {
			t.Fatalf("%s: the second layer's filters differ from the fit in memory's", name)
		}
		if !slices.Equal(got.Local.Mean, want.Local.Mean) {
			t.Errorf("%s: the pooled outputs' means differ", name)
		}
		if len(got.Local.Scale) != len(want.Local.Scale) {
			t.Fatalf("%s: scales of %d outputs, want %d", name, len(got.Local.Scale), len(want.Local.Scale))
		}
		ulps := 0
		for j, s := range want.Local.Scale {
			if d := math.Abs(float64(got.Local.Scale[j]) - float64(s)); d > 0 {
				ulps++
				if d > 2*float64(s)*0x1p-23 {
					t.Errorf("%s: scale %d is %v, the fit in memory's %v", name, j, got.Local.Scale[j], s)
				}
			}
		}
		tol := 1e-9
		if tc.prec != "float64" {
			tol = 1e-4
		}
		if d := relDiff(got.Beta, want.Beta); !(d <= tol) {
			t.Errorf("%s: output weights differ by %.3g (%d scales differ in their last bits)", name, d, ulps)
		}
		t.Logf("%s: %d scales differ in their last bits, output weights %.3g apart", name, ulps, relDiff(got.Beta, want.Beta))
		if ulps == 0 && !slices.Equal(got.Beta, want.Beta) {
			t.Errorf("%s: the same scales, but output weights not the same bits (%.3g)", name, relDiff(got.Beta, want.Beta))
		}
		rtol := map[string]float64{"float64": 1e-9, "float32": 1e-6, "bfloat16": 1e-4}[tc.prec]
		if d := math.Abs(got.Summary.TrainRMSE - want.Summary.TrainRMSE); !(d <= rtol*want.Summary.TrainRMSE) {
			t.Errorf("%s: training RMSE %v, in memory %v", name, got.Summary.TrainRMSE, want.Summary.TrainRMSE)
		}
		if !slices.Equal(got.Summary.Trace, want.Summary.Trace) || steps != len(want.Summary.Trace) || got.Summary.Samples != 45 ||
			got.Summary.Tried != want.Summary.Tried || got.Summary.Nodes != want.Summary.Nodes || !slices.Equal(got.Classes, want.Classes) {
			t.Errorf("%s: trace (%d, %d steps), progress (%d), samples, tried (%d, %d) or nodes (%d, %d) differ", name,
				len(got.Summary.Trace), len(want.Summary.Trace), steps, got.Summary.Tried, want.Summary.Tried, got.Summary.Nodes, want.Summary.Nodes)
		}
		if err := got.check(); err != nil {
			t.Fatal(err)
		}
		_, back := roundTrip(t, got)
		pa, _ := want.Predict(tc.p.X)
		pb, err := back.Predict(tc.p.X)
		if err != nil || !(relDiff(pb, pa) <= 100*tol) {
			t.Errorf("%s: predictions of the streamed model differ (%v)", name, err)
		}
	}
}

// TestLocal2StreamRefusals: a supervised second layer is not streamed (a
// clear error), bad shards and cancellation in any pass give no model, the
// passes are counted and the memory estimate does not grow with N.
func TestLocal2StreamRefusals(t *testing.T) {
	p, _ := hueProblem(t, 60, 67)
	sup := secondConfig(SCN2D)
	if err := sup.StreamFits(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "chosen on the residual") {
		t.Errorf("StreamFits of a supervised two-layer fit: %v", err)
	}
	c := secondConfig(RVFL2D)
	if err := c.StreamFits(); err != nil {
		t.Fatal(err)
	}
	if n := c.StreamPasses(); n != 4 {
		t.Errorf("%d passes, want 4", n)
	}
	c.Local.Whiten, c.Local.WhitenEps = true, 0.1
	if n := c.StreamPasses(); n != 5 {
		t.Errorf("%d passes with whitening, want 5", n)
	}
	c.Local.Whiten, c.Local.WhitenEps = false, 0
	wide, _ := hueProblem(t, 120, 71)
	if m, err := c.FitStream(context.Background(), badShapeSource{wide}, nil); m != nil || !errors.Is(err, ErrData) {
		t.Errorf("a shard of other images: %v", err)
	}
	for _, after := range []int{1, 4, 7, 10} { // in each of the four passes (3 shards of 20)
		ctx, cancel := context.WithCancel(context.Background())
		seen := 0
		m, err := c.FitStream(ctx, cancelSource{ProblemSource(p, 20), after, cancel, &seen}, nil)
		cancel()
		if m != nil || !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled after %d shards: model %v, error %v", after, m != nil, err)
		}
	}
	big := DefaultLocal()
	big.Second = DefaultLocalSecond(128)
	c.Local = big
	s := c.EstimateStreamMemoryC(64, 64, 3, 10)
	one := c
	one.Local = big.Clone()
	one.Local.Second = nil
	l := float64(big.Outputs())
	if float64(s) < 8*l*l || s >= c.EstimateBytesC(200000, 64, 64, 3, 10) || s <= one.EstimateStreamMemoryC(64, 64, 3, 10) {
		t.Errorf("streamed estimate %d for L = %v", s, l)
	}
}
