package scn

import (
	"context"
	"fmt"

	"github.com/scn2d/scn/internal/selection"
)

// LocalRidges returns the ridge grid of model selection for local nodes
// when Selection.Ridges is nil: 10 to 1000 by half decades (their pooled
// outputs are standardised, so the term is relative to columns of squared
// norm N; on natural-images 10, 100 and 1000 gave 92.37%, 93.17% and
// 92.37%).
func LocalRidges() []float64 { return []float64{10, 30, 100, 300, 1000} }

// selectLocal is Select for local nodes: one fit on all the images, then
// the ridge term chosen on a held-out share of them from the fit's Gram
// sums (G minus the held-out images' own H_h^T H_h, likewise H^T T), each
// ridge scored on the held-out pooled outputs; the final output weights
// are the ridge solution of every image at the chosen term. L is the
// configuration's (every filter is kept). The held-out images take part in
// the filters' draw and the pooled outputs' standardisation, never in the
// output weights they are scored with; for the supervised learners, whose
// filters are chosen against the residual of every image, the score is
// optimistic. Folds > 1 holds out a 1/Folds share once.
func (c Config) selectLocal(ctx context.Context, p Problem, s Selection, progress func(Step)) (*Model, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	if s.ClassWeights != nil {
		return nil, fmt.Errorf("%w: class weights with local nodes and a hold-out (calibration, intervals or the ridge choice): not supported; fit them without a hold-out (scn train --class-weight without --calibrate)", ErrConfig)
	}
	ridges, share, err := selection.LocalSettings(s.Ridges, LocalRidges(), s.Validation, s.Folds)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	_, held, err := splitHoldout(p, share, c.Seed)
	if err != nil {
		return nil, err
	}
	m, lf, err := c.fitLocalState(ctx, p, progress)
	if err != nil {
		return m, err
	}
	l, mo, nh := lf.eng.L, p.M, len(held)
	classify := p.Classes != nil
	copies := func(idx []int, f func(rows int, h, th []float64)) error { return lf.heldCopies(idx, p.T, f) }
	pts, best, err := selection.LocalRidges(lf.eng, lf.solver(), p.T, mo, held, copies, ridges, classify, ctx.Err)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && err == cerr {
			return m, err
		}
		return nil, err
	}
	curve := asScores(pts)
	choice := curve[best]
	if m.Beta, m.Summary.TrainRMSE, err = selection.LocalFinal(lf.eng, lf.solver(), lf.n, mo, choice.Ridge); err != nil {
		return nil, err
	}
	m.Config.Ridge = choice.Ridge
	m.Selection = &Choice{
		Method: "holdout", Held: nh, Folds: 1, Metric: selection.MetricOf(classify), Nodes: l, Ridge: choice.Ridge,
		Accuracy: choice.Accuracy, RMSE: choice.RMSE, Curve: curve, FitNodes: l, Candidates: len(curve),
		Refit: fmt.Sprintf("output weights of all %d images%s at ridge %g (the filters and the standardisation saw every image)", lf.n, lf.copiesNote(), choice.Ridge),
	}
	if s.fixed {
		m.Selection = nil // FitHeldOut: no choice was made
	}
	if m, err = s.localExtras(ctx, m, lf, p, choice.Ridge, c.Seed); err != nil {
		return nil, err
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}
