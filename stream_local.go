package scn

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/lsq"
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
//     patches (stream_whiten.go): the whitening is the fit in memory's.
//   - Every filter is then drawn as randomBank draws them (the same random
//     numbers in the same order, the planes' standardisation folded in).
//   - Pass 2 (Local.Standardize only) applies the filters, localRandomBlock
//     at a time as in memory, to each row shard of lsq.ShardRows images and
//     sums each pooled output over the images in order: its mean is the
//     fit in memory's, bit for bit; its deviation comes from sums shifted
//     by the output on the first image (Sum (h - h_1) and Sum (h - h_1)^2,
//     where the fit in memory sums (h - mean)^2 over the column it holds):
//     the same to rounding, so that a scale may differ from the fit in
//     memory's in its last bit.
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

// localStreamBlock is one block of filters of a streamed local fit: the
// filters a pass of the fit in memory applies at once, and the first
// column of its pooled outputs.
type localStreamBlock struct {
	layer localApplier
	off   int
}

// localApplier is a block of filters ready to apply: a local.Layer, or a
// local.Stack (a block of a second layer's filters after the first
// layer).
type localApplier interface {
	Outputs() int
	Apply(x []float32, n int, out []float32, ldo, off int) error
}

// fitLocalStream is FitStream for a local random learner (c checked).
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
	lf := &localFit{cfg: c, g: g, n: sc.n, m: sc.m, ch: sc.chans, rng: newRand(c.Seed), cmean: mean, csd: sd}
	var whitening []*patchWhitening
	if g.Whiten {
		t0 := time.Now()
		if whitening, err = c.localStreamWhitening(ctx, src, sc, g, mean, sd, channels); err != nil {
			return nil, err
		}
		lf.prof.Draw += time.Since(t0)
	}
	if g.Second != nil {
		return c.fitLocal2Stream(ctx, src, sc, lf, whitening, channels, start, progress) // stream_local2.go
	}
	// Every filter, bank by bank and block by block, as randomBank draws
	// them.
	per, lambda := g.PerFilter(), c.Scales[0]
	var blocks []localStreamBlock
	var sizes []int // the blocks' columns
	var trace []Step
	L := 0
	t0 := time.Now()
	for bi, k := range g.Sizes {
		nm := filterMap(c.Kind.Input, k, sc.chans)
		np := nm.Size()
		if whitening != nil {
			lf.pw, lf.wm = whitening[bi], whitening[bi].Matrix32()
		}
		bank := LocalBank{Size: k, Params: []float32{}, Bias: []float32{}, Whiten: lf.wm}
		for done := 0; done < g.Filters; {
			b := min(localRandomBlock, g.Filters-done)
			params, bias := make([]float32, b*np), make([]float32, b)
			for j := range bias {
				bias[j] = lf.drawFilter(nm, k, lambda, params[j*np:(j+1)*np])
			}
			ly := bankLayer(c.Kind.Input, c.Activation, g, LocalBank{Size: k, Params: params, Bias: bias, Whiten: lf.wm}, sc.rows, sc.cols, sc.chans)
			blocks = append(blocks, localStreamBlock{layer: ly, off: L})
			sizes = append(sizes, b*per)
			L += b * per
			for j := 0; j < b; j++ {
				trace = append(trace, Step{L: L - (b-1-j)*per, Scale: lambda, Tried: 1})
			}
			bank.Params = append(bank.Params, params...)
			bank.Bias = append(bank.Bias, bias...)
			done += b
		}
		lf.banks = append(lf.banks, bank)
	}
	lf.prof.Draw = time.Since(t0)
	lf.tried = g.Filters * len(g.Sizes)
	return c.localStreamSolve(ctx, src, sc, lf, blocks, sizes, trace, channels, start, progress)
}

// localStreamSolve ends a streamed local fit whose filters are drawn
// (lf.banks, lf.tried; lf.g the geometry): blocks are their blocks of
// pooled outputs, sizes their columns, trace their steps. It forms the
// pooled outputs' standardisation (pass 2), the Gram sums (pass 3) and
// the output weights, and returns the model.
func (c Config) localStreamSolve(ctx context.Context, src Source, sc *streamScan, lf *localFit, blocks []localStreamBlock, sizes []int, trace []Step,
	channels int, start time.Time, progress func(Step)) (*Model, error) {
	g := lf.g
	L := 0
	for _, s := range sizes {
		L += s
	}
	var err error
	x := Images{Rows: sc.rows, Cols: sc.cols, Channels: channels}
	rmax := min(sc.n, lsq.ShardRows)
	rowsBuf := make([]float32, rmax*L) // one row shard's pooled outputs, image-major
	features := func(r int) error {
		for _, b := range blocks {
			if err := b.layer.Apply(x.Pix, r, rowsBuf, L, b.off); err != nil {
				return err
			}
		}
		lf.prof.Products += int64(len(blocks))
		lf.prof.Batches++
		return nil
	}
	var cmean, csc []float32
	if g.Standardize {
		t1 := time.Now()
		if cmean, csc, err = c.localStreamMoments(ctx, src, sc, &x, L, rowsBuf, features); err != nil {
			return nil, err
		}
		lf.prof.Scoring += time.Since(t1)
	}
	// The Gram sums of every block in one pass.
	t2 := time.Now()
	eng := lsq.NewGramH(nil, 0, sc.m, c.Ridge, c.Float32Gram || c.BF16Gram, L, false)
	eng.BF16 = c.BF16Gram
	eng.TT = sc.tt
	ps := eng.NewPass(sizes, rmax)
	hidden := func(lo, hi, j0, j1 int, h []float32) {
		w := hi - lo
		for j := j0; j < j1; j++ {
			dst := h[(j-j0)*w : (j-j0+1)*w]
			for i := range dst {
				dst[i] = rowsBuf[(lo+i)*L+j]
			}
		}
	}
	err = streamRowsOf(ctx, src, sc, sc.n, &x, func(r int, tc []float64) error {
		if err := features(r); err != nil {
			return err
		}
		standardizeRows(rowsBuf[:r*L], L, cmean, csc)
		eng.TC, eng.N = tc, r
		eng.PassShard(ps, 0, r, hidden)
		return nil
	})
	eng.TC, eng.N = nil, sc.n
	if err != nil {
		return nil, err
	}
	eng.EndPass(ps)
	for range sizes {
		if !eng.AddAccumulated() {
			return nil, fmt.Errorf("scn: pooled outputs of local filters are linearly dependent (ridge %g)", c.Ridge)
		}
	}
	lf.prof.Ortho = time.Since(t2)
	t3 := time.Now()
	beta, err := eng.Solve(L, c.Ridge)
	if err != nil {
		return nil, err
	}
	lf.prof.Solve = time.Since(t3)
	cfg := c
	cfg.Local = g
	cfg.Augment = nil
	cfg.Scales = slices.Clone(c.Scales)
	cfg.Ratios = slices.Clone(c.Ratios)
	ll := &LocalLayer{Geometry: *g, Banks: lf.banks}
	if g.Second != nil {
		ll.Banks, ll.Second = lf.secondBanks()
	}
	if g.Standardize {
		ll.Mean, ll.Scale = cmean, csc
	}
	m := &Model{
		Kind: c.Kind, Activation: c.Activation, Rows: sc.rows, Cols: sc.cols, Channels: channels, M: sc.m,
		Params: []float32{}, Bias: []float32{}, Beta: beta, Config: cfg, Local: ll,
		Summary: Summary{
			Nodes: L, Samples: sc.n, Stop: ReachedMaxNodes, TrainRMSE: math.Sqrt(eng.RSS(L, beta) / float64(sc.n*sc.m)),
			Tried: lf.tried, Trace: trace, Duration: time.Since(start), Profile: lf.prof,
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

// localStreamMoments is the second pass of a streamed local fit: each
// pooled output's mean and scale over the images (see the top of the
// file), the outputs of a row shard computed by features into rows.
func (c Config) localStreamMoments(ctx context.Context, src Source, sc *streamScan, x *Images, L int, rows []float32, features func(r int) error) (mean, scale []float32, err error) {
	s, a, b, first := make([]float64, L), make([]float64, L), make([]float64, L), make([]float64, L)
	seen := 0
	err = streamRowsOf(ctx, src, sc, sc.n, x, func(r int, _ []float64) error {
		if err := features(r); err != nil {
			return err
		}
		if seen == 0 {
			for j := range first {
				first[j] = float64(rows[j])
			}
		}
		forChunks(L, 64, func(_, j0, j1 int) {
			for i := 0; i < r; i++ {
				row := rows[i*L : (i+1)*L]
				for j := j0; j < j1; j++ {
					v := float64(row[j])
					s[j] += v
					d := v - first[j]
					a[j] += d
					b[j] += d * d
				}
			}
		})
		seen += r
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	n := float64(sc.n)
	mean, scale = make([]float32, L), make([]float32, L)
	for j := range mean {
		mu := s[j] / n
		v := max(b[j]-a[j]*a[j]/n, 0) / n
		mean[j], scale[j] = float32(mu), float32(math.Sqrt(v)+1e-6)
	}
	return mean, scale, nil
}

// localStreamBytes is EstimateStreamMemoryC for local nodes (internal/memest's
// Local.Stream).
func (c Config) localStreamBytes(rows, cols, chans, m int) int64 {
	return c.localShape(0, rows, cols, chans, m).Stream() + c.secondStreamBytes(rows, cols, chans)
}
