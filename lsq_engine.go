package scn

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// engine is the least-squares engine of a fit: it holds the chosen nodes'
// hidden outputs in a factored form from which the output weights of any
// prefix of the nodes, with any ridge term, follow without touching the
// N training samples again. The tiled CGS2 QR factorisation of one node at
// a time (lsq) is one; the block engines are others.
type engine interface {
	// columns returns the number of hidden columns (nodes) held.
	columns() int
	// solve returns the output weights beta (l x m, row-major) of the first
	// l columns: the least-squares solution for ridge = 0 (the columns
	// being independent), else the solution of (H^T H + ridge I) beta = H^T T.
	solve(l int, ridge float64) ([]float64, error)
	// normal returns the normal equations of the first l columns:
	// G = H^T H (l x l) and H^T T (l x m), both row-major.
	normal(l int) (g *mat.SymDense, ht *mat.Dense)
}

// ridgeSolve returns the solution beta (l x m) of (G + ridge I) beta = HT by
// a Cholesky factorisation; g is overwritten. It is the one ridge solve of
// the package: the engines' normal equations and the pseudo-inverse path of
// rank-deficient random learners both end here.
func ridgeSolve(g *mat.SymDense, ht *mat.Dense, ridge float64) ([]float64, error) {
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
