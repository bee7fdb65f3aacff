package scn

import (
	"math"

	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/selection"
	"gonum.org/v1/gonum/mat"
)

// prefixSolves passes each the output weights of every prefix length in
// grid (each at most maxL) for each ridge term of ridges in turn, where
// they can be solved (selection.PrefixSolves: the normal equations of the
// first maxL nodes formed once, at the first ridge term > 0).
func (p *Path) prefixSolves(maxL int, grid []int, ridges []float64, each func(l int, alpha float64, beta []float64)) error {
	beta0 := func(l int) ([]float64, error) { return p.beta(p.model, l, 0) }
	selection.PrefixSolves(maxL, p.model.M, grid, ridges, p.normalAll, beta0, each)
	return nil
}

// normalAll returns H^T H and H^T T of the first l nodes: from the engine
// when they are all in it, else from their hidden outputs.
func (p *Path) normalAll(l int) (*mat.SymDense, *mat.Dense) {
	if l <= p.independent {
		return p.eng.Normal(l)
	}
	pm, _ := p.model.truncate(l, nil)
	h := hiddenDense(pm, p.x)
	var g mat.SymDense
	g.SymOuterK(1, h.T())
	var ht mat.Dense
	ht.Mul(h.T(), mat.NewDense(p.x.Len(), p.model.M, p.t))
	return &g, &ht
}

// refit returns the model of the first l nodes of path with output weights
// solved on the path's training data and the held-out part together, with
// ridge alpha: the normal equations of both parts add up.
func refit(path *Path, l int, alpha float64, held Problem) (*Model, error) {
	m := path.model
	pm, err := m.truncate(l, nil)
	if err != nil {
		return nil, err
	}
	hv := mat.NewDense(held.X.Len(), l, nil)
	hd := hiddenDense(pm, held.X)
	hv.Copy(hd)
	tv := mat.NewDense(held.X.Len(), m.M, held.T)
	var beta []float64
	rss := -1.0 // from the normal equations when they are formed
	if alpha == 0 {
		beta, err = path.stackedLS(l, hv, tv)
	} else {
		g, ht := path.normalAll(l)
		beta, rss, err = lsq.StackedRidge(g, ht, hv, tv, alpha, path.t, held.T)
	}
	if err != nil {
		return nil, err
	}
	pm.Beta = beta
	pm.Config.Ridge = alpha
	pm.Summary.Trace = m.Summary.Trace[:min(l, len(m.Summary.Trace))]
	// The training RMSE over all images of the final weights: from the
	// normal equations of all images when they were formed (predicting
	// 60000 images again cost a second at MNIST scale), else by predicting.
	if rss >= 0 {
		pm.Summary.TrainRMSE = math.Sqrt(rss / float64(len(path.t)+len(held.T)))
		return pm, nil
	}
	if pm.Summary.TrainRMSE, err = path.bothRMSE(pm, held); err != nil {
		return nil, err
	}
	return pm, nil
}

// stackedLS returns the minimum-norm least-squares weights of the first l
// nodes over the training part and the held-out part (hidden outputs hv,
// targets tv). With the engine's QR factor H = Q R, ||H beta - T||^2 equals
// ||R beta - Q^T T||^2 plus a constant, so the problem over both parts is
// the small stacked problem [R; hv] beta = [Q^T T; tv]. Past rank, where the
// engine does not hold every node, it is solved over all hidden outputs.
func (p *Path) stackedLS(l int, hv, tv *mat.Dense) ([]float64, error) {
	nv, _ := hv.Dims()
	m := p.model.M
	if qr, ok := p.eng.(*lsq.QR); ok && l <= p.independent {
		if beta, ok := qr.StackedSolve(l, hv, tv); ok {
			return beta, nil
		}
	}
	pm, _ := p.model.truncate(l, nil)
	ht := hiddenDense(pm, p.x)
	n := p.x.Len()
	h := mat.NewDense(n+nv, l, nil)
	h.Slice(0, n, 0, l).(*mat.Dense).Copy(ht)
	h.Slice(n, n+nv, 0, l).(*mat.Dense).Copy(hv)
	t := append(append([]float64(nil), p.t...), tv.RawMatrix().Data...)
	return lsq.MinNorm(h, t, m, 0)
}
