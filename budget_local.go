package scn

import (
	"context"
	"fmt"
	"time"

	"github.com/scn2d/scn/internal/timing"
)

// A time budget on photos (issue 31, item 5): on classification problems
// whose images are photos (PhotoImages: colour, or more than 40 x 40
// pixels) Budget.Fit plans local nodes, the presets' photo choice
// (Config.ForPhotos: 2DRVFL, separable 5 x 5 filters, 3 x 3 average
// pooling, two-sided, ridge PhotoRidge), and chooses the number of filters
// that fits the time left. The time of a fit of F filters on N images is
// modelled by photoSeconds: the filters over every position and the Gram
// sums of the pooled outputs at the seconds per multiply-add measured by
// two probe fits (photoProbeFilters and three times as many filters, on
// at most photoProbeImages of the images), and the Cholesky factor at the
// rate of a timed factor (timing.CholSeconds). Every image is fitted (no
// hold-out: the ridge term is the measured one) and every filter kept; the
// clock is not checked during the fit, whose time the model predicts.

// Probe and plan of a budget on photos.
const (
	photoProbeImages  = 1000
	photoProbeFilters = 16
	// photoBudgetShare is the share of the time left after the probe that
	// the planned fit may fill: the rest absorbs the model's error (the
	// probe's small products run less efficiently, the machine's load
	// varies) and writing the model.
	photoBudgetShare = 0.7
	// photoMaxFilters bounds a budget's filters (L = 18432 pooled outputs).
	photoMaxFilters = 1024
	photoFilterStep = 16
)

// budgetPhotos reports whether a budget plans local nodes on p.
func budgetPhotos(p Problem) bool {
	return p.Classes != nil && PhotoImages(p.X.Rows, p.X.Cols, p.X.Chans())
}

// photoSeconds is the modelled time of a local fit of f filters of l on n
// images of rows x cols x chans: rate seconds per multiply-add of the
// filters and the Gram sums (photoCost without its factor), chol seconds
// per unit of the factor's L^3 / 3. The factor, grown block by block as
// the filters come, is timed apart (timing.CholSeconds): on 245 photos of 64 x
// 64, L = 4320, the probe's slope (factors of a few hundred) left it out
// and predicted 7.1 s for a fit of 17.7 s; grown alone it took 6.3 s where
// timing.CholSeconds(1024) predicted 7.0 s.
func photoSeconds(l *Local, f, n, rows, cols, chans int, rate, chol float64) float64 {
	outs := float64(f * l.perFilter())
	fac := outs * outs * outs / 3
	return (photoCost(l, f, n, rows, cols, chans)-fac)*rate + fac*chol
}

// fitPhotos is Budget.Fit on photos. With b.Rates set, b.Rates.Score is
// taken as the seconds per multiply-add of the filters and Gram sums and
// b.Rates.Chol as the seconds per unit of the factor's L^3 / 3 (no probe).
func (b Budget) fitPhotos(ctx context.Context, p Problem, progress func(Step), plan func(BudgetPlan)) (*Model, error) {
	n, rows, cols, chans := p.X.Len(), p.X.Rows, p.X.Cols, max(p.X.Chans(), 1)
	base := Default(SCN2D)
	base.Seed = b.Seed
	cfg, ok := base.ForPhotos(n, rows, cols, chans)
	if !ok {
		return nil, fmt.Errorf("%w: local nodes cannot be applied to images of %d x %d x %d", ErrBudget, rows, cols, chans)
	}
	var rate, chol float64
	if b.Rates != nil {
		rate, chol = b.Rates.Score, b.Rates.Chol
	} else {
		chol = timing.CholSeconds(1024)
		// Two probe fits, of photoProbeFilters and three times as many
		// filters on the same images: the rate is the slope between them,
		// free of the fixed costs of a fit (on natural-images the one small
		// probe alone overstated a large fit's time ten times).
		m := min(n, photoProbeImages)
		idx := make([]int, m)
		for i := range idx {
			idx[i] = i * n / m
		}
		q := p.subset(idx)
		var ts, cs [2]float64
		for i, f := range []int{photoProbeFilters, 3 * photoProbeFilters} {
			pc := cfg
			pc.Local = cfg.Local.clone()
			pc.Local.Filters = f
			pc.MaxNodes = pc.Local.Outputs()
			t0 := b.now()
			if _, err := pc.Fit(ctx, q, nil); err != nil {
				return nil, fmt.Errorf("budget probe: %w", err)
			}
			ts[i], cs[i] = b.now().Sub(t0).Seconds(), photoCost(pc.Local, f, m, rows, cols, chans)
		}
		rate = (ts[1] - ts[0]) / (cs[1] - cs[0])
		if lo := ts[1] / cs[1] / 4; !(rate > lo) {
			rate = lo // the probes' noise: at least a quarter of the larger's average
		}
	}
	if !(rate > 0) || !(chol >= 0) {
		return nil, fmt.Errorf("%w: local nodes' rates %v and %v s per multiply-add are not usable", ErrBudget, rate, chol)
	}
	left := (b.Duration - b.now().Sub(b.Start)).Seconds() * photoBudgetShare
	f := budgetFilters(cfg, rate, chol, left, n, rows, cols, chans, p.M, b.MaxBytes)
	cfg.Local.Filters = f
	cfg.MaxNodes = cfg.Local.Outputs()
	l := cfg.MaxNodes
	predicted := photoSeconds(cfg.Local, f, n, rows, cols, chans, rate, chol)
	pl := BudgetPlan{
		Kind: cfg.Kind, Preset: cfg.Preset, Nodes: l, MaxNodes: l, BlockSize: max(1, cfg.BlockSize),
		Ridges: []float64{cfg.Ridge}, FitRidge: cfg.Ridge, Predicted: time.Duration(predicted * float64(time.Second)),
		Rates: Rates{Score: rate, Chol: chol}, Filters: f,
		Why: fmt.Sprintf("photos (%d x %d x %d): the presets' local nodes, %d filters of 5 x 5 fit the time left (%.1f s per 1e9 multiply-adds measured)",
			rows, cols, chans, f, rate*1e9),
	}
	if plan != nil {
		plan(pl)
	}
	m, err := cfg.Fit(ctx, p, progress)
	if err != nil {
		return m, err
	}
	m.Budget = &BudgetRecord{Budget: b.Duration, Plan: pl, FitNodes: m.Nodes(), Stopped: "plan", Elapsed: b.now().Sub(b.Start)}
	return m, nil
}

// budgetFilters returns the most filters (a multiple of photoFilterStep,
// at least photoFilterStep, at most photoMaxFilters and 64 pooled outputs
// per image) whose modelled time (photoSeconds) fits in sec seconds and whose
// estimated memory fits in maxBytes (0: no bound).
func budgetFilters(cfg Config, rate, chol, sec float64, n, rows, cols, chans, m int, maxBytes int64) int {
	best := photoFilterStep
	for f := photoFilterStep; f <= photoMaxFilters; f += photoFilterStep {
		c := cfg
		c.Local = cfg.Local.clone()
		c.Local.Filters = f
		c.MaxNodes = c.Local.Outputs()
		if c.MaxNodes > 64*n || photoSeconds(c.Local, f, n, rows, cols, chans, rate, chol) > sec ||
			(maxBytes > 0 && c.EstimateBytesC(n, rows, cols, chans, m) > maxBytes) {
			break
		}
		best = f
	}
	return best
}

// replayLocal is Replay for a budget that planned local nodes: the
// model's configuration (its filters) fitted again.
func replayLocal(ctx context.Context, rec *BudgetRecord, m *Model, p Problem, progress func(Step)) (*Model, error) {
	out, err := m.Config.Fit(ctx, p, progress)
	if err != nil {
		return nil, err
	}
	out.Summary.Stop = m.Summary.Stop
	out.Budget = rec
	out.Meta, out.Preprocessing = m.Meta, m.Preprocessing
	return out, nil
}
