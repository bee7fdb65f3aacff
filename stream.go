package scn

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/scn2d/scn/internal/cfgerr"
	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/streamfit"
)

// Out-of-core fits: FitStream, its first pass and its checks. How a
// streamed fit reads its source, what it sums and how its model compares
// with Fit's is internal/streamfit's package doc.

// Shard is a run of consecutive images of a streamed training set with
// their targets. Every shard of a source has the same image shape, the
// same number of outputs and the same class names.
type Shard struct {
	// Name says where the shard comes from (a file name), for errors.
	Name string
	Problem
}

// Source is a training set read shard by shard, for fits whose images do
// not fit in memory (Config.FitStream).
type Source interface {
	// Shards calls f with each shard in order, the same shards in the same
	// order on every call, and returns the first error f or the reading
	// returns; it stops early when ctx is done, returning ctx's error. A
	// shard's slices belong to f only during the call.
	Shards(ctx context.Context, f func(Shard) error) error
}

// ProblemSource returns a Source of the problem p cut into shards of the
// given sizes in turn (the last size repeated to the end): a set already
// in memory, as FitStream takes it (tests compare the two fits with it).
func ProblemSource(p Problem, sizes ...int) Source { return problemSource{p, sizes} }

type problemSource struct {
	p     Problem
	sizes []int
}

func (s problemSource) Shards(ctx context.Context, f func(Shard) error) error {
	d, m := s.p.X.Dim(), s.p.M
	return streamfit.Cut(ctx, s.p.X.Len(), s.sizes, func(k, lo, hi int) error {
		x := s.p.X
		x.Pix = x.Pix[lo*d : hi*d]
		return f(Shard{Name: fmt.Sprintf("shard %d (images %d to %d)", k, lo, hi-1),
			Problem: Problem{X: x, T: s.p.T[lo*m : hi*m], M: m, Classes: s.p.Classes}})
	})
}

// StreamFits reports whether FitStream can fit c, and if not, why.
func (c Config) StreamFits() error { return c.streamSpec().Fits() }

// StreamPasses returns the reads of the data a FitStream of c takes when
// every block step finds its nodes at the first scale: 2 for a random
// learner; for a supervised one the first pass, one per block step (two
// with standardised pair candidates, whose spreads take a pass of their
// own) and one for the last block's residual: ceil(L / block) + 2. Each
// scale a step tries beyond the first adds as many.
func (c Config) StreamPasses() int { return c.streamSpec().Passes() }

// streamSpec is what decides whether c streams, and its passes.
func (c Config) streamSpec() streamfit.Spec {
	s := streamfit.Spec{Kind: c.Kind.String(), Local: c.mode(runOpts{}) == modeLocal, Supervised: c.Kind.Choice == Supervised,
		BF16Gram: c.BF16Gram, Block: c.blockMode(), Robust: c.Robust, Augment: c.Augment != nil, Ridge: c.Ridge,
		BlockSize: c.BlockSize, MaxNodes: c.MaxNodes, Pairs: c.Pairs, Standardize: c.Standardize}
	if s.Local {
		s.LocalStandardize, s.Whiten, s.Second = c.Local.Standardize, c.Local.Whiten, c.Local.Second != nil
	}
	return s
}

// streamScan is what the first pass of a streamed fit learns.
type streamScan struct {
	n       int
	m       int
	classes []string
	rows    int
	cols    int
	chans   int
	mean    []float32 // the mean image (Standardize), else nil
	tt      []float64 // T_q^T T_q per output
	head    Problem   // the first momentSample images and their targets
}

// checkShard refuses a shard unlike the first one (or unusable).
func (sc *streamScan) checkShard(sh Shard) error {
	if err := sh.Problem.check(); err != nil {
		return fmt.Errorf("scn: %s: %w", sh.Name, err)
	}
	x := sh.X
	shape := streamfit.Shape{Rows: sc.rows, Cols: sc.cols, Chans: sc.chans, M: sc.m, Classes: sc.classes}
	return asDataErr(shape.Check(sh.Name, streamfit.Shape{Rows: x.Rows, Cols: x.Cols, Chans: x.Chans(), M: sh.M, Classes: sh.Classes}))
}

// shardsOf reads src once as internal/streamfit's scans read a stream:
// each shard checked as a problem, their errors about the data wrapped in
// ErrData.
func shardsOf(ctx context.Context, src Source) streamfit.Shards {
	return func(each func(streamfit.Shard) error) error {
		return src.Shards(ctx, func(sh Shard) error {
			if err := sh.Problem.check(); err != nil {
				return fmt.Errorf("scn: %s: %w", sh.Name, err)
			}
			x := sh.X
			return asDataErr(each(streamfit.Shard{Name: sh.Name, Shape: streamfit.Shape{Rows: x.Rows, Cols: x.Cols, Chans: x.Chans(), M: sh.M, Classes: sh.Classes},
				Channels: x.Channels, Pix: x.Pix, T: sh.T, N: x.Len()}))
		})
	}
}

// scanOf is the root's record of a stream's first pass.
func scanOf(s *streamfit.Scan) *streamScan {
	return &streamScan{n: s.N, m: s.M, classes: s.Classes, rows: s.Rows, cols: s.Cols, chans: s.Chans, mean: s.Mean, tt: s.TT,
		head: Problem{X: Images{Rows: s.Rows, Cols: s.Cols, Channels: s.Channels, Pix: s.HeadPix}, T: s.HeadT, M: s.M, Classes: s.Classes}}
}

// scanStream is the first pass of a streamed fit (streamfit.ScanGlobal).
func (c Config) scanStream(ctx context.Context, src Source) (*streamScan, error) {
	s, err := streamfit.ScanGlobal(shardsOf(ctx, src), c.Standardize)
	if err != nil {
		return nil, asDataErr(err)
	}
	return scanOf(s), nil
}

// FitStream is Fit on a training set read shard by shard from src (see
// Source), for block fits with a ridge (StreamFits says which
// configurations qualify): the images are never held all at once. A
// random learner reads them twice; a supervised one (SCN, 2DSCN) once,
// then once per block step, then once more (StreamPasses). The model
// equals Fit's on the same images (the same bytes; difference nodes are
// drawn from the first 10000 images only, so with Differences the two
// agree when N <= 10000). Progress reports a random learner's nodes after
// its second pass, a supervised learner's block after the pass that
// follows it. If ctx is cancelled, FitStream returns ctx's error and no
// model.
func (c Config) FitStream(ctx context.Context, src Source, progress func(Step)) (*Model, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := c.streamDirect(); err != nil {
		return nil, err
	}
	if err := c.StreamFits(); err != nil {
		return nil, err
	}
	if c.mode(runOpts{}) == modeLocal {
		return c.fitLocalStream(ctx, src, progress)
	}
	path, _, err := c.fitStreamPath(ctx, src, progress)
	if err != nil {
		return nil, err
	}
	return path.model, nil
}

// fitStreamPath is FitStream's fit (c checked) with its path (the engine's
// sums of the whole stream; the path's images are the first momentSample,
// its targets none: only the engine's prefixes and sums are usable) and
// what the first pass found.
func (c Config) fitStreamPath(ctx context.Context, src Source, progress func(Step)) (*Path, *streamScan, error) {
	start := time.Now()
	sc, err := c.scanStream(ctx, src)
	if err != nil {
		return nil, nil, err
	}
	// The builder of the head with the whole set's count, sums and mean,
	// and an empty engine without stored outputs, filled by the passes.
	bb := newBlockBuilderOn(c, sc.head, lsq.NewGramH(nil, 0, sc.m, c.Ridge, c.Float32Gram || c.BF16Gram, c.MaxNodes, false))
	bb.N, bb.stream, bb.T = sc.n, src, []float64{}
	bb.Eng.TT = sc.tt
	bb.EE = slices.Clone(sc.tt)
	bb.RSS = 0
	for _, v := range bb.EE {
		bb.RSS += v
	}
	if c.Standardize {
		bb.XBar = sc.mean
	}
	bb.scan = sc
	var stop StopReason
	if c.Kind.Choice == Supervised {
		bb.E = nil // the residual is formed shard by shard in each pass
		stop, err = bb.runStreamSupervised(ctx, progress)
	} else {
		stop, err = bb.Grow(ctx, progress)
	}
	if bb.Nodes() == 0 || err != nil {
		if err == nil {
			err = fmt.Errorf("scn: no hidden node could be added (%v)", stop)
		}
		return nil, nil, err
	}
	path, err := bb.path(stop)
	if err != nil {
		return nil, nil, err
	}
	if sc.classes != nil {
		path.model.Classes = slices.Clone(sc.classes)
	}
	path.model.Summary.Duration = time.Since(start)
	return path, sc, nil
}

// accumulateStream is lsq.Gram.Accumulate over the stream: the source's
// shards are cut into row shards of lsq.ShardRows images (the ones a fit in
// memory makes), each passed to the engine with its targets as the
// engine's own (lo = 0), in order.
func (bb *blockBuilder) accumulateStream(ctx context.Context, nd *drawnNodes, hidden func(lo, hi, j0, j1 int, h []float32)) error {
	return drive.AccumulateRows(bb.rowsFunc(ctx), bb.Eng, nd.Blocks, bb.scan.n, hidden)
}

// rowsFunc reads the stream once as internal/drive reads it: f is given
// its images cut into the row shards of lsq.ShardRows images a fit in
// memory makes, in order, whatever the sizes of the source's shards (the
// row shard's r images in bb.x during the call, tc its targets by output:
// m rows of r). Each source shard is checked against the first pass
// (checkShard), and the images counted; ctx is checked after each row
// shard.
func (bb *blockBuilder) rowsFunc(ctx context.Context) drive.RowsFunc {
	return func(f func(pix []float32, r int, tc []float64) error) error {
		return streamRowsOf(ctx, bb.stream, bb.scan, bb.scan.n, &bb.x, func(r int, tc []float64) error { return f(bb.x.Pix, r, tc) })
	}
}

// streamRowsOf reads the source src of n images as rowsFunc does, each
// shard checked against sc, the row shard's images set in *x during f
// (and x restored after).
func streamRowsOf(ctx context.Context, src Source, sc *streamScan, n int, x *Images, f func(r int, tc []float64) error) error {
	head := *x
	defer func() { *x = head }()
	shards := func(each func(pix []float32, t []float64, k int) error) error {
		return src.Shards(ctx, func(sh Shard) error {
			if err := sc.checkShard(sh); err != nil {
				return err
			}
			return each(sh.X.Pix, sh.T, sh.X.Len())
		})
	}
	mismatch := func(seen int) error {
		return fmt.Errorf("%w: the stream gave %d images on this pass, %d on its first", ErrData, seen, n)
	}
	return drive.CutRows(ctx, n, head.Dim(), sc.m, shards, mismatch, func(pix []float32, r int, tc []float64) error {
		x.Pix = pix
		return f(r, tc)
	})
}

// asDataErr wraps an internal package's error about the data
// (cfgerr.DataError) in ErrData, with the same message; other errors (and
// nil) it returns as they are.
func asDataErr(err error) error {
	if _, ok := err.(cfgerr.DataError); ok {
		return fmt.Errorf("%w: %v", ErrData, err)
	}
	return err
}
