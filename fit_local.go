package scn

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/memest"
	"gonum.org/v1/gonum/floats"
)

// Fitting local nodes (Config.Local): the filters' draws, the supervised
// choice of each block of filters (the block form of the supervisory
// inequality), the standardisation of their pooled outputs and the block
// engine's sums are internal/localnet's Fit (fit.go, second_fit.go and
// augment.go there); this file checks the problem, hands the
// configuration down and makes the model.

// localRandomBlock is the filters per pass of a random local fit.
const localRandomBlock = localnet.RandomBlock

// localFit is the state of a local fit: internal/localnet's, with the
// configuration and the images it was given.
type localFit struct {
	*localnet.Fit
	cfg Config
	x   Images
	n   int       // the training images
	eng *lsq.Gram // the block engine of the pooled outputs (Fit.Eng)
}

// localOptions returns what a local fit needs of c.
func (c Config) localOptions() localnet.Options {
	return localnet.Options{Maps: mapsOf(c.Kind.Input, c.Activation), Supervised: c.Kind.Choice == Supervised,
		Seed: c.Seed, Ridge: c.Ridge, Tolerance: c.Tolerance, Scales: c.Scales, Ratios: c.Ratios,
		Candidates: c.Candidates, BlockSize: c.BlockSize}
}

// localProgress returns progress for a local fit's steps (nil for nil).
func localProgress(progress func(Step)) func(localnet.Step) {
	if progress == nil {
		return nil
	}
	return func(s localnet.Step) { progress(Step(s)) }
}

// localTrace returns a local fit's trace as Steps.
func localTrace(tr []localnet.Step) []Step {
	if tr == nil {
		return nil
	}
	out := make([]Step, len(tr))
	for i, s := range tr {
		out[i] = Step(s)
	}
	return out
}

// fitLocal fits a model of local nodes.
func (c Config) fitLocal(ctx context.Context, p Problem, progress func(Step)) (*Model, error) {
	m, _, err := c.fitLocalState(ctx, p, progress)
	return m, err
}

// fitLocalState is fitLocal, returning the fit's state too (its engine
// holds the pooled outputs and their Gram sums).
func (c Config) fitLocalState(ctx context.Context, p Problem, progress func(Step)) (*Model, *localFit, error) {
	start := time.Now()
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	if err := p.check(); err != nil {
		return nil, nil, err
	}
	x := p.X
	g := c.Local.Clone()
	if err := g.ForImages(x.Rows, x.Cols, x.Chans()); err != nil {
		return nil, nil, err
	}
	if c.Augment != nil {
		if err := c.Augment.ForImages(x.Rows, x.Cols); err != nil {
			return nil, nil, err
		}
	}
	cmean, csd := planeMoments(x)
	n := x.Len()
	eng := lsq.NewGram(p.T, n, p.M, c.Ridge, c.Float32Gram || c.BF16Gram, g.Outputs())
	eng.BF16 = c.BF16Gram
	lf := &localFit{Fit: localnet.NewFit(c.localOptions(), g, x.Pix, n, x.Rows, x.Cols, x.Chans(), p.M, cmean, csd, newRand(c.Seed)),
		cfg: c, x: x, n: n, eng: eng}
	lf.Start(eng)
	if c.Kind.Choice == Supervised {
		if rmse := lf.RMSE(); rmse <= c.Tolerance {
			return nil, nil, fmt.Errorf("%w: Tolerance = %g, but the training RMSE is %.4g before any node: nothing to fit", ErrConfig, c.Tolerance, rmse)
		}
	}
	st, err := lf.Grow(ctx, localProgress(progress))
	stop := StopReason(st)
	if lf.eng.L == 0 {
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("scn: no local filter could be added (%v)", stop)
	}
	t0 := time.Now()
	if c.Augment != nil && err == nil {
		if aerr := lf.AugmentSums(ctx, p.T, c.Augment.moves(n, c.Seed), c.Augment.Extra()); aerr != nil {
			if ctx.Err() == nil {
				return nil, nil, aerr
			}
			// Interrupted: the output weights of the images as they are
			// (a partial model, recorded without augmentation).
			stop, err = Cancelled, aerr
		}
	}
	beta, serr := lf.solver().Solve(lf.eng.L, c.Ridge)
	if serr != nil {
		return nil, nil, serr
	}
	lf.Prof.Solve = time.Since(t0)
	res := make([]float64, n*p.M)
	lf.eng.Residual(lf.eng.L, beta, res)
	cfg := c
	cfg.Local = g
	cfg.Augment = nil
	if lf.Aug != nil {
		cfg.Augment = c.Augment.clone()
	}
	cfg.Scales = append([]float64(nil), c.Scales...)
	cfg.Ratios = append([]float64(nil), c.Ratios...)
	m := &Model{
		Kind: c.Kind, Activation: c.Activation, Rows: x.Rows, Cols: x.Cols, Channels: x.Channels, M: p.M,
		Params: []float32{}, Bias: []float32{}, Beta: beta, Config: cfg, Local: lf.Layer(),
		Summary: Summary{
			Nodes: lf.eng.L, Samples: n, Stop: stop, TrainRMSE: math.Sqrt(floats.Dot(res, res) / float64(n*p.M)),
			Tried: lf.Tried, Trace: localTrace(lf.Trace), Duration: time.Since(start), Profile: Profile(lf.Prof),
		},
	}
	if p.Classes != nil {
		m.Classes = append([]string(nil), p.Classes...)
	}
	if cerr := m.check(); cerr != nil {
		return nil, nil, cerr
	}
	return m, lf, err
}

// planeMoments returns the mean and standard deviation of each plane's
// pixels over the images (a deviation of 0 is taken as 1; local.Moments).
func planeMoments(x Images) (mean, sd []float64) {
	return localnet.PlaneMoments(x.Pix, x.Len(), x.Chans(), x.Rows*x.Cols)
}

// solver returns the engine whose sums the output weights solve: the
// augmented one when there is one.
func (lf *localFit) solver() *lsq.Gram { return lf.Solver() }

// heldCopies calls f with the pooled outputs (float64, rows x L row-major)
// and targets (rows x m) of the augmented copies of the images held, a
// chunk of rows at a time (nothing without augmentation): selection takes
// them out of the sums with the held-out images.
func (lf *localFit) heldCopies(held []int, t []float64, f func(rows int, h, th []float64)) error {
	return lf.HeldCopies(held, t, f)
}

// copiesNote says, for selection's record, which copies the output
// weights saw ("" without augmentation).
func (lf *localFit) copiesNote() string {
	if lf.Aug == nil {
		return ""
	}
	return fmt.Sprintf(" and their %d augmented copies (%s)", lf.n*lf.cfg.Augment.Extra(), lf.cfg.Augment)
}

// localMemory estimates a local fit's memory (see Memory; the arithmetic
// is internal/memest's Local.Fit): a step scores localRandomBlock random
// filters, or a supervised block's candidates; the second layer and
// augmentation (augmentMemory) add their buffers.
func (c Config) localMemory(n, rows, cols, chans, m int) Memory {
	step := localRandomBlock
	if c.Kind.Choice == Supervised {
		step = localnet.SupervisedStep(c.BlockSize)
		step *= max(c.Candidates, 1)
	}
	g := c.localShape(n, rows, cols, chans, m)
	g.Step = step
	g.ExtraCandidates, g.ExtraFactor = localnet.SecondMemory(c.Local, n, rows, cols), c.augmentMemory(n)
	return g.Fit()
}

// localShape describes the local fit of c to internal/memest.
func (c Config) localShape(n, rows, cols, chans, m int) memest.Local {
	g := c.Local
	return memest.Local{
		N: n, Rows: rows, Cols: cols, Chans: chans, M: m,
		Outputs: g.Outputs(), PerFilter: g.PerFilter(), Sizes: g.Sizes, Filters: g.Filters,
		RandomBlock: localRandomBlock, Whiten: g.Whiten, WhitenSamples: localnet.WhitenSamples,
		Float32Gram: c.Float32Gram, BF16Gram: c.BF16Gram, Workers: runtime.GOMAXPROCS(0),
	}
}

// augmentMemory returns the bytes an augmented local fit adds to Memory's
// Factor (internal/memest's Augment): its second engine, one row shard's
// outputs and the copies' moves.
func (c Config) augmentMemory(n int) int64 {
	if c.Augment == nil || c.Local == nil {
		return 0
	}
	return memest.Augment(n, c.Local.Outputs(), localRandomBlock*c.Local.PerFilter(), n*c.Augment.Extra(), c.Float32Gram, c.BF16Gram)
}
