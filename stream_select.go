package scn

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/scn2d/scn/internal/holdout"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/memest"
)

// Streamed model selection (Config.SelectStream): Select with a hold-out
// on a training set read shard by shard.
//
// Select holds out a stratified share of the images (splitHoldout), fits
// on the rest, scores every (L, ridge) of its grid on the held-out images
// and re-solves the chosen prefix's output weights on all images. Its
// streamed form:
//
//  1. a pass for the labels (8 bytes per image while the split is made, 1
//     after: which images are held out), split as Select splits them (the
//     same images, for the same seed);
//  2. the streamed fit (FitStream) on the training part: the source with
//     the held-out images left out of its shards;
//  3. one pass over the held-out part: each row shard's hidden outputs of
//     every node, the outputs of every (l, alpha) of the grid (the output
//     weights of the fit's prefixes, from its factor, as Select solves
//     them) added to each pair's squared error and hits, and H^T H and
//     H^T T of the held-out images added up for the refit.
//
// The scores are Select's bits: the same outputs (the same kernels, whose
// every value depends only on its row and column) summed in the same
// order (image by image, as RMSE and Accuracy sum), so the choice is
// Select's whenever the streamed fit is Fit's (see FitStream; with
// OpenBLAS, whose products depend on their shape, the scores agree to
// rounding, and a choice between two pairs that tie to rounding may
// differ). The refit
// adds the held-out normal equations formed shard by shard, where Select
// forms them in one product over all held-out images: the output weights
// agree to rounding (relative differences about 1e-12), not bit for bit;
// without a ridge term (a chosen ridge of 0) they are solved from the
// normal equations too (Select solves a stacked least-squares problem).
// Memory: the streamed fit's, plus the held-out part's H^T H (L x L), the
// output weights of every (l, alpha) of the grid and one batch of hidden
// outputs; not N. k-fold selection (k + 1 streamed fits) and Patience
// (the held-out part scored at every checkpoint during the fit: a pass
// each) are not streamed.

// SelectStream is Select with a hold-out (Selection.Validation) on a
// training set read shard by shard from src: the images are read once for
// their labels, then as FitStream reads the training part, then once more
// for the held-out part. The choice is Select's on the same images (see
// FitStream for when the two fits agree) and the output weights agree to
// rounding. Folds > 1 and Patience are refused. If ctx is cancelled,
// SelectStream returns ctx's error and no model.
func (c Config) SelectStream(ctx context.Context, src Source, s Selection, progress func(Step)) (*Model, error) {
	if err := c.selectable(s); err != nil {
		return nil, err
	}
	if err := c.streamDirect(); err != nil {
		return nil, err
	}
	if err := c.StreamFits(); err != nil {
		return nil, err
	}
	if c.Local != nil {
		return nil, errLocalSelectStream
	}
	s = s.withDefaults()
	if err := s.streamable(); err != nil {
		return nil, err
	}
	if s.Grow {
		// Growth past L_max (select_grow.go): streamed fits of twice the
		// nodes, each of its own passes over the source.
		once := s
		once.Grow = false
		return c.growLoop(ctx, s, func(cur Config) (*Model, error) { return cur.SelectStream(ctx, src, once, progress) })
	}
	start := time.Now()
	labels, sc, err := streamLabels(ctx, src)
	if err != nil {
		return nil, err
	}
	n := sc.n
	// The split as Select makes it (holdout.HeldMask).
	isHeld, nTrain, nHeld, err := holdout.HeldMask(labels, n, sc.m, sc.classes, s.Validation, c.Seed)
	if err != nil {
		return nil, dataErr(err)
	}
	labels = nil
	path, tsc, err := c.fitStreamPath(ctx, subsetSource{src, isHeld, false}, progress)
	if err != nil {
		return nil, err
	}
	ev := newEvaluator(Problem{M: sc.m, Classes: sc.classes}, s)
	hs, err := scoreHeldStream(ctx, path, subsetSource{src, isHeld, true}, tsc, nHeld, ev.grid(path.Nodes()), s.Ridges)
	if err != nil {
		return nil, err
	}
	best := pick(hs.scores, sc.classes != nil)
	ttAll := hs.tt
	for _, v := range tsc.tt {
		ttAll += v
	}
	m, err := hs.refit(path, best.Nodes, best.Ridge, ttAll, nTrain+nHeld)
	if err != nil {
		return nil, err
	}
	m.Summary.Samples = n
	m.Summary.Duration = time.Since(start)
	m.Selection = ev.choice("holdout", 1, nHeld, best, hs.scores, path.Nodes())
	m.Selection.Refit = fmt.Sprintf("nodes of the fit on %d training images; output weights re-solved on all %d with the chosen ridge term", nTrain, n)
	return m, nil
}

// streamable says why a selection cannot run on a stream (nil if it can).
func (s Selection) streamable() error {
	switch {
	case s.Folds > 1:
		return fmt.Errorf("%w: k-fold selection is not streamed (k + 1 streamed fits): select with a hold-out (Validation)", ErrConfig)
	case s.Patience > 0:
		return fmt.Errorf("%w: Patience scores the held-out images at every checkpoint during the fit, a pass each: not streamed", ErrConfig)
	case s.checkpoints > 0 || s.watch != nil || s.fitWeights:
		return fmt.Errorf("%w: a budget's selection is not streamed", ErrConfig)
	}
	return nil
}

// streamLabels reads the stream once for its images' classes (nil for
// regression), checking every shard as the first pass of a fit does; the
// scan it returns has the shape, the outputs, the classes and N.
func streamLabels(ctx context.Context, src Source) ([]int, *streamScan, error) {
	var sc *streamScan
	var labels []int
	err := src.Shards(ctx, func(sh Shard) error {
		if sc == nil {
			x := sh.X
			sc = &streamScan{m: sh.M, classes: slices.Clone(sh.Classes), rows: x.Rows, cols: x.Cols, chans: x.Chans()}
		}
		if err := sc.checkShard(sh); err != nil {
			return err
		}
		if sc.classes != nil {
			labels = append(labels, ArgMax(sh.T, sh.M)...)
		}
		sc.n += sh.X.Len()
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if sc == nil || sc.n == 0 {
		return nil, nil, fmt.Errorf("%w: the stream holds no image", ErrData)
	}
	return labels, sc, nil
}

// subsetSource is the source src with its images i where held[i] != want
// left out (shards left empty are skipped).
type subsetSource struct {
	src  Source
	held []bool
	want bool
}

func (s subsetSource) Shards(ctx context.Context, f func(Shard) error) error {
	at := 0
	var pix []float32
	var t []float64
	return s.src.Shards(ctx, func(sh Shard) error {
		n, d, m := sh.X.Len(), sh.X.Dim(), sh.M
		pix, t = pix[:0], t[:0]
		for i := 0; i < n; i++ {
			if at+i < len(s.held) && s.held[at+i] == s.want {
				pix = append(pix, sh.X.Pix[i*d:(i+1)*d]...)
				t = append(t, sh.T[i*m:(i+1)*m]...)
			}
		}
		at += n
		if len(t) == 0 {
			return nil
		}
		out := sh
		out.X.Pix, out.T = pix, t
		return f(out)
	})
}

// heldSums are the held-out pass's results: the score of every (l, alpha)
// in Select's order, and the held-out normal equations (G full L x L, H^T T
// L x m, T^T T summed over the outputs).
type heldSums struct {
	scores []Score
	L      int
	g, ht  []float64
	tt     float64
}

// scoreHeldStream scores the prefixes in grid of path with every ridge
// term on the nh held-out images of src (see the top of this file), by
// internal/holdout's Scorer.
func scoreHeldStream(ctx context.Context, path *Path, src Source, sc *streamScan, nh int, grid []int, ridges []float64) (*heldSums, error) {
	model := path.model
	L, m := path.Nodes(), model.M
	hsc := holdout.NewScorer(L, m, sc.classes != nil)
	var alphas []float64
	err := path.prefixSolves(L, grid, ridges, func(l int, alpha float64, beta []float64) {
		hsc.AddPrefix(l, lsq.Transposed(beta, l, m))
		alphas = append(alphas, alpha)
	})
	if err != nil {
		return nil, err
	}
	if hsc.Prefixes() == 0 {
		return nil, fmt.Errorf("scn: selection: no (L, ridge) pair could be solved")
	}
	x := Images{Rows: model.Rows, Cols: model.Cols, Channels: model.Channels}
	err = streamRowsOf(ctx, src, sc, nh, &x, func(r int, tc []float64) error {
		hsc.Shard(tc, r)
		model.hidden(x, func(lo, rows int, hb []float32) { hsc.Batch(lo, rows, hb, tc, r) })
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &heldSums{L: L, g: hsc.G, ht: hsc.HT, tt: hsc.TT, scores: scores(hsc.Points(alphas, nh))}, nil
}

// refit is refit (select.go) with the held-out normal equations of the
// pass: the model of the first l nodes of path with output weights solved
// on the training and held-out images together (n in all, T^T T = tt)
// with ridge alpha.
func (hs *heldSums) refit(path *Path, l int, alpha, tt float64, n int) (*Model, error) {
	m := path.model
	pm, err := m.truncate(l, nil)
	if err != nil {
		return nil, err
	}
	g, ht := path.normalAll(l)
	L, M := hs.L, m.M
	for i := 0; i < l; i++ {
		for j := i; j < l; j++ {
			// The lower triangle of the held-out product, as gramOf keeps.
			g.SetSym(i, j, g.At(i, j)+hs.g[j*L+i])
		}
		for q := 0; q < M; q++ {
			ht.Set(i, q, ht.At(i, q)+hs.ht[i*M+q])
		}
	}
	beta, err := lsq.CholeskySolve(g, ht, alpha)
	if err != nil {
		return nil, err
	}
	rss := lsq.NormalRSSOf(g, alpha, ht, beta, tt) // g now holds G + alpha I
	pm.Beta = beta
	pm.Config.Ridge = alpha
	pm.Summary.Trace = m.Summary.Trace[:min(l, len(m.Summary.Trace))]
	pm.Summary.TrainRMSE = math.Sqrt(rss / float64(n*M))
	return pm, nil
}

// StreamFits reports whether SelectStream can select by s, and if not, why
// (a hold-out only).
func (s Selection) StreamFits() error {
	if err := s.Validate(); err != nil {
		return err
	}
	return s.withDefaults().streamable()
}

// EstimateStreamBytesC returns the bytes SelectStream of c by s on n
// images of rows x cols x chans with m outputs allocates beside the
// streamed fit (EstimateStreamMemoryC): the split (the labels and the
// held-out mark, 17 bytes per image while it is made), the held-out
// normal equations (L x L and L x m float64), the output weights of every
// (l, alpha) of the grid, the nodes' weights over the image and a batch
// of hidden outputs (float32, and float64 twice), and the refit's normal
// equations and factor (two L x L).
//
// Deprecated: use Config.EstimateStream with the Selection; its Selection
// is this estimate.
func (s Selection) EstimateStreamBytesC(c Config, n, rows, cols, chans, m int) int64 {
	return s.streamSelectionBytes(c, n, rows, cols, chans, m)
}

// streamSelectionBytes is EstimateStream's Selection: EstimateStreamBytesC.
func (s Selection) streamSelectionBytes(c Config, n, rows, cols, chans, m int) int64 {
	s = s.withDefaults()
	return memest.Selection{N: n, Rows: rows, Cols: cols, Chans: chans, M: m, Nodes: c.MaxNodes,
		GridPairs: (s.Points + maxCheckpointsInGrid + 2) * len(s.Ridges), PredictBatch: predictBatch}.Stream()
}
