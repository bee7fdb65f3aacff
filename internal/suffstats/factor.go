package suffstats

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
	p     []float64 // F by row panels: lsq.PackedTri's layout
	// full: p is L x L row-major, F on and below the diagonal and F^T
	// mirrored above it (an Online's own factor: lsq.RidgeCG.U); else p
	// is F by row panels (lsq.PackedTri), as statistics files hold it.
	full bool
	// reusable: formed by an Online's refactor and never handed out for
	// good (Online.Snapshot), so that its values may hold the next factor
	// once it is replaced (Learner.Refactor, Release).
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

// Tri returns the panels of f's F (functions, not methods, so that the
// public alias of Factor shows none of them).
func Tri(f *Factor) lsq.LowerTri { return f.tri() }

// Values returns the values f holds: F by row panels, or L x L whole.
func Values(f *Factor) []float64 { return f.p }

// IsWhole reports whether f is held whole (F^T mirrored above the
// diagonal of an L x L array).
func IsWhole(f *Factor) bool { return f.full }

// NewPacked returns a factor of order l by row panels, its values zero
// (to be read into place: Tri), N and Ridge to be set.
func NewPacked(l int) *Factor {
	return &Factor{l: l, p: bigmem.Float64s(lsq.PackedLen(l))}
}

// FactorOf returns the Factor of the lower triangle of the l x l
// row-major matrix g (what lies above the diagonal is not copied).
func FactorOf(g []float64, l, n int, ridge float64) *Factor {
	f := &Factor{N: n, Ridge: ridge, l: l, p: bigmem.Float64s(lsq.PackedLen(l))}
	t := f.tri()
	for i := 0; i < l; i++ {
		copy(t.Row(i), g[i*l:i*l+i+1])
	}
	return f
}

// Factorize returns the Cholesky factor of g + ridge I (g l x l, of n
// images; ridge > 0), by row panels.
func Factorize(g []float64, l, n int, ridge float64) (*Factor, error) {
	f := bigmem.Float64s(l * l)
	copy(f, g)
	for i := 0; i < l; i++ {
		f[i*l+i] += ridge
	}
	if err := lsq.Cholesky(f, l, l, ridge); err != nil {
		return nil, err
	}
	return FactorOf(f, l, n, ridge), nil
}

// CheckFactor checks a factor against statistics of l nodes and n images:
// its count, ridge, size and diagonal (its values' finiteness is the
// caller's to check: Values).
func CheckFactor(f *Factor, l, n int) error {
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

// Packed returns the factor of order l by row panels whose values are p
// (not copied, nor checked: CheckFactor), of n images and ridge term
// ridge.
func Packed(p []float64, l, n int, ridge float64) *Factor {
	return &Factor{N: n, Ridge: ridge, l: l, p: p}
}
