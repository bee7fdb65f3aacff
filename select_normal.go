package scn

import (
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
// ridge alpha (selection.Refit: the normal equations of both parts add up).
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
	stacked := func() ([]float64, error) { return path.stackedLS(l, hv, tv) }
	beta, rmse, formed, err := selection.Refit(l, alpha, hv, tv, path.t, held.T, path.normalAll, stacked)
	if err != nil {
		return nil, err
	}
	pm.Beta = beta
	pm.Config.Ridge = alpha
	pm.Summary.Trace = m.Summary.Trace[:min(l, len(m.Summary.Trace))]
	if formed {
		pm.Summary.TrainRMSE = rmse
		return pm, nil
	}
	if pm.Summary.TrainRMSE, err = path.bothRMSE(pm, held); err != nil {
		return nil, err
	}
	return pm, nil
}

// stackedLS returns the minimum-norm least-squares weights of the first l
// nodes over the training part and the held-out part (hidden outputs hv,
// targets tv; selection.StackedLS, from the engine's QR factor when it
// holds the l nodes).
func (p *Path) stackedLS(l int, hv, tv *mat.Dense) ([]float64, error) {
	qr, _ := p.eng.(*lsq.QR)
	if l > p.independent {
		qr = nil
	}
	hidden := func() *mat.Dense {
		pm, _ := p.model.truncate(l, nil)
		return hiddenDense(pm, p.x)
	}
	return selection.StackedLS(qr, l, p.model.M, hv, tv, hidden, p.t)
}
