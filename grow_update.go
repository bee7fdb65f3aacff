package scn

import (
	"context"
	"fmt"

	"github.com/scn2d/scn/internal/suffstats"
)

// GrowUpdate returns m grown by up to k supervised nodes and solved again
// over its old training images and the new images p, with the merged
// statistics of the grown model over both (for the next update): the
// workflow of scn update --grow (grow.go says why the old images
// themselves are needed).
//
// The old images old must be those oldStats (m's statistics, scn train
// --stats-out) was summed over: the same count, and the same count of each
// class (CheckImages; an *ImagesMismatchError otherwise). The new nodes are
// chosen by m's configuration on the residual m leaves on p (Grow, with
// the seed m.Config.Seed+1), with a column for each class p brings that m
// does not have; the output weights of all the nodes are the least squares
// with m's ridge term of the old and new images' merged statistics
// (Model.Stats, Stats.Merge, Stats.Solve). The new model keeps m's
// metadata and preprocessing. Only the supervised learners grow, and not
// models of local nodes.
func (m *Model) GrowUpdate(ctx context.Context, oldStats *Stats, old, p Problem, k int) (*Model, *Stats, error) {
	if err := m.refuseGrow(); err != nil {
		return nil, nil, err
	}
	if err := oldStats.CheckImages(old); err != nil {
		return nil, nil, err
	}
	g, err := m.GrowNodes(ctx, p, k)
	if err != nil {
		return nil, nil, err
	}
	so, err := g.Stats(old)
	if err != nil {
		return nil, nil, err
	}
	sn, err := g.Stats(p)
	if err != nil {
		return nil, nil, err
	}
	merged, err := so.Merge(sn)
	if err != nil {
		return nil, nil, err
	}
	nm, err := merged.Solve(m.Config.Ridge)
	if err != nil {
		return nil, nil, err
	}
	nm.Meta, nm.Preprocessing = m.Meta, m.Preprocessing
	return nm, merged, nil
}

// ImagesMismatchError says that images are not those statistics were
// summed over (Stats.CheckImages). It wraps ErrStats.
type ImagesMismatchError = suffstats.ImagesMismatchError

// CheckImages reports (an *ImagesMismatchError) when p's images cannot be
// those s was summed over: another count of images, or, for a
// classification, another count of images of some class of s. It cannot
// tell two sets of the same counts apart.
func (s *Stats) CheckImages(p Problem) error {
	return s.view().CheckImages(p.X.Len(), p.T, p.M, p.Classes, s.Recipe.augmentRows())
}

// growResidual returns the targets of p minus m's predictions, with m's
// outputs first and a column for each class of p that m does not have (m
// predicts 0 there), as the merged statistics order them
// (suffstats.Residual).
func (m *Model) growResidual(p Problem) ([]float64, error) {
	y, err := m.Predict(p.X)
	if err != nil {
		return nil, err
	}
	r, ok := suffstats.Residual(y, p.T, p.X.Len(), m.M, p.M, m.Classes, p.Classes)
	if !ok {
		return nil, fmt.Errorf("%w: the new images have %d targets, the model %d outputs", ErrData, p.M, m.M)
	}
	return r, nil
}
