package scn

import (
	"fmt"
	"math"
	"slices"

	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/modelrec"
	"github.com/scn2d/scn/internal/statsfile"
	"github.com/scn2d/scn/internal/suffstats"
)

// Stats are the sufficient statistics of a least-squares output layer: for
// the hidden nodes of a recipe model, the sums over a data set's images of
// G = H^T H (L x L), H^T T (L x m) and T^T T (m x m), with the number of
// images and of images per class. Output weights follow from them alone
// (Solve), and the statistics of two data sets for the same nodes add up
// (Merge): the data can be summed where it lives, shard by shard or
// machine by machine, and a model can learn from new images without its
// old ones (scn update). For the random learners (RVFL, 2DRVFL) a solve of
// merged statistics is the model a fit from scratch on all the images with
// the same nodes gives; for the supervised ones the nodes stay those the
// fit chose, and only the output weights are re-solved. Models of local
// nodes (Config.Local) are summed over their pooled, standardised filter
// outputs, and an augmented one's over each image's copies too, in the
// same way (internal/modelrec's ForCopies says how): random filters as
// random nodes, supervised filters fixed.
type Stats struct {
	// Recipe is the model whose hidden nodes the sums are of (its kind,
	// activation, image shape, parameters, biases, configuration and
	// preprocessing; its output weights are not used).
	Recipe *Model
	// Classes names the outputs of a classification (nil for
	// regression); ClassCounts counts the images of each.
	Classes     []string
	ClassCounts []int
	N           int       // rows summed: the images (with their copies for an augmented local recipe: stats_local.go)
	M           int       // outputs m
	G           []float64 // H^T H, L x L row-major
	HT          []float64 // H^T T, L x m row-major
	TT          []float64 // T^T T, m x m row-major
	// Factor, if not nil, is a Cholesky factor of G + a ridge term (of
	// these images' G or an earlier one), which Model.Update uses instead
	// of factoring G: scn train --stats-out stores it (Factorize).
	Factor *Factor

	loadG func() ([]float64, error) // reads G when OpenStats left it unread
}

// ErrStats is wrapped by every error about statistics that cannot be used
// together or read.
var ErrStats = statsfile.ErrStats

// Stats returns the statistics of p for m's hidden nodes, summed over
// chunks of 2048 images: memory grows with L^2 and L x 2048, not with N.
func (m *Model) Stats(p Problem) (*Stats, error) {
	return m.StatsFrom(p, 0)
}

// StatsFrom is Stats of p as the images first, first+1, ... of a larger
// set: an augmented local model's copies of them are those of their
// places in that set (Augment's draws for the whole set), so that the
// statistics of consecutive parts of a set, each summed from its first
// image's place and merged, hold the rows of the set's own (scn-beam
// stats, which sums a set shard by shard). Without augmentation the place
// changes nothing. first must be >= 0.
func (m *Model) StatsFrom(p Problem, first int) (*Stats, error) {
	if first < 0 {
		return nil, fmt.Errorf("%w: the first image's place %d, want >= 0", ErrData, first)
	}
	s, _, err := m.sums(p, first, true, false)
	return s, err
}

// sums returns the statistics of p for m's hidden nodes, G only if withG
// (nil otherwise); if keep, also the float64 hidden outputs of the
// images (modelrec.Sums).
func (m *Model) sums(p Problem, first int, withG, keep bool) (*Stats, []lsq.Chunk, error) {
	if m.IsDeep() {
		return nil, nil, fmt.Errorf("%w: sufficient statistics (the recipe holds one layer)", ErrDeep)
	}
	if err := p.check(); err != nil {
		return nil, nil, err
	}
	if err := m.checkInput(p.X); err != nil {
		return nil, nil, err
	}
	rows := func(lh int, f func(lo, rows int, hb []float32)) error { return m.forStatsRows(lh, p.X, first, f) }
	s, kept, err := m.rec().Sums(direct.Images(p.X), p.X.Len(), p.T, p.M, p.Classes, m.imageWeights(p), withG, keep, rows)
	if err != nil {
		return nil, nil, err
	}
	return statsOf(m.recipe(), s), kept, nil
}

// recipe returns a copy of m without its output weights' meaning: the
// hidden layer and how it was made.
func (m *Model) recipe() *Model {
	r := *m
	r.Selection, r.Budget = nil, nil
	return &r
}

// Nodes returns the number of hidden nodes L of the statistics.
//
// With direct links (Model.Direct) the statistics are those of [H F], the
// hidden outputs and the direct features, and Nodes counts both columns:
// L + D (see direct.go).
func (s *Stats) Nodes() int { return s.Recipe.Nodes() + s.Recipe.DirectDim() }

// sameRecipe reports the first field in which two recipes differ
// (modelrec.SameRecipe).
func sameRecipe(a, b *Model) error { return modelrec.SameRecipe(a.rec(), b.rec()) }

// view returns the sums of s (sharing its values).
func (s *Stats) view() *suffstats.Sums {
	return &suffstats.Sums{L: s.Nodes(), M: s.M, N: s.N, Classes: s.Classes, ClassCounts: s.ClassCounts,
		G: s.G, HT: s.HT, TT: s.TT, Factor: s.Factor, LoadG: s.loadG}
}

// statsOf returns the statistics of recipe's nodes of the sums v (sharing
// its values).
func statsOf(recipe *Model, v *suffstats.Sums) *Stats {
	return &Stats{Recipe: recipe, Classes: v.Classes, ClassCounts: v.ClassCounts, N: v.N, M: v.M,
		G: v.G, HT: v.HT, TT: v.TT, Factor: v.Factor, loadG: v.LoadG}
}

// absorb takes G as v read it (from a view of s).
func (s *Stats) absorb(v *suffstats.Sums) { s.G, s.loadG = v.G, v.LoadG }

// WithClasses returns s with its outputs in the order of classes, which
// must hold every class of s: a class s has no image of gets zero target
// columns (the old images are no example of it).
func (s *Stats) WithClasses(classes []string) (*Stats, error) {
	v, err := s.view().WithClasses(classes)
	if err != nil {
		return nil, err
	}
	return statsOf(s.Recipe, v), nil
}

// Merge returns the statistics of the union of the two data sets: the same
// recipe is required (the first field that differs is named). Classes are
// matched by name; a class only one side has is added (s's order first),
// with zero target columns on the other side.
func (s *Stats) Merge(o *Stats) (*Stats, error) { return s.merge(o, true) }

// merge is Merge, with G's sum only if withG (nil otherwise).
func (s *Stats) merge(o *Stats, withG bool) (*Stats, error) {
	if err := sameRecipe(s.Recipe, o.Recipe); err != nil {
		return nil, err
	}
	sv, ov := s.view(), o.view()
	v, err := sv.Merge(ov, withG)
	s.absorb(sv)
	o.absorb(ov)
	if err != nil {
		return nil, err
	}
	return statsOf(s.Recipe, v), nil
}

// Solve returns the model of the recipe's nodes with the output weights the
// statistics give: (G + ridge I)^-1 H^T T for ridge > 0; for ridge 0 the
// pseudo-inverse of G (eigenvalues below L lambda_max eps dropped) times
// H^T T, which is pinv(H) T when H has full column rank (the normal
// equations square H's condition number: prefer a small ridge to none).
func (s *Stats) Solve(ridge float64) (*Model, error) {
	if !(ridge >= 0) || math.IsInf(ridge, 0) {
		return nil, fmt.Errorf("%w: ridge %v, want a finite value >= 0", ErrConfig, ridge)
	}
	if s.N == 0 {
		return nil, fmt.Errorf("%w: no image summed", ErrStats)
	}
	v := s.view()
	beta, err := v.Solve(ridge)
	s.absorb(v)
	if err != nil {
		return nil, err
	}
	return s.model(beta, ridge, v.RMSE(beta, ridge)), nil
}

// model returns the model of the recipe's nodes with output weights beta
// solved from s with the ridge term ridge, of training RMSE rmse.
func (s *Stats) model(beta []float64, ridge, rmse float64) *Model {
	r := *s.Recipe
	r.Beta, r.M = beta, s.M
	r.ClassWeights = s.Recipe.weightsFor(s.Classes)
	if r.Calibration != nil && r.Calibration.M != s.M {
		r.Calibration = nil // a map of fewer classes than the statistics have
	}
	if r.Direct != nil {
		lh := r.Nodes() * s.M
		r.Beta = beta[:lh:lh]
		r.Direct = &DirectLink{Pool: r.Direct.Pool, Beta: beta[lh:]}
	}
	r.Classes = slices.Clone(s.Classes)
	r.Config.Ridge = ridge
	r.Selection, r.Budget = nil, nil
	r.Summary = Summary{Nodes: s.Recipe.Nodes(), Samples: s.N / s.Recipe.augmentRows(), Stop: s.Recipe.Summary.Stop, TrainRMSE: rmse}
	return &r
}
