package scn

import (
	"context"
	"fmt"

	"github.com/scn2d/scn/internal/budgetflow"
	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/localplan"
)

// A time budget's local nodes: on photos the presets' photo choice, their
// filters fitted to the time and the ridge term chosen on held-out images
// (internal/budgetflow's FitLocal, which says how); on grey images that
// are not photos, local nodes with average and max pooling when they win
// a probe against the global plan's learner (budgetflow's grey.go; its
// settings and rules are internal/localplan's). Here: the configurations
// budgetflow plans and the fits it runs (budgetJob's Photo, Grey,
// Accuracy and FitLocal with its ridge choice).

// Photo returns the presets' photo choice for the budget's problem.
func (j *budgetJob) Photo() (Config, bool) {
	x := j.p.X
	base := Default(SCN2D)
	base.Seed = j.b.Seed
	return base.ForPhotos(x.Len(), x.Rows, x.Cols, max(x.Chans(), 1))
}

func (j *budgetJob) ChoosePhotos(ctx context.Context, label string) (PhotoChoice, error) {
	return j.b.ChoosePhotos(ctx, []PhotoInput{{Problem: j.p, Label: label}})
}

// greyLocal returns the local configuration a budget plans on grey
// images: scn train --model 2drvfl --local 5x5 --pooling avg+max --ridge 10
// with f filters (the preset's 2DRVFL, ReLU, scale 1, no whitening).
func greyLocal(seed uint64, f int) Config {
	c := Default(RVFL2D)
	c.Seed = seed
	l := localplan.GreyGeometry(f)
	c.Local = l
	c.Activation = ReLU
	c.Ridge = localplan.GreyRidge
	c.Scales = []float64{1}
	c.FieldMin, c.FieldMax = 0, 0
	c.Differences, c.Standardize, c.Pairs = false, false, false
	c.MaxNodes = l.Outputs()
	return c
}

func (j *budgetJob) Grey(f int) Config { return greyLocal(j.b.Seed, f) }

// Accuracy fits c on a sample's training part without model selection
// and returns its accuracy on the sample's held images.
func (j *budgetJob) Accuracy(ctx context.Context, c Config, idx, train, held []int) (float64, error) {
	sub := j.p.subset(idx)
	tr, ho := sub.subset(train), sub.subset(held)
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

// FitLocal fits the local configuration c on the budget's problem
// (budgetflow.Job): the clock may stop the fit between two blocks of
// filters: the model is then the fit of the filters drawn so far (the
// filters come from one random stream, block after block), recorded as
// that many. The ridge choice, afterwards, chooses among the ridge terms
// on the images held out, the dual way when L passes N, the primal way
// otherwise, and its cost (localnet.ChooseRidge, or ChooseRidgeGrey for a
// grey budget's growing fit), the output weights every image's at that
// term.
func (j *budgetJob) FitLocal(ctx context.Context, cfg Config, stopFit func(filters int) bool) (*Model, budgetflow.Chooser, error) {
	p, progress := j.p, j.progress
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	prog := progress
	if stopFit != nil {
		per := cfg.Local.PerFilter()
		prog = func(s Step) {
			if progress != nil {
				progress(s)
			}
			if f, at := localplan.AtBlock(s.L, per, cfg.Local.Filters); at && stopFit(f) {
				cancel()
			}
		}
	}
	m, lf, err := cfg.fitLocalState(fctx, p, prog)
	if err != nil && m != nil && ctx.Err() == nil && fctx.Err() != nil {
		f := m.Nodes() / cfg.Local.PerFilter()
		m.Config.Local.Filters, m.Local.Geometry.Filters, m.Config.MaxNodes = f, f, m.Nodes()
		m.Summary.Stop = ReachedMaxNodes // as a fit of f filters says
		err = nil
	}
	if err != nil {
		return m, nil, err
	}
	return m, func(ctx context.Context, train, held []int, ridges []float64, grey bool, more budgetflow.Mores) error {
		classify := p.Classes != nil
		choose := localnet.ChooseRidge
		if grey {
			choose = localnet.ChooseRidgeGrey
		}
		beta, rmse, pts, best, err := choose(ctx, lf.solver(), p.T, train, held, ridges, classify, more)
		if err != nil {
			return err
		}
		curve := asScores(pts)
		choice := curve[best]
		m.Beta = beta
		m.Config.Ridge = choice.Ridge
		m.Summary.TrainRMSE = rmse
		metric := "rmse"
		if classify {
			metric = "accuracy"
		}
		m.Selection = &Choice{
			Method: "holdout", Held: len(held), Folds: 1, Metric: metric, Nodes: m.Nodes(), Ridge: choice.Ridge,
			Accuracy: choice.Accuracy, RMSE: choice.RMSE, Curve: curve, FitNodes: m.Nodes(), Candidates: len(curve),
			Refit: fmt.Sprintf("output weights of all %d images at ridge %g (the filters and the standardisation saw every image)", lf.n, choice.Ridge),
		}
		return m.check()
	}, nil
}
