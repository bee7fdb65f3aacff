package scn

import (
	"errors"
	"fmt"

	"github.com/scn2d/scn/internal/direct"
	"gonum.org/v1/gonum/mat"
)

// Direct links (Config.DirectLink, Model.Direct): the model, its features
// and its solves are described in internal/direct's link.go; this file
// holds the model's side (its hidden outputs, the model with direct links,
// its checks and indicator term).

// DirectLink holds a model's direct links from the input to the outputs:
// Pool, the side p of the blocks averaged into one feature (1 reads the
// pixels themselves), and Beta, the features' output weights, D x M
// row-major (D = Model.DirectDim()). It is internal/direct's Link.
type DirectLink = direct.Link

// DirectDim returns the number of direct features D (0 without direct links).
func (m *Model) DirectDim() int {
	if m.Direct == nil {
		return 0
	}
	return direct.Dim(m.Channels, m.Rows, m.Cols, m.Direct.Pool)
}

// directPool returns the direct links' pooling side, 0 without them.
func directPool(m *Model) int {
	if m.Direct == nil {
		return 0
	}
	return m.Direct.Pool
}

// directNormal returns the normal equations of the unknowns [W; beta] of
// the first l nodes of m with the direct features (pool) on x and targets
// t (direct.NormalOf).
func directNormal(m *Model, l int, x Images, t []float64, pool int) (g, at []float64) {
	return direct.NormalOf(modelHidden{m, x}, l, direct.Images(x), t, m.M, pool)
}

// modelHidden gives the hidden outputs of m's prefixes on x to
// internal/direct's solves.
type modelHidden struct {
	m *Model
	x Images
}

func (h modelHidden) Each(l int, f func(lo, rows int, hb []float32)) { forHidden(h.m, l, h.x, f) }

func (h modelHidden) Dense(l int) *mat.Dense {
	pm, _ := h.m.truncate(l, nil)
	return hiddenDense(pm, h.x)
}

// forHidden calls f with the outputs of the first l nodes of m on
// consecutive batches of x (node-major, as Model.hidden), also for l = 0.
func forHidden(m *Model, l int, x Images, f func(lo, rows int, hb []float32)) {
	if l == 0 {
		n := x.Len()
		for lo := 0; lo < n; lo += predictBatch {
			f(lo, min(predictBatch, n-lo), nil)
		}
		return
	}
	pm, _ := m.truncate(l, nil)
	pm.hidden(x, f)
}

// solveDirect returns the output weights of the first l nodes of m (beta,
// l x M) and of the direct features (w, D x M) over x and t with ridge
// alpha (direct.Solve).
func solveDirect(m *Model, l int, x Images, t []float64, pool int, alpha float64) (beta, w []float64, err error) {
	beta, w, err = direct.Solve(modelHidden{m, x}, l, direct.Images(x), t, m.M, pool, alpha)
	var ce *direct.ConfigError
	if errors.As(err, &ce) {
		return nil, nil, fmt.Errorf("%w: %s", ErrConfig, ce.Msg)
	}
	return beta, w, err
}

// withDirect returns the model of the first l nodes of m with direct links
// (pool) and output weights solved on x and t with ridge alpha, its
// training RMSE on them.
func withDirect(m *Model, l int, x Images, t []float64, pool int, alpha float64) (*Model, error) {
	beta, w, err := solveDirect(m, l, x, t, pool, alpha)
	if err != nil {
		return nil, err
	}
	out := directModel(m, l, pool, alpha, beta, w)
	y, err := out.Predict(x)
	if err != nil {
		return nil, err
	}
	out.Summary.TrainRMSE = RMSE(y, t)
	return out, nil
}

// directModel returns the model of the first l nodes of m with direct
// links pooled by pool: output weights beta (l x M) and w (D x M), solved
// with ridge alpha; its training RMSE is left to the caller.
func directModel(m *Model, l, pool int, alpha float64, beta, w []float64) *Model {
	out := *m
	np := m.ParamsPerNode()
	out.Params = m.Params[: l*np : l*np]
	out.Bias = m.Bias[:l:l]
	out.Beta = beta
	out.Direct = &DirectLink{Pool: pool, Beta: w}
	out.Summary.Nodes = l
	out.Summary.Trace = m.Summary.Trace[:min(l, len(m.Summary.Trace))]
	out.Config.Ridge = alpha
	out.Config.DirectLink = true
	return &out
}

// checkDirect reports whether the model's direct links agree with its shapes.
func (m *Model) checkDirect() error {
	if m.Direct == nil {
		return nil
	}
	if err := m.Direct.Check(m.Rows, m.Cols, m.DirectDim(), m.M); err != nil {
		return err
	}
	if m.IsDeep() {
		return fmt.Errorf("%w: direct links are for one-layer networks", ErrDeep)
	}
	return checkFinite(m.Direct.Beta, "direct-link weight")
}

// directIndicatorTerm returns the direct part of Theta's first factor
// squared, N * D (see internal/direct's link.go), and the
// squared norm of the direct weights.
func (m *Model) directIndicatorTerm(n int) (slope2, w2 float64) {
	if m.Direct == nil {
		return 0, 0
	}
	return m.Direct.IndicatorTerm(n, m.DirectDim())
}
