package budgetflow

import (
	"context"
	"fmt"

	"github.com/scn2d/scn/internal/budget"
	"github.com/scn2d/scn/internal/cfgerr"
	"github.com/scn2d/scn/internal/localplan"
)

// PhotoFit fits the local configuration c (its ridge term pl.FitRidge) as
// the plan pl says: with pl.Validation > 0 the ridge term is then chosen
// among pl.Ridges on that share of the images held out (drawn from c's
// seed) and the output weights are every image's at that term, unless
// proceed (nil: always) says, once the fit is done, that there is no time
// left for the choice: the model is then the fit's own, at pl.FitRidge,
// and chose is false; more may cut the grid short. stop (nil: never),
// called between blocks of filters, ends the fit with the filters drawn
// so far. A grey budget's growing fit chooses its ridge the grey way
// (Chooser); the plans of earlier files, which did not grow, replay as
// they were.
func PhotoFit[C, M any](ctx context.Context, j Job[C, M], c C, pl budget.Plan, stop func(filters int) bool, proceed func() bool, more Mores) (m M, chose bool, err error) {
	var zero M
	var train, held []int
	if pl.Validation > 0 {
		in := j.Info(c)
		if train, held, err = j.Holdout(nil, pl.Validation, in.Seed); err != nil {
			return zero, false, err
		}
		if in.Augmented {
			return zero, false, fmt.Errorf("%w: a budget's ridge choice with augmented local fits: not supported", cfgerr.ErrConfig)
		}
	}
	m, choose, err := j.FitLocal(ctx, c, stop)
	if err != nil {
		return m, false, err
	}
	if !(pl.Validation > 0) || (proceed != nil && !proceed()) {
		return m, false, nil
	}
	if err := choose(ctx, train, held, pl.Ridges, pl.Probe != "" && pl.MaxNodes > pl.Nodes, more); err != nil {
		return zero, false, err
	}
	return m, true, nil
}

// ReplayLocal refits the plan rec of a budget that planned local nodes
// with the model's configuration c (its filters; the ridge term the
// fit's): a budget whose clock left out the ridge choice kept the fit's
// own weights, one whose clock cut the grid short scored its first terms
// (selected: the model has a selection, of curve terms).
func ReplayLocal[C, M any](ctx context.Context, j Job[C, M], c C, rec *budget.Record, selected bool, curve int) (M, error) {
	choose, scored := localplan.Replayed(rec.Stopped, selected, curve, len(rec.Plan.Ridges))
	proceed := func() bool { return choose }
	more := func(i int, _, _ float64) bool { return i < scored }
	m, _, err := PhotoFit(ctx, j, c, rec.Plan, nil, proceed, more)
	return m, err
}
