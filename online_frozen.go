package scn

import (
	"errors"
	"fmt"
	"slices"

	"github.com/scn2d/scn/internal/bigmem"
	"github.com/scn2d/scn/internal/lsq"
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
	st := *o.st
	st.Classes, st.ClassCounts = slices.Clone(st.Classes), slices.Clone(st.ClassCounts)
	st.HT, st.TT = slices.Clone(st.HT), slices.Clone(st.TT)
	l := st.Nodes()
	if len(o.spare) == l*l { // the copy of the last frozen solve, released
		st.G, o.spare = o.spare, nil
	} else {
		st.G = bigmem.Float64s(l * l)
	}
	copy(st.G, o.st.G)
	lsq.SymmetrizeTiled(st.G, l)
	st.Factor, st.loadG = o.fac, nil
	fo := &Online{st: &st, base: o.base, model: o.model, ridge: o.ridge, forget: o.forget, fac: o.fac,
		steps: o.steps, learnt: o.learnt, unsolved: o.unsolved, spareFac: o.spareFac, isFrozen: true}
	o.spareFac = nil // the frozen solve's until Release
	o.frozen++
	return &FrozenSolve{o: o, fo: fo, images: o.unsolved, learnt: o.learnt, statN: st.N}
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
	st := f.fo.st
	st.Factor = f.fo.fac
	return f.model, st
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
	if f.images > o.unsolved {
		return nil, fmt.Errorf("%w: the frozen solve was committed already", ErrData)
	}
	m := f.model
	if mn, mf := o.st.M, f.fo.st.M; mn != mf {
		// Classes added since the freeze (after the frozen ones).
		l := f.fo.st.Nodes()
		beta := make([]float64, l*mn)
		for j := 0; j < l; j++ {
			copy(beta[j*mn:j*mn+mf], m.Beta[j*mf:(j+1)*mf])
		}
		m = o.modelOf(beta, m.Summary.TrainRMSE)
		m.Summary.Samples = f.fo.st.N
	}
	if old := o.fac; old != f.fo.fac && old != nil && old.reusable {
		o.retired = old // its values, once no frozen solve can read them (Release)
	}
	o.model, o.fac, o.steps = m, f.fo.fac, f.fo.steps
	o.unsolved -= f.images
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
	if g := f.fo.st.G; len(g) == len(o.st.G) {
		o.spare = g
	}
	o.frozen--
	if p := f.fo.spareFac; p != nil && o.spareFac == nil {
		o.spareFac = p // not used by the frozen solve
	}
	if o.frozen == 0 && o.retired != nil {
		if o.spareFac == nil && o.retired.full {
			o.spareFac = o.retired.p
		}
		o.retired.reusable = false
		o.retired = nil
	}
	f.fo = nil
}
