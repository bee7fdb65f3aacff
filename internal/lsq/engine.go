package lsq

import (
	"errors"
	"fmt"

	"github.com/scn2d/scn/internal/linalg"
	"gonum.org/v1/gonum/mat"
)

// Engine is the least-squares engine of a fit: it holds the chosen nodes'
// hidden outputs in a factored form from which the output weights of any
// prefix of the nodes, with any ridge term, follow without touching the
// N training samples again. The tiled CGS2 QR factorisation of one node at
// a time (QR) is one; the Gram/Cholesky block engine (Gram) is the other.
type Engine interface {
	// columns returns the number of hidden columns (nodes) held.
	Columns() int
	// solve returns the output weights beta (l x m, row-major) of the first
	// l columns: the least-squares solution for ridge = 0 (the columns
	// being independent), else the solution of (H^T H + ridge I) beta = H^T T.
	Solve(l int, ridge float64) ([]float64, error)
	// normal returns the normal equations of the first l columns:
	// G = H^T H (l x l) and H^T T (l x m), both row-major.
	Normal(l int) (g *mat.SymDense, ht *mat.Dense)
}

// RidgeSolve returns the solution beta (l x m) of (G + ridge I) beta = HT by
// a Cholesky factorisation; g is overwritten. It is the one ridge solve of
// the package: the engines' normal equations and the pseudo-inverse path of
// rank-deficient random learners both end here.
func RidgeSolve(g *mat.SymDense, ht *mat.Dense, ridge float64) ([]float64, error) {
	l, m := ht.Dims()
	for i := 0; i < l; i++ {
		g.SetSym(i, i, g.At(i, i)+ridge)
	}
	var ch mat.Cholesky
	if !ch.Factorize(g) {
		return nil, errors.New("scn: ridge system is not positive definite")
	}
	out := mat.NewDense(l, m, nil)
	if err := ch.SolveTo(out, ht); err != nil {
		return nil, fmt.Errorf("scn: ridge solve: %w", err)
	}
	return out.RawMatrix().Data, nil
}

// CholeskySolve is RidgeSolve on the package's blocked Cholesky factor and
// triangular solves (the block engine's; OpenBLAS or the project's kernels)
// instead of gonum's: the refit of model selection at L = 4000 took 6.3 s
// with gonum's factor on MNIST. Like RidgeSolve it leaves G + alpha I in g;
// should the blocked factor call the system singular, gonum's decides.
func CholeskySolve(g *mat.SymDense, ht *mat.Dense, alpha float64) ([]float64, error) {
	l, m := ht.Dims()
	raw := g.RawSymmetric()
	ld := make([]float64, l*l)
	for i := 0; i < l; i++ {
		raw.Data[i*raw.Stride+i] += alpha
		for j := 0; j <= i; j++ {
			ld[i*l+j] = raw.Data[j*raw.Stride+i] // the upper triangle is stored
		}
	}
	if err := Cholesky(ld, l, l, alpha); err != nil {
		for i := 0; i < l; i++ {
			raw.Data[i*raw.Stride+i] -= alpha
		}
		return RidgeSolve(g, ht, alpha)
	}
	beta := make([]float64, l*m)
	for i := 0; i < l; i++ {
		for q := 0; q < m; q++ {
			beta[i*m+q] = ht.At(i, q)
		}
	}
	linalg.TrsmLeftLower(false, l, m, ld, l, beta, m)
	linalg.TrsmLeftLower(true, l, m, ld, l, beta, m)
	return beta, nil
}
