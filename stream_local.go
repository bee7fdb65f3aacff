package scn

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/localnet"
)

// Streamed fits of local random learners (Config.Local with RVFL or
// 2DRVFL; issue 31 item 3): FitStream reads the images shard by shard and
// never holds them all, nor the pooled outputs of every image.
//
//   - Pass 1 checks every shard as a global streamed fit does (shape,
//     outputs, classes), counts the images, sums T_q^T T_q and the planes'
//     moments (each plane's sums over the pixels, image by image in order:
//     the bits planeMoments forms in memory).
//   - With Local.Whiten, a pass gathers each filter size's sample of
//     patches (internal/localnet's StreamWhitening, the fit in memory's
//     sample planned from the count of images alone, each patch read when
//     its image comes by): the whitening is the fit in memory's.
//   - Every filter is then drawn as the fit in memory draws them (the
//     same random numbers in the same order, the planes' standardisation
//     folded in).
//   - Pass 2 (Local.Standardize only) applies the filters,
//     localnet.RandomBlock at a time as in memory, to each row shard of
//     lsq.ShardRows images and sums each pooled output over the images in
//     order: its mean is the fit in memory's, bit for bit; its deviation
//     comes from sums shifted by the output on the first image (Sum (h -
//     h_1) and Sum (h - h_1)^2, where the fit in memory sums (h - mean)^2
//     over the column it holds): the same to rounding, so that a scale
//     may differ from the fit in memory's in its last bit.
//   - Pass 3 forms the Gram sums of the standardised outputs over the same
//     row shards with the engine's one-pass accumulation (the products the
//     fit in memory forms block by block, reduced in the same shard order),
//     grows the factor block by block and solves the output weights.
//
// The model is the fit in memory's: the same filters, means and trace;
// the output weights the same to rounding (TestLocalStream bounds the
// difference at 1e-9 relative; bit for bit when no scale differs); the
// training RMSE from the sums (tr(T^T T) - 2 tr(beta^T H^T T) + tr(beta^T
// G beta), where the fit in memory forms the residual). Memory: G and its
// factor (L x L float64), one row shard's pooled outputs (L x ShardRows
// float32, with the engine's pass buffers) and the images of one row
// shard (and the whitening's samples): it does not grow with N.
// Supervised local fits (their candidates are judged on the residual of
// every image) and augmented ones are not streamed.

// localStreamFits reports whether FitStream can fit the local
// configuration c, and if not, why.
func (c Config) localStreamFits() error {
	switch {
	case c.Kind.Choice == Supervised:
		return fmt.Errorf("%w: local nodes of %s are not streamed (each block of filters is chosen on the residual of every image; not built): fit them in memory (--resize, fewer --filters) or stream a random learner (rvfl, 2drvfl)", ErrConfig, c.Kind)
	case c.Augment != nil:
		return fmt.Errorf("%w: augmented local fits are not streamed (their copies are formed from the images in memory)", ErrConfig)
	case !(c.Ridge > 0):
		return fmt.Errorf("%w: a streamed fit needs a ridge > 0", ErrConfig)
	}
	return nil
}

// errLocalSelectStream is SelectStream's error for local nodes.
var errLocalSelectStream = fmt.Errorf("%w: model selection of local nodes is not streamed (it scores held-out images in memory): fit them streamed without selection, or select in memory", ErrConfig)

// localStreamPasses returns the reads of the data of a streamed local fit:
// 3, or 2 without standardisation of the pooled outputs, and one more for
// whitening.
func (c Config) localStreamPasses() int {
	n := 2
	if c.Local.Standardize {
		n++
	}
	if c.Local.Whiten {
		n++
	}
	if c.Local.Second != nil {
		n++ // the moments of the planes the second layer reads
	}
	return n
}

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

// scanLocalStream is the first pass of a streamed local fit: the checks
// and counts of scanStream, T_q^T T_q, and the planes' means and
// deviations as planeMoments forms them; channels is the images'
// Channels field.
func (c Config) scanLocalStream(ctx context.Context, src Source) (sc *streamScan, mean, sd []float64, channels int, err error) {
	var mo *local.Moments
	err = src.Shards(ctx, func(sh Shard) error {
		x := sh.X
		if sc == nil {
			sc = &streamScan{m: sh.M, classes: slices.Clone(sh.Classes), rows: x.Rows, cols: x.Cols, chans: x.Chans(), tt: make([]float64, sh.M)}
			channels = x.Channels
			mo = local.NewMoments(sc.chans, x.Rows*x.Cols)
		}
		if err := sc.checkShard(sh); err != nil {
			return err
		}
		n, m := x.Len(), sh.M
		mo.Add(x.Pix, n)
		for i := 0; i < n; i++ {
			for q := 0; q < m; q++ {
				t := sh.T[i*m+q]
				sc.tt[q] += t * t
			}
		}
		sc.n += n
		return nil
	})
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if sc == nil || sc.n == 0 {
		return nil, nil, nil, 0, fmt.Errorf("%w: the stream holds no image", ErrData)
	}
	mean, sd = mo.Result()
	return sc, mean, sd, channels, nil
}

// localStreamBytes is EstimateStreamMemoryC for local nodes (internal/memest's
// Local.Stream).
func (c Config) localStreamBytes(rows, cols, chans, m int) int64 {
	return c.localShape(0, rows, cols, chans, m).Stream() + localnet.SecondStreamBytes(c.Local, rows, cols, chans)
}
