package scn

import (
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
	f      *suffstats.Frozen[*Model]
	recipe *Model // the statistics' recipe
}

// Freeze copies the statistics (as Snapshot does: G whole and exactly
// symmetric) for a solve that runs apart from the Online: FrozenSolve's
// Solve reads only the copy, and may run while the Online's Add and
// AddClasses run on another goroutine (the Online itself is not safe for
// concurrent use: Freeze, Add, AddClasses and Commit are called by one
// goroutine at a time). Freeze with no unsolved image gives a frozen
// state whose Solve is the current model (a consistent snapshot).
func (o *Online) Freeze() *FrozenSolve { return &FrozenSolve{o.c.Freeze(), o.recipe} }

// Images returns the unsolved images the frozen sums hold: those the
// solve adds to the model.
func (f *FrozenSolve) Images() int { return f.f.Images }

// Learnt returns the images the Online had learnt (Online.Learnt) when
// the sums were frozen.
func (f *FrozenSolve) Learnt() int { return f.f.Learnt }

// StatImages returns the images the frozen statistics hold (Stats.N).
func (f *FrozenSolve) StatImages() int { return f.f.StatN }

// Solve solves the output weights of the frozen sums (the current
// model if they hold no unsolved image) and returns their model. It reads
// nothing the Online changes, and is called once.
func (f *FrozenSolve) Solve() (*Model, error) { return f.f.Solve() }

// Stats returns the frozen statistics, with the newest preconditioning
// factor, and the model solved from them (after a Solve that succeeded):
// the same images, to be saved together. Neither changes afterwards,
// until Release (nil, nil after it).
func (f *FrozenSolve) Stats() (*Model, *Stats) {
	s := f.f.Sums()
	if s == nil {
		return nil, nil
	}
	return f.f.Model, statsOf(f.recipe, s)
}

// Commit makes the model of f (solved) the Online's current one: the
// images f holds are solved, those added since the freeze stay unsolved
// (Unsolved), for the next solve. Classes added since the freeze get zero
// output weights, as AddClasses gives them. It returns the Online's model.
func (o *Online) Commit(f *FrozenSolve) (*Model, error) {
	m, err := o.c.Commit(f.f)
	if err != nil {
		return nil, asDataErr(err)
	}
	return m, nil
}

// Release gives the frozen copy of G (and a replaced factor's values) back to the Online, for the next
// Freeze to copy into instead of allocating L x L values again (so that
// a stream of solves holds one copy, not one a solve until the collector
// runs): f, its statistics and nothing read from them (Stats) are used
// afterwards. Called by the goroutine that calls Add, once f's solve
// ended and its statistics are saved or not needed.
func (o *Online) Release(f *FrozenSolve) { o.c.Release(f.f) }
