package scn

import (
	"context"
	"fmt"

	"github.com/scn2d/scn/internal/suffstats"
)

// Growing a served model (scn serve --learn --grow): the statistics of
// all the images a model learnt, summed a batch at a time (StatsSum), and
// the nodes GrowUpdate would add (GrowNodes).

// StatsSum sums a model's statistics over images given a batch at a time,
// in order (Model.NewStatsSum): the sums are those Model.Stats gives over
// all the batches' images at once, bit for bit, whatever the batches'
// sizes (the images are regrouped into Model.Stats's batches of hidden
// outputs and chunks of products), with memory of a batch, not of the
// images. It supports the models Online learns without their extensions:
// no direct links, class weights or local nodes.
type StatsSum struct {
	m *Model
	r *Model // the statistics' recipe
	b *suffstats.BatchSum
}

// NewStatsSum starts the statistics of m's nodes over n images (the count
// is needed up front: Model.Stats's chunk width depends on it) of outputs
// targets each, of the given classes (nil for a regression; the targets'
// columns in their order).
func (m *Model) NewStatsSum(n, outputs int, classes []string) (*StatsSum, error) {
	switch {
	case m.IsDeep():
		return nil, fmt.Errorf("%w: sufficient statistics (the recipe holds one layer)", ErrDeep)
	case m.Local != nil:
		return nil, fmt.Errorf("%w: summed statistics a batch at a time", ErrLocal)
	case m.Direct != nil || m.ClassWeights != nil:
		return nil, fmt.Errorf("%w: statistics summed a batch at a time have no direct links or class weights", ErrConfig)
	case n < 1 || outputs < 1:
		return nil, fmt.Errorf("%w: statistics of %d images of %d outputs", ErrData, n, outputs)
	case classes != nil && len(classes) != outputs:
		return nil, fmt.Errorf("%w: %d classes for %d outputs", ErrData, len(classes), outputs)
	}
	lh := m.Nodes()
	// Each batch's hidden outputs as Model.hidden forms them over all the
	// images.
	hidden := func(pix []float32, f func(lo, rows int, hb []float32)) {
		forHidden(m, lh, Images{Rows: m.Rows, Cols: m.Cols, Channels: m.Channels, Pix: pix}, f)
	}
	d := m.Rows * m.Cols * m.Chans()
	return &StatsSum{m: m, r: m.recipe(), b: suffstats.NewBatchSum(lh, outputs, n, d, predictBatch, classes, hidden)}, nil
}

// Add adds the images of p (its targets in the sum's outputs; p.Classes,
// if given, the sum's classes).
func (a *StatsSum) Add(p Problem) error {
	if a.b.Done() {
		return fmt.Errorf("%w: statistics added to after Stats", ErrStats)
	}
	if err := p.check(); err != nil {
		return err
	}
	if err := a.m.checkInput(p.X); err != nil {
		return err
	}
	if err := asDataErr(a.b.Check(p.M, p.Classes, p.X.Len())); err != nil {
		return err
	}
	a.b.Add(p.X.Pix, p.T, p.X.Len())
	return nil
}

// Stats returns the statistics of the images added, which must be the n
// the sum was started for; the sum takes no more images after.
func (a *StatsSum) Stats() (*Stats, error) {
	sums, err := a.b.End()
	if err != nil {
		return nil, asDataErr(err)
	}
	return statsOf(a.r, sums), nil
}

// GrowNodes returns m with up to k supervised nodes added, chosen as
// GrowUpdate chooses them: on the residual m leaves on the images p (with
// a column for each class p brings that m does not have), by m's
// configuration with the seed m.Config.Seed+1. Its output weights are
// zero: solve them from statistics of all the images for its nodes
// (StatsSum, Stats.Merge, Stats.Solve); GrowUpdate does both at once on
// images held in memory.
func (m *Model) GrowNodes(ctx context.Context, p Problem, k int) (*Model, error) {
	if err := m.refuseGrow(); err != nil {
		return nil, err
	}
	r, err := m.growResidual(p)
	if err != nil {
		return nil, err
	}
	return m.Grow(ctx, p.X, r, k, m.Config.Seed+1)
}
