package lsq

import "gonum.org/v1/gonum/mat"

// StackedRidge returns the ridge weights at alpha over two parts of the
// images whose normal equations add up: g and ht are the first part's
// H^T H and H^T T (l x l and l x m), hv and tv the second part's hidden
// outputs and targets (n2 x l and n2 x m). It overwrites g with G + alpha I
// of both parts and ht with H^T T of both; rss is the residual sum of
// squares over the targets of both parts, t1 and t2, from the normal
// equations (NormalRSS). The solve is CholeskySolve's.
func StackedRidge(g *mat.SymDense, ht, hv, tv *mat.Dense, alpha float64, t1, t2 []float64) (beta []float64, rss float64, err error) {
	_, l := hv.Dims()
	gv := mat.NewSymDense(l, GramOf(hv))
	g.AddSym(g, gv)
	var htv mat.Dense
	htv.Mul(hv.T(), tv)
	ht.Add(ht, &htv)
	beta, err = CholeskySolve(g, ht, alpha)
	if err != nil {
		return nil, 0, err
	}
	return beta, NormalRSS(g, alpha, ht, beta, t1, t2), nil // g now holds G + alpha I
}
