package scn

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/scn2d/scn/internal/selection"
)

// FitHeldOut fits on p as Fit does, but on a stratified share
// s.Validation of the images held out, so that the selection's extras
// (a classifier's calibration map unless s.Uncalibrated, s.Coverage) can
// be fitted on images the output weights did not see: the nodes are those of the fit on the rest, with the
// configuration's L_max and ridge term (no choice is made, and the model
// records none), and the output weights are then re-solved on all of p
// (as Select's hold-out does). s.ClassWeights weigh the output weights'
// least squares.
func (c Config) FitHeldOut(ctx context.Context, p Problem, s Selection, progress func(Step)) (*Model, error) {
	s.fixed, s.Folds, s.Patience = true, 0, 0
	s.Ridges = []float64{c.Ridge}
	return c.Select(ctx, p, s, progress)
}

// calibrates reports whether the selection fits a calibration map on p:
// a classification problem, unless s.Uncalibrated.
func (s Selection) calibrates(p Problem) bool {
	return !s.Uncalibrated && p.Classes != nil
}

// validateExtras reports an impossible calibration setting.
func (s Selection) validateExtras(c Config) error {
	switch {
	case s.Coverage != 0 && !(s.Coverage > 0 && s.Coverage < 1):
		return fmt.Errorf("%w: Coverage = %v, want a share in (0, 1) (or 0: no intervals)", ErrConfig, s.Coverage)
	case s.ClassWeights != nil && c.Robust:
		return fmt.Errorf("%w: class weights and Robust both weigh the images of the least squares: choose one", ErrConfig)
	}
	if s.ClassWeights != nil {
		if err := checkWeights(s.ClassWeights, len(s.ClassWeights)); err != nil {
			return fmt.Errorf("%w: %v", ErrConfig, err)
		}
	}
	return nil
}

// checkExtrasProblem reports extras that p cannot have
// (selection.CheckExtrasProblem).
func (s Selection) checkExtrasProblem(p Problem) error {
	if err := selection.CheckExtrasProblem(s.Coverage, s.ClassWeights, p.Classes != nil, p.M); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return nil
}

// extras returns the selection's extras on a selection of p
// (internal/selection's Extras over the root's models and problems: its
// HoldOut fits them on a hold-out's held-out outputs, its Folds on every
// image's out-of-fold output).
func (s Selection) extras(p Problem) selection.Extras[*Model, Problem] {
	cal := s.calibrates(p)
	return selection.Extras[*Model, Problem]{
		Calibrate: cal, Coverage: s.Coverage, Weighted: s.ClassWeights != nil,
		Check:    func() error { return s.checkExtrasProblem(p) },
		Reweight: func(m *Model, on Problem) (*Model, error) { return m.Reweighted(on, s.ClassWeights) },
		Outputs: func(m *Model, on Problem) ([]float64, []float64, error) {
			y, err := m.Predict(on.X)
			return y, on.T, err
		},
		Attach: func(m *Model, y, t []float64) (*Model, error) { return s.attachExtras(m, cal, y, t) },
	}
}

// attachExtras returns m with the calibration map (if cal) or intervals
// fitted on held-out outputs y and targets t (N x M).
func (s Selection) attachExtras(m *Model, cal bool, y, t []float64) (*Model, error) {
	out := *m
	if cal {
		fitted, err := FitCalibration(y, ArgMax(t, m.M), m.M)
		if err != nil {
			return nil, fmt.Errorf("scn: calibration: %w", err)
		}
		out.Calibration = fitted
	}
	if s.Coverage != 0 {
		iv, err := FitInterval(y, t, m.M, s.Coverage)
		if err != nil {
			return nil, fmt.Errorf("scn: conformal intervals: %w", err)
		}
		out.Interval = iv
	}
	return &out, nil
}

// foldExtras adds the selection's extras to m, the last fit of a k-fold
// selection of (L, ridge) best: the calibration map or intervals are
// fitted on every image's out-of-fold output, from a fit of each fold's
// training part with the chosen L and ridge term (k more fits, of at
// most the chosen L nodes).
func (c Config) foldExtras(ctx context.Context, m *Model, p Problem, folds [][]int, best Score, s Selection) (*Model, error) {
	fc := c
	fc.MaxNodes = max(1, best.Nodes) // a direct-link model may have no hidden nodes
	return s.extras(p).Folds(m, p, len(folds), func(f int, m *Model) (*Model, Problem, Problem, error) {
		train := foldTraining(folds, f)
		debug.FreeOSMemory() // the previous fold's fit, as selectFolds does
		tp, hp := p.subset(train), p.subset(folds[f])
		path, err := fc.fitPath(ctx, tp, nil, runOpts{})
		if err != nil {
			return nil, tp, hp, err
		}
		var tm *Model
		if best.Direct {
			tm, err = withDirect(path.Model(), min(best.Nodes, path.Nodes()), tp.X, tp.T, m.Direct.Pool, best.Ridge)
		} else {
			tm, err = path.Solve(min(best.Nodes, path.Nodes()), best.Ridge)
		}
		return tm, tp, hp, err
	})
}

// FitWeighted is Fit followed by a weighted re-solve of the output
// weights (Model.Reweighted) when weights is not nil.
func (c Config) FitWeighted(ctx context.Context, p Problem, weights []float64, progress func(Step)) (*Model, error) {
	if weights != nil {
		if err := (Selection{ClassWeights: weights}).validateExtras(c); err != nil {
			return nil, err
		}
		if err := (Selection{ClassWeights: weights}).checkExtrasProblem(p); err != nil {
			return nil, err
		}
	}
	m, err := c.Fit(ctx, p, progress)
	if err != nil || weights == nil {
		return m, err
	}
	return m.Reweighted(p, weights)
}
