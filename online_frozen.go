package scn

import (
	"errors"
	"fmt"

	"github.com/scn2d/scn/internal/suffstats"
)

// FrozenSolve is a solve of an Online's statistics as they were when
// Freeze took it: a copy of the sums (G whole, H^T T, T^T T, the image
// and class counts) that the Online's later Adds do not change, so that
// the solve can run on another goroutine while Add goes on adding images
// to the live sums. Commit then makes its model the Online's; the images
// added after the freeze stay unsolved, for the next solve. The copy of G
// is L x L float64 (200 MB at L = 5000) held until the FrozenSolve is
// dropped.
type FrozenSolve struct {
	o      *Online // the Online it was taken from
	fo     *Online // an Online of the frozen sums (its own G, H^T T, T^T T)
	images int     // the unsolved images the frozen sums hold
	learnt int     // o.Learnt() at the freeze
	statN  int     // the images the frozen statistics hold
	model  *Model  // the solve's model (after Solve)
	solved bool
}

// Freeze copies the statistics (as Snapshot does: G whole and exactly
// symmetric) for a solve that runs apart from the Online: FrozenSolve's
// Solve reads only the copy, and may run while the Online's Add and
// AddClasses run on another goroutine (the Online itself is not safe for
// concurrent use: Freeze, Add, AddClasses and Commit are called by one
// goroutine at a time). Freeze with no unsolved image gives a frozen
// state whose Solve is the current model (a consistent snapshot).
func (o *Online) Freeze() *FrozenSolve {
	fl := o.lr.Freeze()
	fo := &Online{lr: fl, recipe: o.recipe, base: o.base, model: o.model}
	return &FrozenSolve{o: o, fo: fo, images: o.lr.Unsolved, learnt: o.lr.Learnt, statN: fl.S.N}
}

// Images returns the unsolved images the frozen sums hold: those the
// solve adds to the model.
func (f *FrozenSolve) Images() int { return f.images }

// Learnt returns the images the Online had learnt (Online.Learnt) when
// the sums were frozen.
func (f *FrozenSolve) Learnt() int { return f.learnt }

// StatImages returns the images the frozen statistics hold (Stats.N).
func (f *FrozenSolve) StatImages() int { return f.statN }

// Solve solves the output weights of the frozen sums (the current
// model if they hold no unsolved image) and returns their model. It reads
// nothing the Online changes, and is called once.
func (f *FrozenSolve) Solve() (*Model, error) {
	if f.solved || f.fo == nil {
		return nil, errors.New("scn: a frozen solve solves once, before its release")
	}
	m, err := f.fo.Solve()
	if err != nil {
		return nil, err
	}
	f.model, f.solved = m, true
	return m, nil
}

// Stats returns the frozen statistics, with the newest preconditioning
// factor, and the model solved from them (after a Solve that succeeded):
// the same images, to be saved together. Neither changes afterwards,
// until Release (nil, nil after it).
func (f *FrozenSolve) Stats() (*Model, *Stats) {
	if f.fo == nil {
		return nil, nil
	}
	f.fo.lr.S.Factor = f.fo.lr.Fac
	return f.model, f.fo.stats()
}

// Commit makes the model of f (solved) the Online's current one: the
// images f holds are solved, those added since the freeze stay unsolved
// (Unsolved), for the next solve. Classes added since the freeze get zero
// output weights, as AddClasses gives them. It returns the Online's model.
func (o *Online) Commit(f *FrozenSolve) (*Model, error) {
	if f.o != o {
		return nil, fmt.Errorf("%w: a frozen solve of another Online", ErrData)
	}
	if !f.solved || f.fo == nil {
		return nil, fmt.Errorf("%w: the frozen solve was not solved, or was released", ErrData)
	}
	if f.images > o.lr.Unsolved {
		return nil, fmt.Errorf("%w: the frozen solve was committed already", ErrData)
	}
	m := f.model
	if fs := f.fo.lr.S; o.lr.S.M != fs.M {
		// Classes added since the freeze (after the frozen ones).
		m = o.modelOf(suffstats.Widen(m.Beta, fs.L, fs.M, o.lr.S.M), m.Summary.TrainRMSE)
		m.Summary.Samples = fs.N
	}
	o.lr.Adopt(f.fo.lr)
	o.model = m
	o.lr.Unsolved -= f.images
	return m, nil
}

// Release gives the frozen copy of G (and a replaced factor's values) back to the Online, for the next
// Freeze to copy into instead of allocating L x L values again (so that
// a stream of solves holds one copy, not one a solve until the collector
// runs): f, its statistics and nothing read from them (Stats) are used
// afterwards. Called by the goroutine that calls Add, once f's solve
// ended and its statistics are saved or not needed.
func (o *Online) Release(f *FrozenSolve) {
	if f.o != o || f.fo == nil {
		return
	}
	o.lr.Release(f.fo.lr)
	f.fo = nil
}
