package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/suffstats"
)

// Online is a model's output layer learning from labelled images that
// arrive a batch at a time (what scn serve --learn runs): it holds the
// sufficient statistics of the model's nodes (G = H^T H, H^T T, T^T T:
// Stats) and, after each batch, adds the batch's sums and solves the
// output weights again with the model's ridge term. Without forgetting,
// the model after any sequence of batches is the one Model.Update gives
// with the same images (the least squares of the old and new images). With
// a forgetting factor lambda < 1 (per image), every image's sums are
// weighted by lambda to the power of the number of images learnt after it,
// the statistics it started from counting as images learnt before the
// first batch: the exponentially weighted least squares
//
//	min_beta  sum_i lambda^(n-i) ||t_i - h_i beta||^2 + ridge ||beta||^2
//
// (the ridge term itself is not forgotten: it keeps the solve well posed
// however little the old images weigh).
//
// Adding a batch of k images costs about L^2 k / 2 multiply-adds (the Gram
// product, on G's lower triangle only) and the solve a few conjugate
// gradient steps of 4 L^2 m multiply-adds each, warm started from the
// previous weights and preconditioned with a Cholesky factor of an earlier
// G + ridge I (the one stored with the statistics, Stats.Factor, or one
// formed when it is missing or no longer preconditions well: L^3 / 6). The
// statistics Online was made with belong to it from then on.
//
// An Online is not safe for concurrent use; the models Learn returns are
// new values, never changed afterwards, and can be used by any number of
// goroutines while Online learns.
type Online struct {
	c      *suffstats.Online[*Model] // the learner (the sums, the factor, the solve's state) and the current model
	recipe *Model                    // the statistics' recipe: the hidden rows
}

// onlineHost makes an Online's models (suffstats.Host): the recipe's
// nodes, the base model's metadata and preprocessing.
type onlineHost struct{ recipe, base *Model }

func (h onlineHost) ModelOf(s *suffstats.Sums, beta []float64, rmse float64) *Model {
	nm := statsOf(h.recipe, s).model(beta, h.base.Config.Ridge, rmse)
	nm.Meta, nm.Preprocessing = h.base.Meta, h.base.Preprocessing
	nm.Summary.Stop = h.base.Summary.Stop
	return nm
}
func (h onlineHost) Exact(s *suffstats.Sums) (*Model, error) { return statsOf(h.recipe, s).Solve(0) }
func (onlineHost) Beta(m *Model) []float64                   { return m.Beta }
func (onlineHost) RMSE(m *Model) float64                     { return m.Summary.TrainRMSE }
func (onlineHost) SetSamples(m *Model, n int)                { m.Summary.Samples = n }

// NewOnline starts online learning for m from st, the statistics of m's
// nodes (over its training images, or those of an earlier Online's
// snapshot), with the forgetting factor forget in (0, 1] per image (1:
// none). The statistics' classes must be m's, in m's order (any order is
// taken and put in m's); st belongs to the Online from then on (its G is
// read if OpenStats left it unread). Without a stored factor, or with one
// of another size, the factor of G + ridge I is formed (L^3 / 6
// multiply-adds). Deep models have no statistics and are refused.
func NewOnline(m *Model, st *Stats, forget float64) (*Online, error) {
	if m.IsDeep() {
		return nil, fmt.Errorf("%w: online learning needs the statistics of one hidden layer", ErrDeep)
	}
	if err := suffstats.CheckForget(forget); err != nil {
		return nil, err
	}
	if err := sameRecipe(st.Recipe, m); err != nil {
		return nil, err
	}
	reorder, err := suffstats.MatchOutputs(st.M, m.M, st.Classes, m.Classes, m.IsClassifier())
	if err != nil {
		return nil, err
	}
	if reorder {
		if st, err = st.WithClasses(m.Classes); err != nil {
			return nil, err
		}
	}
	if _, err := st.gram(); err != nil {
		return nil, err
	}
	v := st.view()
	c, err := suffstats.StartOnline(v, m.Config.Ridge, forget, m, onlineHost{st.Recipe, m}, m.Beta, m.Nodes())
	st.Factor = v.Factor // nil when the learner holds it whole
	if err != nil {
		return nil, err
	}
	return &Online{c: c, recipe: st.Recipe}, nil
}

// Model returns the model of the current output weights.
func (o *Online) Model() *Model { return o.c.Model }

// Images returns the number of images the statistics hold (those the
// model was trained on and those learnt since).
func (o *Online) Images() int { return o.c.L.S.N / o.recipe.augmentRows() }

// Learnt returns the number of images Learn took.
func (o *Online) Learnt() int { return o.c.L.Learnt }

// Forget returns the forgetting factor per image.
func (o *Online) Forget() float64 { return o.c.L.Forget }

// Classes returns the model's classes (nil for a regression).
func (o *Online) Classes() []string { return o.c.L.S.Classes }

// SolveSteps returns the conjugate gradient steps of the last solve, -1
// if it was solved directly (a factor formed).
func (o *Online) SolveSteps() int { return o.c.L.Steps }

// Learn adds the images of p (targets in the model's outputs: p.Classes,
// if given, must be the model's classes in order, see AddClasses) and
// returns the model of the output weights solved again: Add, then Solve.
// On an error the Online is as it was, except after a failed solve (the
// sums then hold the images, and the next Solve solves them too).
func (o *Online) Learn(p Problem) (*Model, error) {
	if err := o.Add(p); err != nil {
		return nil, err
	}
	return o.Solve()
}

// Add adds the sums of the images of p to the statistics (the L^2 k / 2
// multiply-adds of a pass) without solving the output weights: the model
// stays that of the last solve until Solve, which then solves the images
// of every Add since in one go (the statistics are the same whatever the
// passes; only their sums' rounding depends on where the passes split).
// On an error the Online is as it was.
func (o *Online) Add(p Problem) error {
	if err := p.check(); err != nil {
		return err
	}
	if err := o.c.Model.checkInput(p.X); err != nil {
		return err
	}
	if err := asDataErr(o.c.Check(p.M, p.Classes)); err != nil || p.X.Len() == 0 {
		return err
	}
	r := o.recipe
	if err := r.checkStatsRows(p.X); err != nil {
		return err
	}
	o.c.Add(p.X.Len(), p.T, r.augmentRows(), func(f func(lo, rows int, hb []float32)) error {
		return r.forStatsRows(r.Nodes(), p.X, 0, f)
	})
	return nil
}

// Unsolved returns the number of images added since the last solve: those
// the statistics hold and the model does not yet.
func (o *Online) Unsolved() int { return o.c.L.Unsolved }

// Solve solves the output weights of the statistics, if images were added
// since the last solve, and returns the model of the current weights (a
// new value when it solved). After a failed solve the sums keep the
// images, and the next Solve tries again.
func (o *Online) Solve() (*Model, error) { return o.c.Solve() }

// AddClasses adds classes to a classification model's outputs (after its
// own): the images learnt so far are no example of them, so their output
// weights are zero until images of them are learnt.
func (o *Online) AddClasses(names ...string) error { return asDataErr(o.c.AddClasses(names)) }

// Snapshot returns the current model and a copy of the statistics (G
// whole and exactly symmetric, with the preconditioning factor: a stale
// one unless formed at the last batch), which Online no longer changes:
// they can be saved while it goes on learning. The model is that of the
// last solve: with images added since (Unsolved > 0), Solve first for a
// model of the statistics' images.
func (o *Online) Snapshot() (*Model, *Stats) {
	return o.c.Model, statsOf(o.recipe, o.c.L.Snapshot())
}
