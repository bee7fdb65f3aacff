package scn

import (
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/bigmem"
	"github.com/scn2d/scn/internal/lsq"
)

// Factor is a Cholesky factor kept with statistics (file format version
// 2), so that an update need not factor G (L^3 / 3 flops): F lower
// triangular with F F^T = G' + Ridge I for G' the G of N of the images
// the statistics summed. N = Stats.N means the statistics' own G (the
// factor Factorize gives and scn train --stats-out writes); fewer images
// mean an earlier G, before images were merged in (the factor Merge and
// an update carry on), which preconditions the next update all the same.
// F is held by panels of rows (about L^2 / 2 values, not L^2): Lower
// returns it whole.
type Factor struct {
	N     int
	Ridge float64
	l     int
	p     []float64 // F by row panels: lowerTri's packed layout
	// full: p is L x L row-major, F on and below the diagonal and F^T
	// mirrored above it (an Online's own factor: lsq.RidgeCG.U); else p
	// is F by row panels (lsq.PackedTri), as statistics files hold it.
	full bool
	// reusable: formed by an Online's refactor and never handed out for
	// good (Online.Snapshot), so that its values may hold the next factor
	// once it is replaced (Online.refactor, Release).
	reusable bool
}

// Nodes returns the order L of the factor.
func (f *Factor) Nodes() int { return f.l }

// Lower returns F as an L x L row-major matrix (zeros above the
// diagonal).
func (f *Factor) Lower() []float64 {
	l := f.l
	out := make([]float64, l*l)
	t := f.tri()
	for i := 0; i < l; i++ {
		copy(out[i*l:i*l+i+1], t.Row(i))
	}
	return out
}

// tri returns the panels of F.
func (f *Factor) tri() lsq.LowerTri {
	if f.full {
		return lsq.FullTri(f.p, f.l)
	}
	return lsq.PackedTri(f.p, f.l)
}

// upper returns F^T mirrored above the diagonal of an L x L array (a full
// factor's values), or nil.
func (f *Factor) upper() []float64 {
	if f.full {
		return f.p
	}
	return nil
}

// factorOf returns the Factor of the lower triangle of the l x l
// row-major matrix g (what lies above the diagonal is not copied).
func factorOf(g []float64, l, n int, ridge float64) *Factor {
	f := &Factor{N: n, Ridge: ridge, l: l, p: bigmem.Float64s(lsq.PackedLen(l))}
	t := f.tri()
	for i := 0; i < l; i++ {
		copy(t.Row(i), g[i*l:i*l+i+1])
	}
	return f
}

// Factorize sets s.Factor to the Cholesky factor of G + ridge I (ridge >
// 0): the factor Model.Update would form, stored with the statistics.
func (s *Stats) Factorize(ridge float64) error {
	if !(ridge > 0) || math.IsInf(ridge, 0) {
		return fmt.Errorf("%w: ridge %v, want a finite value > 0", ErrConfig, ridge)
	}
	g, err := s.gram()
	if err != nil {
		return err
	}
	l := s.Nodes()
	f := bigmem.Float64s(l * l)
	copy(f, g)
	for i := 0; i < l; i++ {
		f[i*l+i] += ridge
	}
	if err := lsq.Cholesky(f, l, l, ridge); err != nil {
		return err
	}
	s.Factor = factorOf(f, l, s.N, ridge)
	return nil
}

// freshFactor reports whether s holds the factor of its own G + ridge I.
func (s *Stats) freshFactor(ridge float64) bool {
	f := s.Factor
	return f != nil && f.N == s.N && f.Ridge == ridge && f.l == s.Nodes()
}

// gram returns s.G, reading it first if OpenStats left it unread.
func (s *Stats) gram() ([]float64, error) {
	if s.G == nil && s.loadG != nil {
		g, err := s.loadG()
		if err != nil {
			return nil, err
		}
		s.G, s.loadG = g, nil
	}
	if s.G == nil {
		return nil, fmt.Errorf("%w: G was not read", ErrStats)
	}
	return s.G, nil
}

// checkFactor checks a factor against statistics of l nodes and n images.
func checkFactor(f *Factor, l, n int) error {
	switch {
	case f.N < 1 || f.N > n:
		return fmt.Errorf("%w: a factor of the G of %d images in statistics of %d", ErrStats, f.N, n)
	case !(f.Ridge >= 0) || math.IsInf(f.Ridge, 0):
		return fmt.Errorf("%w: a factor with ridge %v", ErrStats, f.Ridge)
	case f.l != l || (!f.full && len(f.p) != lsq.PackedLen(l)) || (f.full && len(f.p) != l*l):
		return fmt.Errorf("%w: a factor of order %d (%d values) for L = %d", ErrStats, f.l, len(f.p), l)
	}
	t := f.tri()
	for i := 0; i < l; i++ {
		if d := t.Row(i)[i]; !(d > 0) || math.IsInf(d, 0) {
			return fmt.Errorf("%w: the factor's diagonal element %d is %v", ErrStats, i, d)
		}
	}
	return checkFinite(f.p, "factor")
}
