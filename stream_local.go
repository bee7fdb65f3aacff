package scn

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/streamfit"
)

// Streamed fits of local random learners (Config.Local with RVFL or
// 2DRVFL): their passes and what they sum are internal/streamfit's
// package doc; the passes after the first are internal/localnet's.

// errLocalSelectStream is SelectStream's error for local nodes.
var errLocalSelectStream = fmt.Errorf("%w: model selection of local nodes is not streamed (it scores held-out images in memory): fit them streamed without selection, or select in memory", ErrConfig)

// fitLocalStream is FitStream for a local random learner (c checked): the
// first pass here, the whitening's pass, the draws, the further passes
// and the solve internal/localnet's (Fit.Stream).
func (c Config) fitLocalStream(ctx context.Context, src Source, progress func(Step)) (*Model, error) {
	start := time.Now()
	sc, mean, sd, channels, err := c.scanLocalStream(ctx, src)
	if err != nil {
		return nil, err
	}
	g := c.Local.Clone()
	if err := g.ForImages(sc.rows, sc.cols, sc.chans); err != nil {
		return nil, err
	}
	lf := localnet.NewFit(c.localOptions(), g, nil, sc.n, sc.rows, sc.cols, sc.chans, sc.m, mean, sd, newRand(c.Seed))
	pass := func(fn func(x []float32, r int, tc []float64) error) error {
		x := Images{Rows: sc.rows, Cols: sc.cols, Channels: channels}
		return streamRowsOf(ctx, src, sc, sc.n, &x, func(r int, tc []float64) error { return fn(x.Pix, r, tc) })
	}
	var whitening []*patchWhitening
	if g.Whiten {
		t0 := time.Now()
		if whitening, err = localnet.StreamWhitening(pass, sc.n, sc.rows, sc.cols, sc.chans, g, mean, sd, c.Seed); err != nil {
			return nil, err
		}
		lf.Prof.Draw += time.Since(t0)
	}
	res, err := lf.Stream(pass, sc.tt, whitening, c.Float32Gram || c.BF16Gram, c.BF16Gram)
	if short, ok := localnet.IsShortStream(err); ok {
		return nil, fmt.Errorf("%w: %v", ErrData, short)
	}
	if err != nil {
		return nil, err
	}
	cfg := c
	cfg.Local = g
	cfg.Augment = nil
	cfg.Scales = slices.Clone(c.Scales)
	cfg.Ratios = slices.Clone(c.Ratios)
	trace := localTrace(lf.Trace)
	m := &Model{
		Kind: c.Kind, Activation: c.Activation, Rows: sc.rows, Cols: sc.cols, Channels: channels, M: sc.m,
		Params: []float32{}, Bias: []float32{}, Beta: res.Beta, Config: cfg, Local: res.Layer,
		Summary: Summary{
			Nodes: res.L, Samples: sc.n, Stop: ReachedMaxNodes, TrainRMSE: math.Sqrt(res.RSS / float64(sc.n*sc.m)),
			Tried: lf.Tried, Trace: trace, Duration: time.Since(start), Profile: Profile(lf.Prof),
		},
	}
	if sc.classes != nil {
		m.Classes = slices.Clone(sc.classes)
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	if progress != nil {
		for _, st := range trace {
			progress(st)
		}
	}
	return m, nil
}

// scanLocalStream is the first pass of a streamed local fit
// (streamfit.ScanLocal); channels is the images' Channels field.
func (c Config) scanLocalStream(ctx context.Context, src Source) (sc *streamScan, mean, sd []float64, channels int, err error) {
	s, mean, sd, err := streamfit.ScanLocal(shardsOf(ctx, src))
	if err != nil {
		return nil, nil, nil, 0, asDataErr(err)
	}
	return scanOf(s), mean, sd, s.Channels, nil
}

// localStreamBytes is EstimateStreamMemoryC for local nodes (internal/memest's
// Local.Stream).
func (c Config) localStreamBytes(rows, cols, chans, m int) int64 {
	return c.localShape(0, rows, cols, chans, m).Stream() + localnet.SecondStreamBytes(c.Local, rows, cols, chans)
}
