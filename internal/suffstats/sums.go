package suffstats

import (
	"fmt"
	"math"
	"slices"

	"github.com/scn2d/scn/internal/bigmem"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/memest"
	"github.com/scn2d/scn/internal/score"
	"github.com/scn2d/scn/internal/statsfile"
	"gonum.org/v1/gonum/mat"
)

// ErrStats is wrapped by every error about statistics that cannot be used
// together or read (scn.ErrStats).
var ErrStats = statsfile.ErrStats

// Chunk is the images whose hidden outputs one product takes.
const Chunk = 2048

const (
	// UpdateKeep is the hidden outputs (values) an update keeps for its
	// iterative solve whatever L: 256 MiB of float64.
	UpdateKeep = 1 << 25
	// UpdateTol is the residual, relative to the right-hand side, at
	// which the iterative solve of an update stops.
	UpdateTol = 1e-11
	// UpdateMaxSteps bounds the iterative solve's steps.
	UpdateMaxSteps = 100
	// UpdateCheckTol is the true relative residual the iterative solve
	// must reach, or the update solves directly.
	UpdateCheckTol = 1e-10
)

// Sums are the sufficient statistics of L columns and M outputs, without
// the recipe they belong to (scn.Stats holds it): the fields of scn.Stats
// of the same names, L its Nodes() and LoadG its unread G's reader.
type Sums struct {
	L, M, N     int
	Classes     []string
	ClassCounts []int
	G           []float64 // H^T H, L x L row-major (nil: not formed, or unread: LoadG)
	HT          []float64 // H^T T, L x M row-major
	TT          []float64 // T^T T, M x M row-major
	Factor      *Factor
	LoadG       func() ([]float64, error) // reads G when it was left unread
}

// Gram returns s.G, reading it first if it was left unread.
func (s *Sums) Gram() ([]float64, error) {
	if s.G == nil && s.LoadG != nil {
		g, err := s.LoadG()
		if err != nil {
			return nil, err
		}
		s.G, s.LoadG = g, nil
	}
	if s.G == nil {
		return nil, fmt.Errorf("%w: G was not read", ErrStats)
	}
	return s.G, nil
}

// WithClasses returns s with its outputs in the order of classes, which
// must hold every class of s: a class s has no image of gets zero target
// columns (the old images are no example of it).
func (s *Sums) WithClasses(classes []string) (*Sums, error) {
	if s.Classes == nil {
		return nil, fmt.Errorf("%w: regression statistics have no classes", ErrStats)
	}
	at := make([]int, len(s.Classes)) // new column of each old one
	for i, c := range s.Classes {
		at[i] = slices.Index(classes, c)
		if at[i] < 0 {
			return nil, fmt.Errorf("%w: class %q missing from the new class list", ErrStats, c)
		}
	}
	l, m, mn := s.L, s.M, len(classes)
	out := &Sums{L: l, N: s.N, M: mn, Classes: slices.Clone(classes), ClassCounts: make([]int, mn),
		G: s.G, HT: make([]float64, l*mn), TT: make([]float64, mn*mn), Factor: s.Factor, LoadG: s.LoadG}
	for i, c := range at {
		out.ClassCounts[c] = s.ClassCounts[i]
		for j := 0; j < l; j++ {
			out.HT[j*mn+c] = s.HT[j*m+i]
		}
		for k, d := range at {
			out.TT[c*mn+d] = s.TT[i*m+k]
		}
	}
	return out, nil
}

// Merge returns the sums of the union of the two data sets (of the same
// columns: the caller compares their recipes), with G's sum only if
// withG (nil otherwise; each side's G is then read if it was left
// unread). Classes are matched by name; a class only one side has is
// added (s's order first), with zero target columns on the other side.
func (s *Sums) Merge(o *Sums, withG bool) (*Sums, error) {
	if withG {
		for _, x := range []*Sums{s, o} {
			if _, err := x.Gram(); err != nil {
				return nil, err
			}
		}
	}
	a, b := s, o
	if (s.Classes == nil) != (o.Classes == nil) {
		return nil, fmt.Errorf("%w: classification and regression statistics", ErrStats)
	}
	if s.Classes != nil {
		union := slices.Clone(s.Classes)
		for _, c := range o.Classes {
			if !slices.Contains(union, c) {
				union = append(union, c)
			}
		}
		var err error
		if a, err = s.WithClasses(union); err != nil {
			return nil, err
		}
		if b, err = o.WithClasses(union); err != nil {
			return nil, err
		}
	} else if s.M != o.M {
		return nil, fmt.Errorf("%w: %d and %d regression targets", ErrStats, s.M, o.M)
	}
	out := &Sums{L: a.L, N: a.N + b.N, M: a.M, Classes: a.Classes,
		HT: lsq.AddVec(a.HT, b.HT), TT: lsq.AddVec(a.TT, b.TT)}
	if withG {
		out.G = lsq.AddVec(a.G, b.G)
	}
	// A factor of either side's G preconditions an update of the union
	// (a stale one: of fewer images); the larger side's is kept.
	out.Factor = a.Factor
	if b.Factor != nil && (a.Factor == nil || b.Factor.N > a.Factor.N) {
		out.Factor = b.Factor
	}
	if a.Classes != nil {
		out.ClassCounts = make([]int, len(a.Classes))
		for i := range out.ClassCounts {
			out.ClassCounts[i] = a.ClassCounts[i] + b.ClassCounts[i]
		}
	}
	return out, nil
}

// Solve returns the output weights (L x M) the sums give, G read first if
// it was left unread: (G + ridge I)^-1 H^T T for ridge > 0; for ridge 0
// the pseudo-inverse of G (eigenvalues below L lambda_max eps dropped)
// times H^T T. The caller checks ridge and that an image was summed.
func (s *Sums) Solve(ridge float64) ([]float64, error) {
	if _, err := s.Gram(); err != nil {
		return nil, err
	}
	l, m := s.L, s.M
	var beta []float64
	if ridge > 0 {
		g := mat.NewSymDense(l, slices.Clone(s.G))
		var err error
		if beta, err = lsq.CholeskySolve(g, mat.NewDense(l, m, slices.Clone(s.HT)), ridge); err != nil {
			return nil, err
		}
	} else {
		var ok bool
		if beta, ok = lsq.EigenPinv(slices.Clone(s.G), s.HT, l, m); !ok {
			return nil, fmt.Errorf("%w: eigendecomposition of G failed", ErrStats)
		}
	}
	return beta, nil
}

// RMSE is the training RMSE of output weights beta from the sums alone
// (lsq.SumsRSS).
func (s *Sums) RMSE(beta []float64, ridge float64) float64 {
	return math.Sqrt(lsq.SumsRSS(s.G, s.HT, s.TT, beta, s.L, s.M) / float64(s.N*s.M))
}

// NearRMSE is the training RMSE of beta on the images of s from the sums
// and the normal equations beta solves, (G + a I) beta = H^T T for G the
// G of all the images: ||T - H beta||^2 = tr(T^T T) - 2 tr(beta^T H^T T)
// + tr(beta^T G beta) = tr(T^T T) - tr(beta^T H^T T) - a ||beta||^2 (to
// the accuracy of the solve, without G).
func (s *Sums) NearRMSE(beta []float64, ridge float64) float64 {
	return math.Sqrt(lsq.SolvedRSS(s.HT, s.TT, beta, s.M, ridge) / float64(s.N*s.M))
}

// FreshFactor reports whether s holds the factor of its own G + ridge I.
func (s *Sums) FreshFactor(ridge float64) bool {
	f := s.Factor
	return f != nil && f.N == s.N && f.Ridge == ridge && f.l == s.L
}

// SolveNear returns the output weights s's sums give with the ridge term
// ridge, solved by conjugate gradients on A = G_old + ridge I + H^T H
// (G_old the G of old, H the kept hidden outputs; s.G need not be
// formed), or nil if the factor or the iteration failed (the caller then
// solves directly). The preconditioner is, in order of preference: old's
// stored factor of its own G + ridge I (old.G is then not needed, nor
// read when it was left unread), old's stored factor of an earlier G or
// of another ridge (a stale one: each step also multiplies by G_old, L^2
// m multiply-adds, instead of factoring it, L^3 / 6), or a factor of
// G_old + ridge I formed in place in old.G (its lower triangle, restored
// before SolveNear returns: the strictly upper part is not written, the
// diagonal blocks are saved; old must not be used by another goroutine
// meanwhile).
func (s *Sums) SolveNear(old *Sums, kept []lsq.Chunk, ridge float64) ([]float64, error) {
	l, m := s.L, s.M
	var f lsq.LowerTri
	var g []float64
	switch fa := old.Factor; {
	case old.FreshFactor(ridge):
		f = fa.tri()
	case fa != nil && fa.l == l:
		// A stale factor: a preconditioner of the true A, applied with G.
		g0, err := old.Gram()
		if err != nil {
			return nil, err
		}
		f, g = fa.tri(), g0
	default:
		g0, err := old.Gram()
		if err != nil {
			return nil, err
		}
		saved := lsq.SaveDiagBlocks(g0, l)
		defer lsq.RestoreSym(g0, l, saved)
		for i := 0; i < l; i++ {
			g0[i*l+i] += ridge
		}
		if lsq.Cholesky(g0, l, l, ridge) != nil {
			return nil, nil
		}
		f = lsq.FullTri(g0, l)
	}
	beta, ok := lsq.NewNear(f, g, ridge, kept, l, m).PCG(s.HT, UpdateTol, UpdateCheckTol, UpdateMaxSteps)
	if !ok {
		return nil, nil
	}
	return beta, nil
}

// AddKept returns g0 plus the Gram matrix of the kept hidden outputs
// (l columns), exactly symmetric.
func AddKept(g0 []float64, kept []lsq.Chunk, l int) []float64 {
	g := bigmem.Float64s(l * l)
	for _, c := range kept {
		lsq.GramLower(l, c.Rows, c.H, c.LD, g)
	}
	lsq.Symmetrize(g, l)
	return lsq.AddVec(g0, g)
}

// AddRows adds a batch of rows' products to cs: the rows lo ... lo+rows-1
// of a set, their first lh columns the hidden outputs hb (node-major, lh
// x rows), the columns after them (up to cs.L) the direct features direct
// gives for rows at ... at+take-1 (D x take), their targets those of t
// (row-major, cs.M a row), and each row scaled by sw[row] (nil: 1).
func AddRows(cs *lsq.ChunkSums, lh, lo, rows int, hb []float32, t, sw []float64, direct func(at, take int) []float64) {
	l, mm, cw, tc := cs.L, cs.M, cs.CW, cs.T
	for r0 := 0; r0 < rows; {
		take := min(rows-r0, cs.Room())
		hn, filled := cs.H, cs.Filled
		for j := 0; j < lh; j++ {
			src, dst := hb[j*rows+r0:j*rows+r0+take], hn[j*cw+filled:]
			if sw != nil {
				// Weighted sums: each image's row scaled by sqrt(w_i).
				for i, v := range src {
					dst[i] = float64(v) * sw[lo+r0+i]
				}
				continue
			}
			for i, v := range src {
				dst[i] = float64(v)
			}
		}
		if l > lh {
			// The direct features after the hidden outputs.
			fd := direct(lo+r0, take)
			for j := lh; j < l; j++ {
				copy(hn[j*cw+filled:j*cw+filled+take], fd[(j-lh)*take:(j-lh+1)*take])
			}
		}
		for r := 0; r < take; r++ {
			w := 1.0
			if sw != nil {
				w = sw[lo+r0+r]
			}
			for q := 0; q < mm; q++ {
				tc[q*cw+filled+r] = t[(lo+r0+r)*mm+q] * w
			}
		}
		r0 += take
		cs.Added(take)
	}
}

// Bytes is the memory of the statistics of l columns and m outputs over
// n images at their peak (scn.Config.EstimateStats): G, H^T T and T^T T,
// a chunk of float64 hidden outputs (up to Chunk images), and with factor
// the factorization's L x L copy and the packed factor it is copied into.
func Bytes(l, m, n int, factor bool) int64 {
	mm, ll := int64(m), int64(l)
	b := 8 * (ll*ll + ll*mm + mm*mm + ll*int64(min(max(n, 1), Chunk)))
	if factor {
		b = memest.SatAdd(b, 8*ll*ll, 8*int64(lsq.PackedLen(l)))
	}
	return b
}

// NewSums returns zero sums of l columns and m outputs over rows rows
// (n images of targets t, m a row, each counting rowsPer rows), G
// allocated only if withG; with classes (nil: a regression), the images
// of each are counted (rowsPer rows each).
func NewSums(l, m, n, rowsPer int, t []float64, classes []string, withG bool) *Sums {
	s := &Sums{L: l, N: n * rowsPer, M: m, HT: make([]float64, l*m), TT: make([]float64, m*m)}
	if withG {
		s.G = bigmem.Float64s(l * l)
	}
	if classes != nil {
		s.Classes = slices.Clone(classes)
		s.ClassCounts = make([]int, len(classes))
		for _, c := range score.ArgMax(t, m) {
			s.ClassCounts[c] += rowsPer
		}
	}
	return s
}
