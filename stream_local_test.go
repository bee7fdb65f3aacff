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

// TestLocalStreamIsTheFit: a streamed fit of local random filters (2DRVFL
// and RVFL, grey and colour, standardised or not, the three Gram
// precisions) gives the fit in memory's filters, standardisation means and
// trace exactly, its scales to their last bit (the same bits here), its
// output weights the same bits when the scales are (else to 1e-9
// relative, 1e-4 with rounded products), and its training RMSE from the
// sums to the products' rounding, whatever the source's shards; row
// shards of 16 images cut the 45 images into three.
func TestLocalStreamIsTheFit(t *testing.T) {
	withShardRows(t, 16)
	colour, grey := hueProblem(t, 45, 61)
	for _, tc := range []struct {
		k      Kind
		p      Problem
		std    bool
		prec   string
		shards []int
		whiten int // 0: none; else whitened, with at most this many patches sampled
	}{
		{RVFL2D, colour, true, "float64", []int{45}, 0},
		{RVFL2D, colour, true, "float64", []int{7, 13, 1}, 0},
		{RVFL2D, grey, false, "float64", []int{16}, 0},
		{RVFL, colour, true, "float64", []int{10}, 0},
		{RVFL2D, colour, true, "float32", []int{20}, 0},
		{RVFL2D, grey, true, "bfloat16", []int{9}, 0},
		{RVFL2D, colour, true, "float64", []int{7, 13, 1}, localnet.WhitenSamples},
		{RVFL, grey, true, "float64", []int{10}, localnet.WhitenSamples},
		{RVFL2D, colour, true, "float64", []int{16, 4}, 1000}, // a drawn sample, not every patch
	} {
		c := localConfig(tc.k)
		c.Local.Standardize = tc.std
		c.Local.Filters = 40 // two blocks of localRandomBlock per bank
		setGramPrecision(&c, tc.prec)
		if tc.whiten > 0 {
			c.Local.Whiten, c.Local.WhitenEps = true, 0.1
			defer func(old int) { localnet.WhitenSamples = old }(localnet.WhitenSamples)
			localnet.WhitenSamples = tc.whiten
		}
		name := fmt.Sprintf("%v ch %d std %v %s shards %v whiten %d", tc.k, tc.p.X.Chans(), tc.std, tc.prec, tc.shards, tc.whiten)
		want := fitT(t, c, tc.p)
		var steps int
		got, err := c.FitStream(context.Background(), ProblemSource(tc.p, tc.shards...), func(Step) { steps++ })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for b := range want.Local.Banks {
			wb, gb := want.Local.Banks[b], got.Local.Banks[b]
			if wb.Size != gb.Size || !slices.Equal(wb.Params, gb.Params) || !slices.Equal(wb.Bias, gb.Bias) || !slices.Equal(wb.Whiten, gb.Whiten) {
				t.Fatalf("%s: bank %d's filters differ from the fit in memory's", name, b)
			}
			if (wb.Whiten != nil) != (tc.whiten > 0) {
				t.Fatalf("%s: bank %d whitened %v", name, b, wb.Whiten != nil)
			}
		}
		if !slices.Equal(got.Local.Mean, want.Local.Mean) {
			t.Errorf("%s: the pooled outputs' means differ", name)
		}
		if (got.Local.Scale == nil) != (want.Local.Scale == nil) || len(got.Local.Scale) != len(want.Local.Scale) {
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
			tol = 1e-4 // rounded products: a scale's last bit moves them further
		}
		if d := relDiff(got.Beta, want.Beta); !(d <= tol) {
			t.Errorf("%s: output weights differ by %.3g (%d scales differ in their last bits)", name, d, ulps)
		}
		if ulps == 0 && !slices.Equal(got.Beta, want.Beta) {
			// The same outputs in the same row shards: the engine's one-pass
			// sums are the block-by-block path's, bit for bit.
			t.Errorf("%s: the same scales, but output weights not the same bits (%.3g)", name, relDiff(got.Beta, want.Beta))
		}
		// From the sums; in memory, from the residual of the outputs as
		// computed: the two agree to the rounding of the products.
		rtol := map[string]float64{"float64": 1e-9, "float32": 1e-6, "bfloat16": 1e-4}[tc.prec]
		if d := math.Abs(got.Summary.TrainRMSE - want.Summary.TrainRMSE); !(d <= rtol*want.Summary.TrainRMSE) {
			t.Errorf("%s: training RMSE %v, in memory %v", name, got.Summary.TrainRMSE, want.Summary.TrainRMSE)
		}
		if !slices.Equal(got.Summary.Trace, want.Summary.Trace) || steps != len(want.Summary.Trace) || got.Summary.Samples != 45 ||
			got.Summary.Tried != want.Summary.Tried || got.Summary.Nodes != want.Summary.Nodes || !slices.Equal(got.Classes, want.Classes) {
			t.Errorf("%s: trace, progress (%d steps), samples, tried or nodes differ", name, steps)
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

// TestLocalStreamRefusals: what is not streamed is refused with a clear
// error, bad shards and cancellation give no model, and the memory
// estimate does not depend on N.
func TestLocalStreamRefusals(t *testing.T) {
	p, _ := hueProblem(t, 60, 67)
	for _, tc := range []struct {
		c    func() Config
		want string
	}{
		{func() Config { return localConfig(SCN2D) }, "chosen on the residual"},
		{func() Config { c := localConfig(RVFL2D); c.Augment = &Augment{Flip: true}; return c }, "augmented"},
	} {
		c := tc.c()
		if err := c.StreamFits(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("StreamFits: %v, want %q", err, tc.want)
		}
		if m, err := c.FitStream(context.Background(), ProblemSource(p, 20), nil); m != nil || !errors.Is(err, ErrConfig) {
			t.Errorf("FitStream: %v", err)
		}
	}
	c := localConfig(RVFL2D)
	if err := c.StreamFits(); err != nil {
		t.Fatal(err)
	}
	if m, err := c.SelectStream(context.Background(), ProblemSource(p, 20), Selection{Validation: 0.25, Ridges: []float64{1, 10}}, nil); m != nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "local") {
		t.Errorf("SelectStream of local nodes: %v", err)
	}
	if c.StreamPasses() != 3 {
		t.Errorf("%d passes", c.StreamPasses())
	}
	wide, _ := hueProblem(t, 120, 71)
	m, err := c.FitStream(context.Background(), badShapeSource{wide}, nil)
	if m != nil || !errors.Is(err, ErrData) || !strings.Contains(err.Error(), "part-00002") {
		t.Errorf("a shard of other images: %v", err)
	}
	for _, after := range []int{1, 4, 7} { // in the first pass (3 shards of 20), the second, the third
		ctx, cancel := context.WithCancel(context.Background())
		seen := 0
		m, err := c.FitStream(ctx, cancelSource{ProblemSource(p, 20), after, cancel, &seen}, nil)
		cancel()
		if m != nil || !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled after %d shards: model %v, error %v", after, m != nil, err)
		}
	}
	big := DefaultLocal()
	c.Local = big
	s := c.EstimateStreamMemoryC(64, 64, 3, 10)
	l := float64(big.Outputs())
	if float64(s) < 8*l*l || s >= c.EstimateBytesC(200000, 64, 64, 3, 10) {
		t.Errorf("streamed estimate %d for L = %v", s, l)
	}
}
