package scn

import (
	"context"
	"fmt"
	"slices"
)

// Growing a supervised model with new images (scn update --grow).
//
// The new nodes are chosen by the supervisory inequality on the residual
// the model leaves on the new images (a regression of that residual, with
// the model's configuration). Their output weights, and the old nodes'
// again, are then the least squares over the old and the new images
// together, which needs the new nodes' outputs on the old images: the
// statistics of the old images (G, H^T T) hold only the old nodes' sums,
// and no sum of them gives H_new^T H_old. So growing needs the old images
// themselves; the alternative that does without them (the new nodes'
// columns taken as zero over the old images) is not the least squares of
// any data set, and is not offered.

// Grow returns m with up to k supervised nodes added, chosen on the
// residual r (x.Len() x q, row-major: the targets of the images x minus
// m's predictions, q >= m.M outputs when the new images bring classes) by m's configuration with L_max = k and the given seed;
// the new model's output weights are zero (solve them from statistics of
// all the images for its nodes, Model.Stats and Stats.Solve). Only the
// supervised learners grow this way.
func (m *Model) Grow(ctx context.Context, x Images, r []float64, k int, seed uint64) (*Model, error) {
	if err := m.refuseGrow(); err != nil {
		return nil, err
	}
	if k < 1 {
		return nil, fmt.Errorf("%w: grow by %d nodes", ErrConfig, k)
	}
	if err := m.checkInput(x); err != nil {
		return nil, err
	}
	n := x.Len()
	if n == 0 || len(r)%n != 0 || len(r)/n < m.M {
		return nil, fmt.Errorf("%w: a residual of %d values for %d images and %d outputs", ErrData, len(r), n, m.M)
	}
	p, err := Regression(x, r, len(r)/n)
	if err != nil {
		return nil, err
	}
	c := m.Config
	c.Kind, c.Activation = m.Kind, m.Activation
	c.MaxNodes, c.Seed, c.Tolerance = k, seed, 0
	c.Robust = false
	g, err := c.Fit(ctx, p, nil)
	if err != nil {
		return nil, err
	}
	out := *m
	out.Params = append(slices.Clone(m.Params), g.Params...)
	out.Bias = append(slices.Clone(m.Bias), g.Bias...)
	out.Beta = make([]float64, out.Nodes()*m.M) // zero: solve them from statistics
	out.Config.MaxNodes = out.Nodes()
	out.Selection, out.Budget = nil, nil
	out.Summary = Summary{Nodes: out.Nodes(), Stop: g.Summary.Stop}
	return &out, nil
}

// refuseGrow refuses to grow m on a residual: local nodes, and learners
// that draw their nodes at random.
func (m *Model) refuseGrow() error {
	if err := m.refuseLocal("growing on a residual"); err != nil {
		return err
	}
	if m.Kind.Choice != Supervised {
		return fmt.Errorf("%w: %s draws its nodes at random: grow it by a fit of more nodes, not on a residual", ErrConfig, m.Kind)
	}
	return nil
}
