package suffstats

import (
	"errors"
	"fmt"
	"slices"

	"github.com/scn2d/scn/internal/cfgerr"
)

// Host makes the models of an Online's output weights (package scn's
// *Model, its hidden rows and metadata being the root's).
type Host[M any] interface {
	// ModelOf returns the model of the output weights beta of the sums s
	// with the training RMSE rmse.
	ModelOf(s *Sums, beta []float64, rmse float64) M
	// Exact returns the model of the pseudo-inverse solve of s (a
	// snapshot: G whole and exactly symmetric), for a learner without a
	// ridge term.
	Exact(s *Sums) (M, error)
	// Beta returns m's output weights, RMSE its training RMSE.
	Beta(m M) []float64
	RMSE(m M) float64
	// SetSamples sets the image count m reports.
	SetSamples(m M, n int)
}

// Online is the state of scn.Online: the learner (L) and the model of the
// current output weights (Model), made by Host. Its methods are the
// bodies of scn.Online's (whose doc says what each does); the errors
// about the data are cfgerr.DataError values.
type Online[M any] struct {
	L     *Learner
	Model M
	Host  Host[M]
}

// Check refuses images of m targets of the given classes (nil: unnamed)
// for the learner's outputs.
func (o *Online[M]) Check(m int, classes []string) error {
	st := o.L.S
	if m != st.M {
		return cfgerr.Data("%d targets per image for a model of %d outputs", m, st.M)
	}
	if st.Classes != nil && classes != nil && !slices.Equal(classes, st.Classes) {
		return cfgerr.Data("classes %q, the model's are %q (AddClasses first)", classes, st.Classes)
	}
	return nil
}

// Add adds the weighted sums of n images (checked) of targets t, rowsPer
// hidden rows each (forRows: Learner.Accumulate), and counts them learnt
// and unsolved.
func (o *Online[M]) Add(n int, t []float64, rowsPer int, forRows func(f func(lo, rows int, hb []float32)) error) {
	if err := o.L.Accumulate(n, t, rowsPer, forRows); err != nil {
		panic(err) // the caller checked the images
	}
	o.L.Learnt += n
	o.L.Unsolved += n
}

// Solve solves the output weights of the sums if images were added since
// the last solve, and returns the current model.
func (o *Online[M]) Solve() (M, error) {
	if o.L.Unsolved == 0 {
		return o.Model, nil
	}
	m, err := o.solve()
	if err != nil {
		return m, err
	}
	o.L.Unsolved = 0
	return m, nil
}

// solve solves the output weights of the current sums and makes their
// model the current one.
func (o *Online[M]) solve() (M, error) {
	if o.L.Ridge == 0 {
		// The pseudo-inverse of G: on a symmetric copy.
		nm, err := o.Host.Exact(o.L.Snapshot())
		if err != nil {
			return nm, err
		}
		o.L.Steps = -1
		o.Model = o.Host.ModelOf(o.L.S, o.Host.Beta(nm), o.Host.RMSE(nm))
		return o.Model, nil
	}
	beta, err := o.L.Solve(slices.Clone(o.Host.Beta(o.Model)))
	if err != nil {
		var zero M
		return zero, err
	}
	o.Model = o.Host.ModelOf(o.L.S, beta, o.L.S.NearRMSE(beta, o.L.Ridge))
	return o.Model, nil
}

// AddClasses adds the classes names after the learner's own, their output
// weights zero.
func (o *Online[M]) AddClasses(names []string) error {
	if o.L.S.Classes == nil {
		return cfgerr.Data("a regression model has no classes")
	}
	all := slices.Clone(o.L.S.Classes)
	for _, c := range names {
		if slices.Contains(all, c) {
			return cfgerr.Data("class %q is the model's already", c)
		}
		all = append(all, c)
	}
	st, err := o.L.S.WithClasses(all)
	if err != nil {
		return err
	}
	beta := Widen(o.Host.Beta(o.Model), st.L, o.L.S.M, len(all))
	o.L.S = st
	o.Model = o.Host.ModelOf(o.L.S, beta, o.Host.RMSE(o.Model))
	return nil
}

// Frozen is the state of scn.FrozenSolve: an Online of a frozen copy of
// the sums (Fo), what the parent had when it was frozen, and the model
// its solve gave.
type Frozen[M any] struct {
	o      *Online[M] // the Online it was taken from
	Fo     *Online[M] // an Online of the frozen sums (its own G, H^T T, T^T T)
	Images int        // the unsolved images the frozen sums hold
	Learnt int        // the parent's Learnt at the freeze
	StatN  int        // the images the frozen statistics hold
	Model  M          // the solve's model (after Solve)
	Solved bool
}

// Freeze copies the sums for a solve apart from o (Learner.Freeze).
func (o *Online[M]) Freeze() *Frozen[M] {
	fl := o.L.Freeze()
	fo := &Online[M]{L: fl, Model: o.Model, Host: o.Host}
	return &Frozen[M]{o: o, Fo: fo, Images: o.L.Unsolved, Learnt: o.L.Learnt, StatN: fl.S.N}
}

// Solve solves the frozen sums once, before their release.
func (f *Frozen[M]) Solve() (M, error) {
	if f.Solved || f.Fo == nil {
		var zero M
		return zero, errors.New("scn: a frozen solve solves once, before its release")
	}
	m, err := f.Fo.Solve()
	if err != nil {
		return m, err
	}
	f.Model, f.Solved = m, true
	return m, nil
}

// Sums returns the frozen sums with the newest preconditioning factor
// (nil after Release).
func (f *Frozen[M]) Sums() *Sums {
	if f.Fo == nil {
		return nil
	}
	f.Fo.L.S.Factor = f.Fo.L.Fac
	return f.Fo.L.S
}

// Commit makes the model of f (solved) o's current one; classes added
// since the freeze get zero output weights.
func (o *Online[M]) Commit(f *Frozen[M]) (M, error) {
	var zero M
	if f.o != o {
		return zero, cfgerr.Data("a frozen solve of another Online")
	}
	if !f.Solved || f.Fo == nil {
		return zero, cfgerr.Data("the frozen solve was not solved, or was released")
	}
	if f.Images > o.L.Unsolved {
		return zero, cfgerr.Data("the frozen solve was committed already")
	}
	m := f.Model
	if fs := f.Fo.L.S; o.L.S.M != fs.M {
		// Classes added since the freeze (after the frozen ones).
		m = o.Host.ModelOf(o.L.S, Widen(o.Host.Beta(m), fs.L, fs.M, o.L.S.M), o.Host.RMSE(m))
		o.Host.SetSamples(m, fs.N)
	}
	o.L.Adopt(f.Fo.L)
	o.Model = m
	o.L.Unsolved -= f.Images
	return m, nil
}

// Release gives the frozen copy of G back to o (Learner.Release); f is
// not used afterwards.
func (o *Online[M]) Release(f *Frozen[M]) {
	if f.o != o || f.Fo == nil {
		return
	}
	o.L.Release(f.Fo.L)
	f.Fo = nil
}

// CheckForget refuses a forgetting factor outside (0, 1].
func CheckForget(forget float64) error {
	if !(forget > 0 && forget <= 1) {
		return fmt.Errorf("%w: forgetting factor %v, want a value in (0, 1]", cfgerr.ErrConfig, forget)
	}
	return nil
}

// MatchOutputs checks statistics of m outputs and classes (nil: a
// regression's) against a model's (mm outputs, its classes, classifier:
// whether it is one): it reports whether the statistics' classes must be
// put in the model's order, or why they do not fit (ErrStats).
func MatchOutputs(m, mm int, classes, mclasses []string, classifier bool) (reorder bool, err error) {
	if m != mm {
		return false, fmt.Errorf("%w: statistics of %d outputs for a model of %d", ErrStats, m, mm)
	}
	if !classifier {
		if classes != nil {
			return false, fmt.Errorf("%w: classification statistics for a regression model", ErrStats)
		}
		return false, nil
	}
	if len(classes) != len(mclasses) {
		return false, fmt.Errorf("%w: statistics of classes %q for a model of classes %q", ErrStats, classes, mclasses)
	}
	return !slices.Equal(classes, mclasses), nil
}

// StartOnline starts the online learner of s (NewLearner) for the model
// of the output weights beta of l nodes, made by host.
func StartOnline[M any](s *Sums, ridge, forget float64, model M, host Host[M], beta []float64, l int) (*Online[M], error) {
	if len(beta) != l*s.M {
		return nil, fmt.Errorf("%w: the model has %d output weights, want %d x %d", ErrStats, len(beta), l, s.M)
	}
	lr, err := NewLearner(s, ridge, forget)
	if err != nil {
		return nil, err
	}
	return &Online[M]{L: lr, Model: model, Host: host}, nil
}
