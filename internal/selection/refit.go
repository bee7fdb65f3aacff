package selection

import (
	"math"

	"github.com/scn2d/scn/internal/lsq"
	"gonum.org/v1/gonum/mat"
)

// Refit returns the output weights of the first l nodes of a fit solved on
// its training part (targets t) and a held-out part (hidden outputs hv,
// targets tv, whose values are heldT) together with ridge alpha: the
// normal equations of both parts add up (normal gives the training part's
// of l nodes; lsq.StackedRidge). Without a ridge term they are stacked's,
// the minimum-norm least squares over both (StackedLS). rmse is the
// training RMSE over all images of the weights when the normal equations
// were formed (ok; predicting 60000 images again cost a second at MNIST
// scale); otherwise the caller predicts.
func Refit(l int, alpha float64, hv, tv *mat.Dense, t, heldT []float64, normal func(l int) (*mat.SymDense, *mat.Dense), stacked func() ([]float64, error)) (beta []float64, rmse float64, ok bool, err error) {
	if alpha == 0 {
		beta, err = stacked()
		return beta, 0, false, err
	}
	g, ht := normal(l)
	beta, rss, err := lsq.StackedRidge(g, ht, hv, tv, alpha, t, heldT)
	if err != nil || rss < 0 {
		return beta, 0, false, err
	}
	return beta, math.Sqrt(rss / float64(len(t)+len(heldT))), true, nil
}

// StackedLS returns the minimum-norm least-squares weights of the first l
// nodes (m outputs) over a training part and a held-out part (hidden
// outputs hv, targets tv). With the engine's QR factor H = Q R (qr, when
// it holds the l nodes; else nil), ||H beta - T||^2 equals ||R beta -
// Q^T T||^2 plus a constant, so the problem over both parts is the small
// stacked problem [R; hv] beta = [Q^T T; tv]. Past rank, where the engine
// does not hold every node, it is solved over all hidden outputs: the
// training part's (hidden, N x l) stacked on hv, its targets t on tv.
func StackedLS(qr *lsq.QR, l, m int, hv, tv *mat.Dense, hidden func() *mat.Dense, t []float64) ([]float64, error) {
	nv, _ := hv.Dims()
	if qr != nil {
		if beta, ok := qr.StackedSolve(l, hv, tv); ok {
			return beta, nil
		}
	}
	ht := hidden()
	n, _ := ht.Dims()
	h := mat.NewDense(n+nv, l, nil)
	h.Slice(0, n, 0, l).(*mat.Dense).Copy(ht)
	h.Slice(n, n+nv, 0, l).(*mat.Dense).Copy(hv)
	ts := append(append([]float64(nil), t...), tv.RawMatrix().Data...)
	return lsq.MinNorm(h, ts, m, 0)
}
