package scn

import (
	"fmt"
	"math"
	"slices"

	"github.com/scn2d/scn/internal/lsq"

	"github.com/scn2d/scn/internal/bigmem"
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
	st       *Stats // G: its lower triangle by panels of lsq.StatsPanel rows (gLower)
	base     *Model // the model Online started from: metadata and preprocessing
	model    *Model // the model of the current weights
	ridge    float64
	forget   float64
	fac      *Factor   // the preconditioner: F F^T = an earlier G + its ridge I
	steps    int       // conjugate gradient steps of the last solve (-1: solved directly)
	learnt   int       // images learnt
	unsolved int       // images added since the last solve (Add)
	hbuf     []float64 // the hidden outputs of a pass's chunk (accumulate)
	spare    []float64 // a released frozen copy of G, for the next Freeze (online_frozen.go)
	spareFac []float64 // a replaced factor's L x L values, for the next refactor's factor
	retired  *Factor   // the factor a Commit replaced: its values are reused once no frozen solve is out
	frozen   int       // frozen solves not released (Freeze, Release)
	isFrozen bool      // the Online of a frozen solve: its factor is its parent's until it forms one
}

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
	if !(forget > 0 && forget <= 1) {
		return nil, fmt.Errorf("%w: forgetting factor %v, want a value in (0, 1]", ErrConfig, forget)
	}
	if err := sameRecipe(st.Recipe, m); err != nil {
		return nil, err
	}
	if st.M != m.M {
		return nil, fmt.Errorf("%w: statistics of %d outputs for a model of %d", ErrStats, st.M, m.M)
	}
	if m.IsClassifier() {
		if len(st.Classes) != len(m.Classes) {
			return nil, fmt.Errorf("%w: statistics of classes %q for a model of classes %q", ErrStats, st.Classes, m.Classes)
		}
		if !slices.Equal(st.Classes, m.Classes) {
			s2, err := st.WithClasses(m.Classes)
			if err != nil {
				return nil, err
			}
			st = s2
		}
	} else if st.Classes != nil {
		return nil, fmt.Errorf("%w: classification statistics for a regression model", ErrStats)
	}
	if _, err := st.gram(); err != nil {
		return nil, err
	}
	if len(m.Beta) != m.Nodes()*m.M {
		return nil, fmt.Errorf("%w: the model has %d output weights, want %d x %d", ErrStats, len(m.Beta), m.Nodes(), m.M)
	}
	o := &Online{st: st, base: m, model: m, ridge: m.Config.Ridge, forget: forget, steps: -1}
	if o.ridge > 0 {
		if f := st.Factor; f != nil && f.l == st.Nodes() {
			o.fac = wholeFactor(f)
			st.Factor = nil // held whole by o.fac
		} else if err := o.refactor(); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// Model returns the model of the current output weights.
func (o *Online) Model() *Model { return o.model }

// Images returns the number of images the statistics hold (those the
// model was trained on and those learnt since).
func (o *Online) Images() int { return o.st.Images() }

// Learnt returns the number of images Learn took.
func (o *Online) Learnt() int { return o.learnt }

// Forget returns the forgetting factor per image.
func (o *Online) Forget() float64 { return o.forget }

// Classes returns the model's classes (nil for a regression).
func (o *Online) Classes() []string { return o.st.Classes }

// SolveSteps returns the conjugate gradient steps of the last solve, -1
// if it was solved directly (a factor formed).
func (o *Online) SolveSteps() int { return o.steps }

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
	if err := o.model.checkInput(p.X); err != nil {
		return err
	}
	if p.M != o.st.M {
		return fmt.Errorf("%w: %d targets per image for a model of %d outputs", ErrData, p.M, o.st.M)
	}
	if o.st.Classes != nil && p.Classes != nil && !slices.Equal(p.Classes, o.st.Classes) {
		return fmt.Errorf("%w: classes %q, the model's are %q (AddClasses first)", ErrData, p.Classes, o.st.Classes)
	}
	if p.X.Len() == 0 {
		return nil
	}
	if err := o.st.Recipe.checkStatsRows(p.X); err != nil {
		return err
	}
	o.accumulate(p)
	o.learnt += p.X.Len()
	o.unsolved += p.X.Len()
	return nil
}

// Unsolved returns the number of images added since the last solve: those
// the statistics hold and the model does not yet.
func (o *Online) Unsolved() int { return o.unsolved }

// Solve solves the output weights of the statistics, if images were added
// since the last solve, and returns the model of the current weights (a
// new value when it solved). After a failed solve the sums keep the
// images, and the next Solve tries again.
func (o *Online) Solve() (*Model, error) {
	if o.unsolved == 0 {
		return o.model, nil
	}
	m, err := o.solve()
	if err != nil {
		return nil, err
	}
	o.unsolved = 0
	return m, nil
}

// AddClasses adds classes to a classification model's outputs (after its
// own): the images learnt so far are no example of them, so their output
// weights are zero until images of them are learnt.
func (o *Online) AddClasses(names ...string) error {
	if o.st.Classes == nil {
		return fmt.Errorf("%w: a regression model has no classes", ErrData)
	}
	all := slices.Clone(o.st.Classes)
	for _, c := range names {
		if slices.Contains(all, c) {
			return fmt.Errorf("%w: class %q is the model's already", ErrData, c)
		}
		all = append(all, c)
	}
	st, err := o.st.WithClasses(all)
	if err != nil {
		return err
	}
	l, m, mn := st.Nodes(), o.st.M, len(all)
	beta := make([]float64, l*mn)
	for j := 0; j < l; j++ {
		copy(beta[j*mn:j*mn+m], o.model.Beta[j*m:(j+1)*m])
	}
	o.st = st
	o.model = o.modelOf(beta, o.model.Summary.TrainRMSE)
	return nil
}

// Snapshot returns the current model and a copy of the statistics (G
// whole and exactly symmetric, with the preconditioning factor: a stale
// one unless formed at the last batch), which Online no longer changes:
// they can be saved while it goes on learning. The model is that of the
// last solve: with images added since (Unsolved > 0), Solve first for a
// model of the statistics' images.
func (o *Online) Snapshot() (*Model, *Stats) {
	s := *o.st
	s.Classes, s.ClassCounts = slices.Clone(s.Classes), slices.Clone(s.ClassCounts)
	s.HT, s.TT = slices.Clone(s.HT), slices.Clone(s.TT)
	l := s.Nodes()
	s.G = bigmem.Float64s(l * l)
	copy(s.G, o.st.G)
	lsq.SymmetrizeTiled(s.G, l)
	s.Factor, s.loadG = o.fac, nil
	if o.fac != nil {
		o.fac.reusable = false // the caller's for good
	}
	return o.model, &s
}

// accumulate adds the weighted sums of p to the statistics: G's lower
// triangle (by panels), H^T T and T^T T, scaled by forget^n first and
// each image's products weighted by forget^(images after it).
func (o *Online) accumulate(p Problem) {
	st := o.st
	l, mm, n := st.Nodes(), st.M, p.X.Len()
	if o.forget < 1 {
		decay := math.Pow(o.forget, float64(n))
		lsq.ScaleLowerPanels(st.G, l, decay)
		for i := range st.HT {
			st.HT[i] *= decay
		}
		for i := range st.TT {
			st.TT[i] *= decay
		}
	}
	if st.Classes != nil {
		for _, c := range ArgMax(p.T, mm) {
			st.ClassCounts[c] += st.Recipe.augmentRows()
		}
	}
	cw := min(n, statsChunk)
	if len(o.hbuf) < l*cw { // kept between passes: L x 2048 values at most
		o.hbuf = bigmem.Float64s(l * cw)
	}
	cs := lsq.NewChunkSums(l, mm, cw, st.G, st.HT, st.TT, o.hbuf, false)
	hn, tc := cs.H, cs.T
	herr := st.Recipe.forStatsRows(st.Recipe.Nodes(), p.X, 0, func(lo, rows int, hb []float32) {
		for r0 := 0; r0 < rows; {
			take, filled := min(rows-r0, cs.Room()), cs.Filled
			for r := 0; r < take; r++ {
				w := 1.0
				if o.forget < 1 {
					w = math.Sqrt(math.Pow(o.forget, float64(n-1-(lo+r0+r))))
				}
				for q := 0; q < mm; q++ {
					tc[q*cw+filled+r] = w * p.T[(lo+r0+r)*mm+q]
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
		panic(herr) // Add checked the images (checkStatsRows)
	}
	cs.Flush()
	st.N += n * st.Recipe.augmentRows()
}

// solve solves the output weights of the current sums and makes their
// model the current one.
func (o *Online) solve() (*Model, error) {
	st := o.st
	m := st.M
	if o.ridge == 0 {
		// The pseudo-inverse of G (Stats.Solve): on a symmetric copy.
		_, s := o.Snapshot()
		nm, err := s.Solve(0)
		if err != nil {
			return nil, err
		}
		o.steps = -1
		o.model = o.modelOf(nm.Beta, nm.Summary.TrainRMSE)
		return o.model, nil
	}
	beta, steps, ok := o.cg().Solve(st.HT, slices.Clone(o.model.Beta), updateTol, updateCheckTol, onlineMaxSteps)
	if ok {
		o.steps = steps
		if steps > onlineRefactorSteps {
			// The factor no longer preconditions well: form a fresh one
			// for the next batches.
			if err := o.refactor(); err != nil {
				return nil, err
			}
		}
	} else {
		if err := o.refactor(); err != nil {
			return nil, err
		}
		l := st.Nodes()
		bT, zT := make([]float64, l*m), make([]float64, l*m)
		lsq.Transpose(st.HT, l, m, bT)
		o.cg().Precondition(bT, zT, make([]float64, lsq.TrsmBlock*m))
		beta = make([]float64, l*m)
		lsq.Transpose(zT, m, l, beta)
		o.steps = -1
	}
	o.model = o.modelOf(beta, st.nearRMSE(beta, o.ridge))
	return o.model, nil
}

// modelOf returns the model of output weights beta for the current
// statistics, with the base model's metadata and preprocessing.
func (o *Online) modelOf(beta []float64, rmse float64) *Model {
	nm := o.st.model(beta, o.ridge, rmse)
	nm.Meta, nm.Preprocessing = o.base.Meta, o.base.Preprocessing
	nm.Summary.Stop = o.base.Summary.Stop
	return nm
}

const (
	// onlineRefactorSteps is the conjugate gradient steps past which an
	// online solve forms a fresh factor for the next ones: forming it
	// costs L^3 / 6 multiply-adds, about 30 steps' 2.5 L^2 m at m = 10,
	// and the steps of the next solves fall from 20-40 to under 10 (at
	// L = 5000, 1024 MNIST images a pass over the statistics of 10000).
	onlineRefactorSteps = 20
	// onlineMaxSteps is the steps after which an online solve gives up
	// on the conjugate gradients and forms a fresh factor, which solves
	// directly (exactly): past about 30 steps the factor is cheaper than
	// the steps still to come (scn update's 100 steps cost 15 s of one
	// core at L = 5000 before giving up, when a pass of thousands of images
	// moved G far from the factor).
	onlineMaxSteps = 40
)

// refactor sets the preconditioner to the Cholesky factor of the current
// G + ridge I, held whole: F below the diagonal and F^T mirrored above it
// (Factor.full), so that both of the preconditioner's triangular sweeps
// contract contiguous rows (lsq.RidgeCG.U). It is formed in the values of
// a factor it replaced when nothing can read them any more (spareFac):
// allocating 200 MB anew at each refactor (L = 5000) cost a served
// model's learning its page faults, mapped page by page in the background
// (bigmem), and the predictions the memory-map lock those faults take.
func (o *Online) refactor() error {
	l := o.st.Nodes()
	f := o.spareFac
	o.spareFac = nil
	if len(f) != l*l {
		f = bigmem.Float64s(l * l)
	}
	for i := 0; i < l; i++ {
		copy(f[i*l:i*l+i+1], o.st.G[i*l:i*l+i+1])
		f[i*l+i] += o.ridge
	}
	if err := lsq.Cholesky(f, l, l, o.ridge); err != nil {
		o.spareFac = f
		return err
	}
	lsq.MirrorLower(f, l)
	old := o.fac
	o.fac = &Factor{N: o.st.N, Ridge: o.ridge, l: l, p: f, full: true, reusable: true}
	if old != nil && old.reusable && !o.isFrozen && o.frozen == 0 {
		// Nothing else reads it: not handed out (Snapshot), no frozen
		// solve out, and not the parent's (a frozen solve's Online).
		old.reusable = false
		o.spareFac = old.p
	}
	return nil
}

// wholeFactor returns f held whole, as refactor holds its factors (F^T
// mirrored above the diagonal: both triangular sweeps by the NT kernel),
// from the panels a statistics file gives (L^2 values for L (L + 256) / 2).
func wholeFactor(f *Factor) *Factor {
	if f.full {
		return f
	}
	l := f.l
	p := bigmem.Float64s(l * l)
	t := f.tri()
	for i := 0; i < l; i++ {
		copy(p[i*l:i*l+i+1], t.Row(i))
	}
	lsq.MirrorLower(p, l)
	return &Factor{N: f.N, Ridge: f.Ridge, l: l, p: p, full: true, reusable: true}
}

// cg returns the system of the current sums, preconditioned with the
// current factor (the conjugate gradients: lsq.RidgeCG).
func (o *Online) cg() lsq.RidgeCG {
	return lsq.RidgeCG{G: o.st.G, L: o.st.Nodes(), M: o.st.M, Ridge: o.ridge, F: o.fac.tri(), U: o.fac.upper()}
}
