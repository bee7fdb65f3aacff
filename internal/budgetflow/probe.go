package budgetflow

import (
	"fmt"

	"github.com/scn2d/scn/internal/budget"
)

// ProbeInputs is scn.Budget.ProbeInputs: probe(i) runs the probe a budget
// plans from on ins[i], a sample of a set of n images prepared in one of
// several ways (at most budget.ProbeImages are used); the problems must
// have the same number of images, size and outputs.
func ProbeInputs(n int, ins []Input, probe func(i int) (budget.Probe, error)) ([]budget.Probe, error) {
	if len(ins) == 0 || n < 1 {
		return nil, fmt.Errorf("%w: %d problems of a set of %d images to probe", ErrBudget, len(ins), n)
	}
	out := make([]budget.Probe, len(ins))
	for i, in := range ins {
		if in.Err != nil {
			return nil, in.Err
		}
		if in.Shape.N != ins[0].Shape.N || in.Dim != ins[0].Dim || in.Shape.M != ins[0].Shape.M {
			return nil, fmt.Errorf("%w: the problems to probe differ in images, size or outputs", ErrBudget)
		}
		pr, err := probe(i)
		if err != nil {
			return nil, err
		}
		out[i] = pr
	}
	return out, nil
}
