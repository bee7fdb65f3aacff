package scn

import (
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/suffstats"
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
// stop when each output's residual is below suffstats.UpdateTol of its right-hand
// side, and the true residual is checked at the end). Otherwise (no
// ridge, more new images, no convergence within suffstats.UpdateMaxSteps steps) it
// forms H^T H from the kept outputs and solves the merged statistics
// directly (Stats.Solve). Either way the result is the least squares of
// all the images with m's nodes, to the accuracy of the normal equations:
// on MNIST (L = 5000, 54000 + 6000 images) the two ways' output weights
// differ by 8e-11 relative. A fresh stored factor gives the same bits as
// the factor Update forms itself.
func (m *Model) Update(old *Stats, p Problem, withStats bool) (*Model, *Stats, error) {
	ridge := m.Config.Ridge
	l, n := m.Nodes()+m.DirectDim(), p.X.Len()*m.augmentRows() // rows: an augmented local model sums copies too
	iterative := ridge > 0 && float64(n)*float64(l) <= max(2*float64(l)*float64(l), suffstats.UpdateKeep)
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
			merged.G = suffstats.AddKept(g0, kept, l)
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

// solveNear returns the model s's sums give with the ridge term ridge,
// solved by conjugate gradients on A = G_old + ridge I + H^T H (G_old the
// G of old, H the kept hidden outputs; s.G need not be formed), or nil if
// the factor or the iteration failed (the caller then solves directly):
// suffstats.Sums.SolveNear, whose doc says which preconditioner it takes
// (old must not be used by another goroutine meanwhile); the training
// RMSE is the sums' (suffstats.Sums.NearRMSE).
func (s *Stats) solveNear(old *Stats, kept []lsq.Chunk, ridge float64) (*Model, error) {
	ov := old.view()
	beta, err := s.view().SolveNear(ov, kept, ridge)
	old.absorb(ov)
	if err != nil || beta == nil {
		return nil, err
	}
	return s.model(beta, ridge, s.view().NearRMSE(beta, ridge)), nil
}
