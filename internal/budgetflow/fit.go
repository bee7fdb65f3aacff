package budgetflow

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/scn2d/scn/internal/budget"
	"github.com/scn2d/scn/internal/localplan"
)

// Fit is scn.Budget.Fit (the caller checked the set and the duration, and
// set b.Start): on photos local nodes (fitPhotos); otherwise the global
// learner's plan,
// after the probe of local against global nodes on grey images (grey.go),
// which plans local nodes (FitLocal) when they win. The rates are b.Rates,
// or measured by the learner's probe; the plan (planGlobal) is handed to
// plan (if not nil) before the fit, which goes block by block, watched at
// every checkpoint by the clock (budget.Fit), or in stages when the
// learner's fit is staged; the record is written into the model.
func Fit[C, M any](ctx context.Context, b Budget, j Job[C, M], plan func(budget.Plan)) (M, error) {
	var zero M
	s := j.Shape()
	if localplan.Photos(j.Classify(), s.Rows, s.Cols, s.Chans) {
		return fitPhotos(ctx, b, j, plan)
	}
	cfg, sel := j.Global()
	probed := ""
	if localplan.Grey(j.Classify(), s.N, s.Rows, s.Cols, s.Chans) {
		lc, rec, local, err := probeGrey(ctx, b, j, cfg)
		if err != nil {
			return zero, err
		}
		if local {
			lb := b
			lb.Rates = b.LocalRates
			return FitLocal(ctx, lb, j, lc, GreyRidges, greyWhat(s), rec, greyGrow, plan)
		}
		probed = rec
	}
	held := max(1, int(math.Round(sel.Validation*float64(s.N))))
	train := s.N - held
	rates := b.Rates
	if rates == nil {
		r, err := j.Probe(ctx)
		if err != nil {
			return zero, err
		}
		rates = &r
	}
	if !rates.Valid() {
		return zero, fmt.Errorf("%w: rates %+v are not usable", ErrBudget, *rates)
	}
	pl := planGlobal(b, j, cfg, sel, *rates, train, held)
	pl.Why = sel.Why
	pl.Probe = probed
	if plan != nil {
		plan(pl)
	}
	staged := sel.Staged
	// The record, the checkpoints and the clock of the fit
	// (internal/budget's Fit).
	fit := budget.NewFit(budget.Clock{Duration: b.Duration, Start: b.Start, Now: b.now}, pl, train, held, s.M, s.Rows*s.Cols*s.Chans, b.now(), staged)
	checkpoint := func(l int, score func() (float64, float64, bool)) bool {
		now := b.now()
		acc, rmse, ok := score()
		return fit.Checkpoint(l, now, acc, rmse, ok)
	}
	var stage func(int) int
	if staged {
		stage = fit.Stage
	}
	m, fitNodes, stop, err := j.FitGlobal(ctx, pl, checkpoint, stage)
	if err != nil {
		return m, err
	}
	j.Done(m, fit.End(fitNodes, stop, b.now()), fit.ByClock)
	return m, nil
}

// planGlobal chooses L, the block size and the cap for cfg on a training
// part of train images (held held out) from the rates and the time left
// (budget.Plan.Size), within b.MaxBytes if set (budget.MemoryCap over
// the configuration's estimate, the end's extra bytes per L^2 added).
func planGlobal[C, M any](b Budget, j Job[C, M], cfg C, sel Global, r budget.Rates, train, held int) budget.Plan {
	left := (b.Duration - b.now().Sub(b.Start)).Seconds() * budget.Safety
	in := j.Info(cfg)
	s := j.Shape()
	block := max(in.BlockSize, 1)
	ridges := sel.Ridges
	if !slices.Contains(ridges, in.Ridge) {
		// The checkpoints are scored at the fit's ridge term: selection
		// must be able to choose what they saw.
		ridges = append(slices.Clone(ridges), in.Ridge)
	}
	pl := budget.Plan{
		Kind: in.Kind, Preset: in.Preset, BlockSize: block, Validation: sel.Validation, Points: sel.Points,
		Ridges: append([]float64(nil), ridges...), FitRidge: in.Ridge, Rates: r, FitWeights: sel.FitWeights,
	}
	var memoryCap func(extra int64) int
	if b.MaxBytes > 0 {
		// The largest multiple of block whose fit on train images stays
		// within b.MaxBytes by the estimate (the staged one-pass fit
		// keeps no H: the configuration's estimate).
		sh := Shape{N: train, Rows: s.Rows, Cols: s.Cols, Chans: s.Chans, M: s.M}
		memoryCap = func(extra int64) int {
			return budget.MemoryCap(block, b.NodeLimit, func(l int) bool {
				return j.Bytes(j.Sized(cfg, l, in.BlockSize), sh)+extra*int64(l)*int64(l) <= b.MaxBytes
			})
		}
	}
	pl.Size(left, train, held, s.M, s.Rows*s.Cols*s.Chans, b.NodeLimit, memoryCap)
	return pl
}

// fitPhotos is Fit on photos: the presets' photo choice at the filter size
// the photo probe chose (b.Photo, or the probe run here with
// b.PhotoProbe), its filters planned (FitLocal).
func fitPhotos[C, M any](ctx context.Context, b Budget, j Job[C, M], plan func(budget.Plan)) (M, error) {
	var zero M
	s := j.Shape()
	rows, cols, chans := s.Rows, s.Cols, max(s.Chans, 1)
	cfg, ok := j.Photo()
	if !ok {
		return zero, fmt.Errorf("%w: local nodes cannot be applied to images of %d x %d x %d", ErrBudget, rows, cols, chans)
	}
	what := fmt.Sprintf("photos (%d x %d x %d): the presets' local nodes", rows, cols, chans)
	choice := b.Photo
	if choice == nil && !b.PhotoProbe {
		choice = &PhotoChoice{Size: localplan.DefaultSize}
	}
	if choice == nil {
		c, err := j.ChoosePhotos(ctx, fmt.Sprintf("%d x %d", rows, cols))
		if err != nil {
			return zero, err
		}
		choice = &c
	}
	if choice.Size != localplan.DefaultSize {
		if !(choice.Size >= 1) {
			return zero, fmt.Errorf("%w: the photo probe's filter size %d", ErrBudget, choice.Size)
		}
		g := j.Info(cfg).Local
		g.Sizes = []int{choice.Size}
		if err := g.ForImages(rows, cols, chans); err != nil {
			return zero, fmt.Errorf("%w: the photo probe's choice: %v", ErrBudget, err)
		}
	}
	return FitLocal(ctx, b, j, cfg, PhotoRidges, what, choice.Record, 0, plan)
}
