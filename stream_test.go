package scn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fitStreamT fits c on p streamed in shards of the given sizes.
func fitStreamT(t *testing.T, c Config, p Problem, sizes ...int) *Model {
	t.Helper()
	m, err := c.FitStream(context.Background(), ProblemSource(p, sizes...), nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFitStreamIsTheFit: a streamed fit, its source cut into shards of
// sizes that do not line up with the engine's row shards, gives the model
// file of Fit on the same images, byte for byte, for both random learners,
// the three Gram precisions, with and without standardised difference
// nodes on receptive fields (N below the 10000 images difference nodes are
// drawn from in a streamed fit). Row shards of 64 images give the 300
// images five of them, the last one short.
func TestFitStreamIsTheFit(t *testing.T) {
	withShardRows(t, 64)
	p := oddProblem(t, 300)
	for _, k := range []Kind{RVFL2D, RVFL} {
		for _, prec := range gramPrecisions {
			for _, plain := range []bool{false, true} {
				c := Fast(k)
				c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 90, 30, 3, 6
				if plain {
					c.FieldMin, c.FieldMax, c.Standardize, c.Differences = 0, 0, false, false
				}
				setGramPrecision(&c, prec)
				name := fmt.Sprintf("%v %s plain %v", k, prec, plain)
				want := modelBytes(t, fitT(t, c, p))
				for _, sizes := range [][]int{{300}, {37, 101, 1}, {64}, {1000}} {
					got := modelBytes(t, fitStreamT(t, c, p, sizes...))
					if !bytes.Equal(got, want) {
						t.Fatalf("%s, source shards %v: the streamed model differs from the fit in memory", name, sizes)
					}
				}
			}
		}
	}
}

// TestFitStreamDefaultShards: the same at the real row shard size (three
// of 2048 images, the last one short) with the fast preset's nodes.
func TestFitStreamDefaultShards(t *testing.T) {
	p := blobProblem(t, 4500)
	for _, k := range []Kind{RVFL2D, RVFL} {
		c := Fast(k)
		c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 120, 50, 3, 6
		want := modelBytes(t, fitT(t, c, p))
		if got := modelBytes(t, fitStreamT(t, c, p, 999, 3000)); !bytes.Equal(got, want) {
			t.Fatalf("%v: the streamed model differs from the fit in memory", k)
		}
	}
}

// badShapeSource is a source whose third shard has images of another size.
type badShapeSource struct{ p Problem }

func (s badShapeSource) Shards(ctx context.Context, f func(Shard) error) error {
	return ProblemSource(s.p, 50).Shards(ctx, func(sh Shard) error {
		if strings.HasPrefix(sh.Name, "shard 2 ") {
			sh.X.Rows, sh.X.Cols = sh.X.Cols, sh.X.Rows
			sh.Name = "part-00002"
		}
		return f(sh)
	})
}

// cancelSource cancels its context after the given number of shards.
type cancelSource struct {
	Source
	after  int
	cancel func()
	seen   *int
}

func (s cancelSource) Shards(ctx context.Context, f func(Shard) error) error {
	return s.Source.Shards(ctx, func(sh Shard) error {
		*s.seen++
		if *s.seen == s.after {
			s.cancel()
		}
		return f(sh)
	})
}

// TestFitStreamBadInput: a shard with another image size stops the fit
// with its name and no model; a cancelled stream returns the context's
// error and no model, in either pass; supervised fits with bfloat16 Gram
// products, fits without a ridge and robust fits are refused with the
// reason.
func TestFitStreamBadInput(t *testing.T) {
	p := oddProblem(t, 300)
	c := Fast(RVFL)
	c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 40, 20, 3, 6
	m, err := c.FitStream(context.Background(), badShapeSource{p}, nil)
	if m != nil || err == nil || !strings.Contains(err.Error(), "part-00002") || !errors.Is(err, ErrData) {
		t.Fatalf("a shard of 7 x 9 images among 9 x 7: model %v, error %v", m != nil, err)
	}
	for _, after := range []int{2, 8} { // in the first pass (6 shards), in the second
		ctx, cancel := context.WithCancel(context.Background())
		seen := 0
		m, err := c.FitStream(ctx, cancelSource{ProblemSource(p, 50), after, cancel, &seen}, nil)
		cancel()
		if m != nil || !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled after %d shards: model %v, error %v", after, m != nil, err)
		}
	}
	for _, bad := range []func(*Config){
		func(c *Config) { *c = Fast(SCN2D); c.BF16Gram = true },
		func(c *Config) { c.Ridge = 0 },
		func(c *Config) { c.Robust = true },
	} {
		cc := c
		bad(&cc)
		m, err := cc.FitStream(context.Background(), ProblemSource(p, 50), nil)
		if m != nil || !errors.Is(err, ErrConfig) {
			t.Fatalf("%v ridge %v robust %v: model %v, error %v", cc.Kind, cc.Ridge, cc.Robust, m != nil, err)
		}
	}
	c2 := Fast(SCN2D)
	c2.BF16Gram = true
	if _, err := c2.FitStream(context.Background(), ProblemSource(p), nil); !strings.Contains(err.Error(), "bfloat16") {
		t.Fatalf("the refusal of a supervised fit with bfloat16 Gram products does not say why: %v", err)
	}
}

// TestEstimateStreamMemoryIgnoresN: the estimate of a streamed fit does
// not depend on N and is below the in-memory estimate of a large set.
func TestEstimateStreamMemoryIgnoresN(t *testing.T) {
	c := Fast(RVFL)
	s := c.EstimateStreamMemory(28, 28, 10)
	if in := c.EstimateBytes(1260000, 28, 28, 10) + 1260000*784*4; s >= in/4 {
		t.Fatalf("streamed %d bytes, in memory %d", s, in)
	}
	if s < 8*5000*5000 {
		t.Fatalf("streamed estimate %d below G's bytes", s)
	}
}
