package scn

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/scn2d/scn/internal/augment"
	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/memest"
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

// localTrace returns a copy of a local fit's trace (localnet.Step is
// Step).
func localTrace(tr []Step) []Step { return slices.Clone(tr) }

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
	n := x.Len()
	d := localnet.Data{X: x.Pix, N: n, Rows: x.Rows, Cols: x.Cols, Ch: x.Chans(), T: p.T, M: p.M, Float32Gram: c.Float32Gram, BF16Gram: c.BF16Gram}
	r, err := localnet.Run(ctx, c.localOptions(), g, d, (*augment.Spec)(c.Augment), newRand(c.Seed), progress)
	if r == nil {
		return nil, nil, err
	}
	lf, stop := &localFit{Fit: r.Fit, cfg: c, x: x, n: n, eng: r.Eng}, r.Stop
	if lf.eng.L == 0 {
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("scn: no local filter could be added (%v)", stop)
	}
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
		Params: []float32{}, Bias: []float32{}, Beta: r.Beta, Config: cfg, Local: lf.Layer(),
		Summary: Summary{
			Nodes: lf.eng.L, Samples: n, Stop: stop, TrainRMSE: r.TrainRMSE,
			Tried: lf.Tried, Trace: localTrace(lf.Trace), Duration: time.Since(start), Profile: lf.Prof,
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

// localMemory estimates a local fit's memory (see Memory;
// localnet.FitMemory).
func (c Config) localMemory(n, rows, cols, chans, m int) Memory {
	return localnet.FitMemory(c.localOptions(), c.Local, (*augment.Spec)(c.Augment), n, rows, cols, chans, m, c.Float32Gram, c.BF16Gram)
}

// localShape describes the local fit of c to internal/memest
// (localnet.Shape).
func (c Config) localShape(n, rows, cols, chans, m int) memest.Local {
	return localnet.Shape(c.Local, n, rows, cols, chans, m, c.Float32Gram, c.BF16Gram)
}
