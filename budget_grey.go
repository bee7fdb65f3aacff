package scn

import (
	"context"

	"github.com/scn2d/scn/internal/localplan"
)

// A time budget on grey images that are not photos: a probe on a sample
// compares local nodes (average and max pooling) with the global plan's
// learner on held-out images and plans the winner (internal/budgetflow's
// grey.go, which says how; its settings and rules are internal/localplan's).
// Here: the local configuration it plans and the probe's fits.

// greyRidge is the ridge term of the grey budget's local configuration,
// the first of the terms it chooses from (budgetflow.GreyRidges).
const greyRidge = localplan.GreyRidge

// greyLocal returns the local configuration a budget plans on grey
// images: scn train --model 2drvfl --local 5x5 --pooling avg+max --ridge 10
// with f filters (the preset's 2DRVFL, ReLU, scale 1, no whitening).
func greyLocal(seed uint64, f int) Config {
	c := Default(RVFL2D)
	c.Seed = seed
	l := localplan.GreyGeometry(f)
	c.Local = l
	c.Activation = ReLU
	c.Ridge = greyRidge
	c.Scales = []float64{1}
	c.FieldMin, c.FieldMax = 0, 0
	c.Differences, c.Standardize, c.Pairs = false, false, false
	c.MaxNodes = l.Outputs()
	return c
}

// greyProbeFit fits c on tr without model selection and returns its
// accuracy on ho.
func greyProbeFit(ctx context.Context, c Config, tr, ho Problem) (float64, error) {
	m, err := c.Fit(ctx, tr, nil)
	if err != nil {
		return 0, err
	}
	pred, err := m.Classify(ho.X)
	if err != nil {
		return 0, err
	}
	return Accuracy(pred, ArgMax(ho.T, ho.M)), nil
}
