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
// first pass, the whitening's pass and the solve are internal/streamfit's
// (ScanLocal, FitLocal), the draws and the further passes
// internal/localnet's (Fit.Stream); the model is made here.
func (c Config) fitLocalStream(ctx context.Context, src Source, progress func(Step)) (*Model, error) {
	start := time.Now()
	s, mean, sd, err := streamfit.ScanLocal(shardsOf(ctx, src))
	if err != nil {
		return nil, asDataErr(err)
	}
	sc, channels := scanOf(s), s.Channels
	g := c.Local.Clone()
	if err := g.ForImages(sc.rows, sc.cols, sc.chans); err != nil {
		return nil, err
	}
	lf := localnet.NewFit(c.localOptions(), g, nil, sc.n, sc.rows, sc.cols, sc.chans, sc.m, mean, sd, newRand(c.Seed))
	pass := func(fn func(x []float32, r int, tc []float64) error) error {
		x := Images{Rows: sc.rows, Cols: sc.cols, Channels: channels}
		return streamRowsOf(ctx, src, sc, sc.n, &x, func(r int, tc []float64) error { return fn(x.Pix, r, tc) })
	}
	res, err := streamfit.FitLocal(lf, pass, s, g, mean, sd, c.Seed, c.Float32Gram || c.BF16Gram, c.BF16Gram)
	if err != nil {
		return nil, asDataErr(err)
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

// localStreamBytes is EstimateStreamMemoryC for local nodes (internal/memest's
// Local.Stream).
func (c Config) localStreamBytes(rows, cols, chans, m int) int64 {
	return c.localShape(0, rows, cols, chans, m).Stream() + localnet.SecondStreamBytes(c.Local, rows, cols, chans)
}
