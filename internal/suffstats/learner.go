package suffstats

import (
	"math"
	"slices"

	"github.com/scn2d/scn/internal/bigmem"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/score"
)

// Learner is the state of an online learner of an output layer
// (scn.Online): the sums it adds batches to, with forgetting, and the
// preconditioned conjugate gradient solve of their output weights, the
// factor that preconditions it, and the large buffers it reuses. The
// hidden rows and the models are the caller's.
type Learner struct {
	S        *Sums // G: its lower triangle by panels of lsq.StatsPanel rows (gLower)
	Ridge    float64
	Forget   float64
	Fac      *Factor   // the preconditioner: F F^T = an earlier G + its ridge I
	Steps    int       // conjugate gradient steps of the last solve (-1: solved directly)
	Learnt   int       // images learnt
	Unsolved int       // images added since the last solve (scn.Online.Add)
	hbuf     []float64 // the hidden outputs of a pass's chunk (Accumulate)
	spare    []float64 // a released frozen copy of G, for the next Freeze
	spareFac []float64 // a replaced factor's L x L values, for the next refactor's factor
	retired  *Factor   // the factor a Commit replaced: its values are reused once no frozen solve is out
	frozen   int       // frozen solves not released (Freeze, Release)
	isFrozen bool      // the learner of a frozen solve: its factor is its parent's until it forms one
}

const (
	// RefactorSteps is the conjugate gradient steps past which an
	// online solve forms a fresh factor for the next ones: forming it
	// costs L^3 / 6 multiply-adds, about 30 steps' 2.5 L^2 m at m = 10,
	// and the steps of the next solves fall from 20-40 to under 10 (at
	// L = 5000, 1024 MNIST images a pass over the statistics of 10000).
	RefactorSteps = 20
	// MaxSteps is the steps after which an online solve gives up
	// on the conjugate gradients and forms a fresh factor, which solves
	// directly (exactly): past about 30 steps the factor is cheaper than
	// the steps still to come (scn update's 100 steps cost 15 s of one
	// core at L = 5000 before giving up, when a pass of thousands of images
	// moved G far from the factor).
	MaxSteps = 40
)

// NewLearner starts a learner on s (its G read, whole; s belongs to the
// learner from then on) with the ridge term ridge and the forgetting
// factor forget. With ridge > 0, s's stored factor of the right order is
// held whole (s.Factor then set to nil), or the factor of G + ridge I is
// formed.
func NewLearner(s *Sums, ridge, forget float64) (*Learner, error) {
	o := &Learner{S: s, Ridge: ridge, Forget: forget, Steps: -1}
	if o.Ridge > 0 {
		if f := s.Factor; f != nil && f.l == s.L {
			o.Fac = wholeFactor(f)
			s.Factor = nil // held whole by o.Fac
		} else if err := o.Refactor(); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// SpareFactor returns the values kept for the next refactor's factor
// (nil: none).
func (o *Learner) SpareFactor() []float64 { return o.spareFac }

// Snapshot returns a copy of the sums (G whole and exactly symmetric,
// with the preconditioning factor: a stale one unless formed at the last
// batch), which the learner no longer changes; the factor is the
// caller's for good (never reused).
func (o *Learner) Snapshot() *Sums {
	s := *o.S
	s.Classes, s.ClassCounts = slices.Clone(s.Classes), slices.Clone(s.ClassCounts)
	s.HT, s.TT = slices.Clone(s.HT), slices.Clone(s.TT)
	l := s.L
	s.G = bigmem.Float64s(l * l)
	copy(s.G, o.S.G)
	lsq.SymmetrizeTiled(s.G, l)
	s.Factor, s.LoadG = o.Fac, nil
	if o.Fac != nil {
		o.Fac.reusable = false // the caller's for good
	}
	return &s
}

// Accumulate adds the weighted sums of n images of targets t (row-major,
// S.M a row) to the statistics: G's lower triangle (by panels), H^T T
// and T^T T, scaled by forget^n first and each image's products weighted
// by forget^(images after it), each image counting rowsPer rows (its
// copies). forRows calls its function with the hidden outputs of the
// rows (node-major), a batch of consecutive images lo ... lo+rows-1 at a
// time (scn's Model.forStatsRows); its error is returned, the sums then
// partly added.
func (o *Learner) Accumulate(n int, t []float64, rowsPer int, forRows func(f func(lo, rows int, hb []float32)) error) error {
	st := o.S
	l, mm := st.L, st.M
	if o.Forget < 1 {
		decay := math.Pow(o.Forget, float64(n))
		lsq.ScaleLowerPanels(st.G, l, decay)
		for i := range st.HT {
			st.HT[i] *= decay
		}
		for i := range st.TT {
			st.TT[i] *= decay
		}
	}
	if st.Classes != nil {
		for _, c := range score.ArgMax(t, mm) {
			st.ClassCounts[c] += rowsPer
		}
	}
	cw := min(n, Chunk)
	if len(o.hbuf) < l*cw { // kept between passes: L x 2048 values at most
		o.hbuf = bigmem.Float64s(l * cw)
	}
	cs := lsq.NewChunkSums(l, mm, cw, st.G, st.HT, st.TT, o.hbuf, false)
	hn, tc := cs.H, cs.T
	herr := forRows(func(lo, rows int, hb []float32) {
		for r0 := 0; r0 < rows; {
			take, filled := min(rows-r0, cs.Room()), cs.Filled
			for r := 0; r < take; r++ {
				w := 1.0
				if o.Forget < 1 {
					w = math.Sqrt(math.Pow(o.Forget, float64(n-1-(lo+r0+r))))
				}
				for q := 0; q < mm; q++ {
					tc[q*cw+filled+r] = w * t[(lo+r0+r)*mm+q]
				}
				for j := 0; j < l; j++ {
					hn[j*cw+filled+r] = w * float64(hb[j*rows+r0+r])
				}
			}
			r0 += take
			cs.Added(take)
		}
	})
	if herr != nil {
		return herr
	}
	cs.Flush()
	st.N += n * rowsPer
	return nil
}

// Solve solves the output weights of the current sums (ridge > 0) by
// conjugate gradients from beta0 (the last weights, overwritten), forming
// a fresh factor when they take more than RefactorSteps steps, and
// solving directly with a fresh one when they do not converge within
// MaxSteps.
func (o *Learner) Solve(beta0 []float64) ([]float64, error) {
	st := o.S
	m := st.M
	beta, steps, ok := o.cg().Solve(st.HT, beta0, UpdateTol, UpdateCheckTol, MaxSteps)
	if ok {
		o.Steps = steps
		if steps > RefactorSteps {
			// The factor no longer preconditions well: form a fresh one
			// for the next batches.
			if err := o.Refactor(); err != nil {
				return nil, err
			}
		}
	} else {
		if err := o.Refactor(); err != nil {
			return nil, err
		}
		l := st.L
		bT, zT := make([]float64, l*m), make([]float64, l*m)
		lsq.Transpose(st.HT, l, m, bT)
		o.cg().Precondition(bT, zT, make([]float64, lsq.TrsmBlock*m))
		beta = make([]float64, l*m)
		lsq.Transpose(zT, m, l, beta)
		o.Steps = -1
	}
	return beta, nil
}

// Refactor sets the preconditioner to the Cholesky factor of the current
// G + ridge I, held whole: F below the diagonal and F^T mirrored above it
// (Factor.full), so that both of the preconditioner's triangular sweeps
// contract contiguous rows (lsq.RidgeCG.U). It is formed in the values of
// a factor it replaced when nothing can read them any more (spareFac):
// allocating 200 MB anew at each refactor (L = 5000) cost a served
// model's learning its page faults, mapped page by page in the background
// (bigmem), and the predictions the memory-map lock those faults take.
func (o *Learner) Refactor() error {
	l := o.S.L
	f := o.spareFac
	o.spareFac = nil
	if len(f) != l*l {
		f = bigmem.Float64s(l * l)
	}
	for i := 0; i < l; i++ {
		copy(f[i*l:i*l+i+1], o.S.G[i*l:i*l+i+1])
		f[i*l+i] += o.Ridge
	}
	if err := lsq.Cholesky(f, l, l, o.Ridge); err != nil {
		o.spareFac = f
		return err
	}
	lsq.MirrorLower(f, l)
	old := o.Fac
	o.Fac = &Factor{N: o.S.N, Ridge: o.Ridge, l: l, p: f, full: true, reusable: true}
	if old != nil && old.reusable && !o.isFrozen && o.frozen == 0 {
		// Nothing else reads it: not handed out (Snapshot), no frozen
		// solve out, and not the parent's (a frozen solve's learner).
		old.reusable = false
		o.spareFac = old.p
	}
	return nil
}

// cg returns the system of the current sums, preconditioned with the
// current factor (the conjugate gradients: lsq.RidgeCG).
func (o *Learner) cg() lsq.RidgeCG {
	return lsq.RidgeCG{G: o.S.G, L: o.S.L, M: o.S.M, Ridge: o.Ridge, F: o.Fac.tri(), U: o.Fac.upper()}
}

// Freeze returns a learner of a copy of the sums (as Snapshot's: G whole
// and exactly symmetric, in the copy the last released frozen learner
// held when there is one) that the learner's later Accumulates do not
// change, with its factor (until it forms one) and its spare factor
// values (until Release).
func (o *Learner) Freeze() *Learner {
	st := *o.S
	st.Classes, st.ClassCounts = slices.Clone(st.Classes), slices.Clone(st.ClassCounts)
	st.HT, st.TT = slices.Clone(st.HT), slices.Clone(st.TT)
	l := st.L
	if len(o.spare) == l*l { // the copy of the last frozen solve, released
		st.G, o.spare = o.spare, nil
	} else {
		st.G = bigmem.Float64s(l * l)
	}
	copy(st.G, o.S.G)
	lsq.SymmetrizeTiled(st.G, l)
	st.Factor, st.LoadG = o.Fac, nil
	fo := &Learner{S: &st, Ridge: o.Ridge, Forget: o.Forget, Fac: o.Fac,
		Steps: o.Steps, Learnt: o.Learnt, Unsolved: o.Unsolved, spareFac: o.spareFac, isFrozen: true}
	o.spareFac = nil // the frozen solve's until Release
	o.frozen++
	return fo
}

// Adopt makes the factor and steps of fo (a frozen learner of o, solved)
// o's; the factor it replaces is reused once no frozen solve can read it
// (Release).
func (o *Learner) Adopt(fo *Learner) {
	if old := o.Fac; old != fo.Fac && old != nil && old.reusable {
		o.retired = old // its values, once no frozen solve can read them (Release)
	}
	o.Fac, o.Steps = fo.Fac, fo.Steps
}

// Release takes back the frozen copy of G of fo (a frozen learner of o,
// not used afterwards) and a replaced factor's values, for the next
// Freeze and refactor.
func (o *Learner) Release(fo *Learner) {
	if g := fo.S.G; len(g) == len(o.S.G) {
		o.spare = g
	}
	o.frozen--
	if p := fo.spareFac; p != nil && o.spareFac == nil {
		o.spareFac = p // not used by the frozen solve
	}
	if o.frozen == 0 && o.retired != nil {
		if o.spareFac == nil && o.retired.full {
			o.spareFac = o.retired.p
		}
		o.retired.reusable = false
		o.retired = nil
	}
}

// Widen returns the output weights beta of l nodes and m outputs with
// zero weights for mn - m outputs added after them.
func Widen(beta []float64, l, m, mn int) []float64 {
	out := make([]float64, l*mn)
	for j := 0; j < l; j++ {
		copy(out[j*mn:j*mn+m], beta[j*m:(j+1)*m])
	}
	return out
}
