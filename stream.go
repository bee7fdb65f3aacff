package scn

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/lsq"
)

// Out-of-core fits.
//
// A random learner with a ridge (the one-pass block fit of
// drive_onepass.go) needs its training images only to form G = H^T H and
// H^T T, in one pass over row shards. FitStream runs that fit on a Source
// that reads the images shard by shard from disk, so that the images are
// never all in memory: peak memory is G (L x L float64), one row shard's
// outputs of every node (L x 2048) and the first momentSample images (the
// sample standardisation measures spreads on), whatever N.
//
// A streamed fit of a random learner reads the source twice. The first
// pass checks every shard (image shape, outputs and classes the same in
// all; a shard that differs stops the fit with its name before anything
// is fitted), counts the images, sums the mean image (Standardize) and
// T_q^T T_q in image order, and keeps the first momentSample images. Then
// every node is drawn as Fit draws them, and the second pass cuts the
// shards, whatever their sizes, into the row shards of lsq.ShardRows images a
// fit in memory uses and forms every block's sums from them in the same
// order. So the model is the same bytes as Fit's on the same images, with
// one exception: difference nodes (Config.Differences: the fast and
// default presets) draw their pairs of images from the first momentSample
// images only (a fit in memory draws them from all N), so the two agree
// bit for bit when N <= momentSample and draw other nodes otherwise.
// Regression targets' T_q^T T_q are summed shard by shard (a fit in memory
// sums them in one dot product): the training RMSE may differ in the last
// bits; one-hot targets sum exactly.
//
// The supervised learners (SCN, 2DSCN) in blocks with a ridge are
// streamed too (drive_stream_supervised.go): after the same first pass,
// one pass per block step forms the residual shard by shard from the
// nodes so far, scores the step's candidates against it and forms their
// Gram sums, and one last pass measures the last block's residual:
// ceil(L / BlockSize) + 2 reads of the data (StreamPasses; standardised
// pair candidates take a pass more per block to measure their spreads,
// and a step that finds nothing admissible at a scale one more per scale
// it tries). The model is the block fit's in memory, byte for byte, with
// the exceptions above (and to rounding with OpenBLAS's products, whose
// bits depend on their shape: see drive_stream_supervised.go). FitStream refuses fits without a ridge (a
// dependent column would need the outputs again), supervised fits with
// bfloat16 Gram products and robust output weights (one pass per
// reweighting). Model selection with a hold-out streams through
// SelectStream (stream_select.go), in two more passes.

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
	n, d, m := s.p.X.Len(), s.p.X.Dim(), s.p.M
	for lo, k := 0, 0; lo < n; k++ {
		size := 1
		if len(s.sizes) > 0 {
			size = max(1, s.sizes[min(k, len(s.sizes)-1)])
		}
		hi := min(n, lo+size)
		if err := ctx.Err(); err != nil {
			return err
		}
		x := s.p.X
		x.Pix = x.Pix[lo*d : hi*d]
		sh := Shard{Name: fmt.Sprintf("shard %d (images %d to %d)", k, lo, hi-1),
			Problem: Problem{X: x, T: s.p.T[lo*m : hi*m], M: m, Classes: s.p.Classes}}
		if err := f(sh); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// StreamFits reports whether FitStream can fit c, and if not, why.
func (c Config) StreamFits() error {
	switch {
	case c.mode(runOpts{}) == modeLocal:
		return c.localStreamFits() // stream_local.go
	case c.Kind.Choice == Supervised && c.BF16Gram:
		return fmt.Errorf("%w: %s with bfloat16 Gram products (BF16Gram) is not streamed (its residual is formed from the outputs rounded as stored, which a streamed pass does not reproduce; not built): use float32 or float64 Gram products", ErrConfig, c.Kind)
	case !c.blockMode():
		return fmt.Errorf("%w: a streamed fit adds its nodes in blocks (a block size above 1, or a preset such as fast)", ErrConfig)
	case !(c.Ridge > 0):
		return fmt.Errorf("%w: a streamed fit needs a ridge > 0 (without one a dependent node would need the images again)", ErrConfig)
	case c.Robust:
		return fmt.Errorf("%w: robust output weights reweight the images in one pass each: not streamed", ErrConfig)
	}
	return nil
}

// StreamPasses returns the reads of the data a FitStream of c takes when
// every block step finds its nodes at the first scale: 2 for a random
// learner; for a supervised one the first pass, one per block step (two
// with standardised pair candidates, whose spreads take a pass of their
// own) and one for the last block's residual: ceil(L / block) + 2. Each
// scale a step tries beyond the first adds as many.
func (c Config) StreamPasses() int {
	if c.mode(runOpts{}) == modeLocal {
		return c.localStreamPasses()
	}
	if c.Kind.Choice != Supervised {
		return 2
	}
	bs := max(c.BlockSize, 1)
	steps := (max(c.MaxNodes, 1) + bs - 1) / bs
	if c.Pairs && c.Standardize {
		steps *= 2
	}
	return steps + 2
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
	switch {
	case x.Rows != sc.rows || x.Cols != sc.cols || x.Chans() != sc.chans:
		return fmt.Errorf("%w: %s: images of %d x %d x %d, the earlier shards' are %d x %d x %d", ErrData, sh.Name, x.Chans(), x.Rows, x.Cols, sc.chans, sc.rows, sc.cols)
	case sh.M != sc.m:
		return fmt.Errorf("%w: %s: %d outputs, the earlier shards have %d", ErrData, sh.Name, sh.M, sc.m)
	case !slices.Equal(sh.Classes, sc.classes) || (sh.Classes == nil) != (sc.classes == nil):
		return fmt.Errorf("%w: %s: classes %q, the earlier shards' are %q", ErrData, sh.Name, sh.Classes, sc.classes)
	}
	return nil
}

// scanStream is the first pass of a streamed fit (see above).
func (c Config) scanStream(ctx context.Context, src Source) (*streamScan, error) {
	var sc *streamScan
	var sums *drive.Scan
	err := src.Shards(ctx, func(sh Shard) error {
		if sc == nil {
			x := sh.X
			sc = &streamScan{m: sh.M, classes: slices.Clone(sh.Classes), rows: x.Rows, cols: x.Cols, chans: x.Chans()}
			sc.head = Problem{X: Images{Rows: x.Rows, Cols: x.Cols, Channels: x.Channels}, M: sh.M, Classes: sc.classes}
			sums = drive.NewScan(x.Dim(), sh.M, c.Standardize)
		}
		if err := sc.checkShard(sh); err != nil {
			return err
		}
		sums.Add(sh.X.Pix, sh.T, sh.X.Len(), sh.X.Dim(), sh.M)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if sc == nil || sums.N == 0 {
		return nil, fmt.Errorf("%w: the stream holds no image", ErrData)
	}
	sc.n, sc.tt = sums.N, sums.TT
	sc.head.X.Pix, sc.head.T = sums.HeadPix, sums.HeadT
	if sums.Mean != nil {
		sc.mean = sums.Mean.Mean()
	}
	return sc, nil
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

// rowsFunc is streamRows as internal/drive reads a stream: f is given the
// row shard's images (bb.x's during the call).
func (bb *blockBuilder) rowsFunc(ctx context.Context) drive.RowsFunc {
	return func(f func(pix []float32, r int, tc []float64) error) error {
		return bb.streamRows(ctx, func(r int, tc []float64) error { return f(bb.x.Pix, r, tc) })
	}
}

// streamRows reads the stream once and calls f with its images cut into
// the row shards of lsq.ShardRows images a fit in memory makes, in order,
// whatever the sizes of the source's shards: during the call bb.x holds
// the row shard's r images (image 0 its first) and tc its targets by
// output (m rows of r). Each source shard is checked against the first
// pass (checkShard), and the images counted; ctx is checked after each
// row shard.
func (bb *blockBuilder) streamRows(ctx context.Context, f func(r int, tc []float64) error) error {
	return streamRowsOf(ctx, bb.stream, bb.scan, bb.scan.n, &bb.x, f)
}

// streamRowsOf is streamRows on the source src of n images, each shard
// checked against sc, the row shard's images set in *x during f (and x
// restored after).
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
