package scn

import (
	"math"

	"github.com/scn2d/scn/internal/bigmem"
	"github.com/scn2d/scn/internal/lsq"
)

// Update returns m with its output weights solved again on the images of
// its statistics old (those of its training images, for its nodes) and
// the images of p: the model old.Merge(m.Stats(p)).Solve(ridge) gives, with
// m's ridge term, metadata and preprocessing, but without forming the new
// images' part of G when it can. If withStats, it also returns the merged
// statistics (the exact sums Merge gives: for the next update; they carry
// old's stored factor on, as Merge does).
//
// With a ridge term a > 0 and the new images' hidden outputs H (N_new x L,
// float64) taking no more memory than two copies of G (or 256 MiB), the
// output weights solve (G_old + a I + H^T H) beta = H^T T_all by conjugate
// gradients preconditioned with a Cholesky factor F of G_old + a I: the
// one stored with old (Stats.Factor, written by scn train --stats-out:
// G_old is then not needed at all, and a file opened by OpenStats never
// reads it), else one formed in place in old.G (restored before Update
// returns: old must not be used by another goroutine meanwhile), or a
// stored factor of an earlier G (a stale one, still a good
// preconditioner: each step then also multiplies by G_old). Each step
// costs two triangular solves with F and a product by H and H^T, about
// L^2 m + 2 N_new L m multiply-adds, where forming H^T H would cost
// N_new L^2 / 2 and the factor of the merged G another L^3 / 6: the new
// images being like the old ones, G_old + a I is close to the whole
// matrix and about 15 steps reach the accuracy of a direct solve (they
// stop when each output's residual is below updateTol of its right-hand
// side, and the true residual is checked at the end). Otherwise (no
// ridge, more new images, no convergence within updateMaxSteps steps) it
// forms H^T H from the kept outputs and solves the merged statistics
// directly (Stats.Solve). Either way the result is the least squares of
// all the images with m's nodes, to the accuracy of the normal equations:
// on MNIST (L = 5000, 54000 + 6000 images) the two ways' output weights
// differ by 8e-11 relative. A fresh stored factor gives the same bits as
// the factor Update forms itself.
func (m *Model) Update(old *Stats, p Problem, withStats bool) (*Model, *Stats, error) {
	ridge := m.Config.Ridge
	l, n := m.Nodes()+m.DirectDim(), p.X.Len()*m.augmentRows() // rows: an augmented local model sums copies too
	iterative := ridge > 0 && float64(n)*float64(l) <= max(2*float64(l)*float64(l), updateKeep)
	fresh, kept, err := m.sums(p, 0, withStats || !iterative, iterative)
	if err != nil {
		return nil, nil, err
	}
	merged, err := old.merge(fresh, fresh.G != nil)
	if err != nil {
		return nil, nil, err
	}
	var nm *Model
	if iterative {
		if nm, err = merged.solveNear(old, kept, ridge); err != nil {
			return nil, nil, err
		}
	}
	if nm == nil {
		if merged.G == nil {
			g0, err := old.gram()
			if err != nil {
				return nil, nil, err
			}
			g := bigmem.Float64s(l * l)
			for _, c := range kept {
				lsq.GramLower(l, c.Rows, c.H, c.LD, g)
			}
			lsq.Symmetrize(g, l)
			merged.G = lsq.AddVec(g0, g)
		}
		if nm, err = merged.Solve(ridge); err != nil {
			return nil, nil, err
		}
	}
	nm.Meta, nm.Preprocessing = m.Meta, m.Preprocessing
	if !withStats {
		merged = nil
	}
	return nm, merged, nil
}

const (
	// updateKeep is the hidden outputs (values) an update keeps for its
	// iterative solve whatever L: 256 MiB of float64.
	updateKeep = 1 << 25
	// updateTol is the residual, relative to the right-hand side, at
	// which the iterative solve of an update stops.
	updateTol = 1e-11
	// updateMaxSteps bounds the iterative solve's steps.
	updateMaxSteps = 100
	// updateCheckTol is the true relative residual the iterative solve
	// must reach, or the update solves directly.
	updateCheckTol = 1e-10
)

// solveNear returns the model s's sums give with the ridge term ridge,
// solved by conjugate gradients on A = G_old + ridge I + H^T H (G_old the
// G of old, H the kept hidden outputs; s.G need not be formed), or nil if
// the factor or the iteration failed (the caller then solves directly).
// The preconditioner is, in order of preference: old's stored factor of
// its own G + ridge I (old.G is then not needed, nor read by OpenStats),
// old's stored factor of an earlier G or of another ridge (a stale one:
// each step also multiplies by G_old, L^2 m multiply-adds, instead of
// factoring it, L^3 / 6), or a factor of G_old + ridge I formed in place
// in old.G (its lower triangle, restored before solveNear returns: the
// strictly upper part is not written, the diagonal blocks are saved; old
// must not be used by another goroutine meanwhile).
func (s *Stats) solveNear(old *Stats, kept []lsq.Chunk, ridge float64) (*Model, error) {
	l, m := s.Nodes(), s.M
	var f lsq.LowerTri
	var g []float64
	switch fa := old.Factor; {
	case old.freshFactor(ridge):
		f = fa.tri()
	case fa != nil && fa.l == l:
		// A stale factor: a preconditioner of the true A, applied with G.
		g0, err := old.gram()
		if err != nil {
			return nil, err
		}
		f, g = fa.tri(), g0
	default:
		g0, err := old.gram()
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
	beta, ok := lsq.NewNear(f, g, ridge, kept, l, m).PCG(s.HT, updateTol, updateCheckTol, updateMaxSteps)
	if !ok {
		return nil, nil
	}
	return s.model(beta, ridge, s.nearRMSE(beta, ridge)), nil
}

// nearRMSE is the training RMSE of beta on the images of s from the sums
// and the normal equations beta solves, (G + a I) beta = H^T T for G the
// G of all the images: ||T - H beta||^2 = tr(T^T T) - 2 tr(beta^T H^T T)
// + tr(beta^T G beta) = tr(T^T T) - tr(beta^T H^T T) - a ||beta||^2 (to
// the accuracy of the solve, without G).
func (s *Stats) nearRMSE(beta []float64, ridge float64) float64 {
	return math.Sqrt(lsq.SolvedRSS(s.HT, s.TT, beta, s.M, ridge) / float64(s.N*s.M))
}
