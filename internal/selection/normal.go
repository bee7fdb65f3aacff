package selection

import (
	"github.com/scn2d/scn/internal/lsq"
	"gonum.org/v1/gonum/mat"
)

// PrefixSolves passes each the output weights of every prefix length in
// grid (each at most maxL) for each ridge term of ridges in turn, where
// they can be solved, for m outputs. For alpha > 0 one Cholesky
// factorisation of G + alpha I (normal: the normal equations of the first
// maxL nodes, formed once, at the first ridge term > 0, and left
// unchanged) serves every prefix: its leading l x l block is the factor of
// the leading block, and the forward substitution of H^T T is shared, so
// each prefix costs a triangular solve (lsq.PrefixRidgeBetas). At alpha =
// 0 each prefix is solved by beta0, its minimum-norm least squares; a
// prefix it refuses (singular normal equations without a ridge term) is
// left out.
func PrefixSolves(maxL, m int, grid []int, ridges []float64, normal func(l int) (*mat.SymDense, *mat.Dense), beta0 func(l int) ([]float64, error), each func(l int, alpha float64, beta []float64)) {
	var g *mat.SymDense
	var ht *mat.Dense
	for _, alpha := range ridges {
		if alpha > 0 && g == nil {
			g, ht = normal(maxL)
		}
		betas := make([][]float64, len(grid))
		if alpha == 0 {
			for i, l := range grid {
				// A Gram engine refuses singular normal equations without a
				// ridge term: that prefix is then left out at alpha = 0.
				if b, err := beta0(l); err == nil {
					betas[i] = b
				}
			}
		} else {
			lsq.PrefixRidgeBetas(g, ht, maxL, grid, alpha, m, betas)
		}
		for i, l := range grid {
			if betas[i] != nil {
				each(l, alpha, betas[i])
			}
		}
	}
}
