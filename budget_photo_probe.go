package scn

import (
	"context"

	"github.com/scn2d/scn/internal/budgetflow"
)

// The probe of a time budget on photos compares, on a sample of the
// training images with a quarter held out, today's photo plan with the
// same local nodes on the images at other sizes (PhotoInput: the caller
// prepares them, scn train by resizing) and then with other filter sizes,
// and keeps today's plan unless another wins by a standard error
// (internal/budgetflow's ChoosePhotos, which says how). Here: the inputs
// and the candidates' configurations and fits.

// PhotoInput is one preparation of a photo budget's training images that
// ChoosePhotos compares: the problem (the same images, in the same order,
// as every other input's; only their size differs) and how to name it in
// the record (e.g. "48 x 64").
type PhotoInput struct {
	Problem Problem
	Label   string
}

// PhotoChoice is what the probe of a photo budget chose (ChoosePhotos);
// Budget.Photo passes it to Budget.Fit: the index of the input chosen (0:
// the first, today's), the filter side, and the probe's record ("" when
// it did not run; internal/budgetflow's PhotoChoice).
type PhotoChoice = budgetflow.PhotoChoice

// ChoosePhotos runs the probe of a photo budget (see above) on ins, the
// training images prepared in different ways (the first is the way today's
// plan fits them), and returns what it chose. ins must hold the same
// number of images with the same targets; every input must be photos
// (PhotoImages) of a classification problem.
func (b Budget) ChoosePhotos(ctx context.Context, ins []PhotoInput) (PhotoChoice, error) {
	ps, labels := make([]Problem, len(ins)), make([]string, len(ins))
	for i, x := range ins {
		ps[i], labels[i] = x.Problem, x.Label
	}
	pr := photoProber{&budgetJob{b: b}, ins}
	if len(ins) > 0 {
		pr.p = ins[0].Problem
	}
	return budgetflow.ChoosePhotos(ctx, b.flow(), flowInputs(ps, labels), pr)
}

// photoProber is the photo probe's inputs for internal/budgetflow
// (budgetflow.Prober; the first input's budgetJob splits the sample).
type photoProber struct {
	*budgetJob
	ins []PhotoInput
}

func (pr photoProber) Candidate(i int) (Config, bool) {
	return (&budgetJob{b: pr.b, p: pr.ins[i].Problem}).Photo() // every input has the first's N
}

func (pr photoProber) Classifier(i int, idx, train, held []int) func(context.Context, Config) ([]int, []int, error) {
	sub := pr.ins[i].Problem.subset(idx)
	tr, ho := sub.subset(train), sub.subset(held)
	return func(ctx context.Context, c Config) ([]int, []int, error) {
		mod, err := c.Fit(ctx, tr, nil)
		if err != nil {
			return nil, nil, err
		}
		pred, err := mod.Classify(ho.X)
		if err != nil {
			return nil, nil, err
		}
		return pred, ArgMax(ho.T, ho.M), nil
	}
}
