package scn

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/scn2d/scn/internal/holdout"
	"github.com/scn2d/scn/internal/memest"
	"github.com/scn2d/scn/internal/selection"
)

// Streamed model selection (Config.SelectStream): a labels pass, the
// streamed fit of the training part, and one pass over the held-out part
// that scores the grid and sums the held-out normal equations for the
// refit (internal/selection's stream.go says how and how it agrees with
// Select).

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
	hs, err := scoreHeldStream(ctx, path, subsetSource{src, isHeld, true}, tsc, nHeld, ev.Grid(path.Nodes()), s.Ridges)
	if err != nil {
		return nil, err
	}
	curve := asScores(hs.Scores)
	best := pick(curve, sc.classes != nil)
	ttAll := hs.TT
	for _, v := range tsc.tt {
		ttAll += v
	}
	m, err := refitStream(hs, path, best.Nodes, best.Ridge, ttAll, nTrain+nHeld)
	if err != nil {
		return nil, err
	}
	m.Summary.Samples = n
	m.Summary.Duration = time.Since(start)
	m.Selection = ev.choice("holdout", 1, nHeld, best, curve, path.Nodes())
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
	keep := selection.Mask{Held: s.held, Want: s.want}
	return s.src.Shards(ctx, func(sh Shard) error {
		pix, t := keep.Keep(sh.X.Pix, sh.T, sh.X.Len(), sh.X.Dim(), sh.M)
		if len(t) == 0 {
			return nil
		}
		out := sh
		out.X.Pix, out.T = pix, t
		return f(out)
	})
}

// heldSums are the held-out pass's results (selection.HeldSums).
type heldSums = selection.HeldSums

// scoreHeldStream scores the prefixes in grid of path with every ridge
// term on the nh held-out images of src (selection.ScoreHeld).
func scoreHeldStream(ctx context.Context, path *Path, src Source, sc *streamScan, nh int, grid []int, ridges []float64) (*heldSums, error) {
	model := path.model
	x := Images{Rows: model.Rows, Cols: model.Cols, Channels: model.Channels}
	return selection.ScoreHeld(path.Nodes(), model.M, nh, sc.classes != nil, grid, ridges, path.prefixSolves, func(hsc *holdout.Scorer) error {
		return streamRowsOf(ctx, src, sc, nh, &x, func(r int, tc []float64) error {
			hsc.Shard(tc, r)
			model.hidden(x, func(lo, rows int, hb []float32) { hsc.Batch(lo, rows, hb, tc, r) })
			return nil
		})
	})
}

// refitStream is refit (select_normal.go) with the held-out normal
// equations of the pass: the model of the first l nodes of path with
// output weights solved on the training and held-out images together (n
// in all, T^T T = tt) with ridge alpha (selection.HeldSums.Refit).
func refitStream(hs *heldSums, path *Path, l int, alpha, tt float64, n int) (*Model, error) {
	m := path.model
	pm, err := m.truncate(l, nil)
	if err != nil {
		return nil, err
	}
	g, ht := path.normalAll(l)
	if pm.Beta, pm.Summary.TrainRMSE, err = hs.Refit(g, ht, l, m.M, alpha, tt, n); err != nil {
		return nil, err
	}
	pm.Config.Ridge = alpha
	pm.Summary.Trace = m.Summary.Trace[:min(l, len(m.Summary.Trace))]
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
