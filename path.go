package scn

import (
	"fmt"
	"math"
	"time"

	"github.com/scn2d/scn/internal/lsq"
)

// Path is a fit that can still be re-solved. Besides the fitted model it
// keeps the fit's least-squares factorisation and its training images and
// targets, so that the model after any number l of its nodes, with any ridge
// term, costs an l x l problem instead of a new fit: what model selection
// over L and the ridge term needs.
//
// A Path weighs what the fit weighs: the training images plus the N x L
// factor (480 MB for 60000 images at L = 1000). A Model weighs L (P+1+m)
// numbers only (P the hidden parameters per node), whether fitted or loaded;
// drop the Path as soon as its prefixes are no longer needed.
type Path struct {
	model *Model
	eng   lsq.Engine
	x     Images    // the training images
	t     []float64 // the training targets, N x m
	// independent counts the leading nodes whose columns are all in eng;
	// a random learner past rank keeps later nodes outside it.
	independent int
	ridge       float64 // the fit's ridge term
}

// Model returns the fitted model with all its nodes. It shares nothing
// with the path that the path changes.
func (p *Path) Model() *Model { return p.model }

// Nodes returns the number of hidden nodes L of the full model.
func (p *Path) Nodes() int { return p.model.Nodes() }

// Prefix returns the model made of the first l hidden nodes, with output
// weights solved anew by least squares (with the fit's ridge term) for
// those l nodes: exactly the model the fit had after l steps.
func (p *Path) Prefix(l int) (*Model, error) { return p.Solve(l, p.ridge) }

// Solve returns the model made of the first l hidden nodes with output
// weights solved for the ridge term ridge >= 0 (0: the minimum-norm
// least-squares solution).
func (p *Path) Solve(l int, ridge float64) (*Model, error) {
	m := p.model
	if l < 1 || l > m.Nodes() {
		return nil, fmt.Errorf("scn: prefix of %d nodes of a model with %d", l, m.Nodes())
	}
	if !(ridge >= 0) || math.IsInf(ridge, 0) {
		return nil, fmt.Errorf("%w: ridge = %v, want a finite value >= 0", ErrConfig, ridge)
	}
	beta, err := p.beta(m, l, ridge)
	if err != nil {
		return nil, err
	}
	pm, _ := m.truncate(l, beta)
	pm.Config.Ridge = ridge
	pm.Summary.Trace = m.Summary.Trace[:min(l, len(m.Summary.Trace))]
	if l <= len(pm.Summary.Trace) && ridge == p.ridge {
		pm.Summary.TrainRMSE = pm.Summary.Trace[l-1].RMSE
	} else if pm.Summary.TrainRMSE, err = p.trainRMSE(pm); err != nil {
		return nil, err
	}
	return pm, nil
}

// trainRMSE returns the training RMSE of pm, a model of the path's nodes:
// from the normal equations, ||T - H beta||^2 = T^T T - 2 tr(beta^T H^T T) +
// tr(beta^T G beta), when its nodes are all in the engine; otherwise from
// its predictions.
func (p *Path) trainRMSE(pm *Model) (float64, error) {
	n, m, l := p.x.Len(), pm.M, pm.Nodes()
	if l > p.independent {
		y, err := pm.Predict(p.x)
		if err != nil {
			return 0, err
		}
		return RMSE(y, p.t), nil
	}
	g, ht := p.eng.Normal(l)
	var ss float64
	for _, v := range p.t {
		ss += v * v
	}
	for q := 0; q < m; q++ {
		for i := 0; i < l; i++ {
			bi := pm.Beta[i*m+q]
			ss -= 2 * bi * ht.At(i, q)
			for j := 0; j < l; j++ {
				ss += bi * g.At(i, j) * pm.Beta[j*m+q]
			}
		}
	}
	return math.Sqrt(max(ss, 0) / float64(n*m)), nil
}

// beta returns the output weights of the first l nodes of m: from the
// engine when those nodes are all in it, otherwise by minNorm over their
// hidden outputs.
func (p *Path) beta(m *Model, l int, ridge float64) ([]float64, error) {
	if l <= p.independent {
		return p.eng.Solve(l, ridge)
	}
	pm, err := m.truncate(l, nil)
	if err != nil {
		return nil, err
	}
	return lsq.MinNorm(hiddenDense(pm, p.x), p.t, m.M, ridge)
}

// finish completes the path's model as a driver leaves it: the summary s,
// the output weights of its first s.Nodes nodes at ridge, the profile
// (its Solve the time since t0, recorded in prof too) and a copy of the
// scales and ratios of the fit.
func (p *Path) finish(s Summary, ridge float64, scales, ratios []float64, prof *Profile, t0 time.Time) error {
	m := p.model
	m.Summary = s
	beta, err := p.beta(m, s.Nodes, ridge)
	if err != nil {
		return err
	}
	m.Beta = beta
	prof.Solve = time.Since(t0)
	m.Summary.Profile = *prof
	m.Config.Scales = append([]float64(nil), scales...)
	m.Config.Ratios = append([]float64(nil), ratios...)
	return nil
}

// bothRMSE returns the RMSE of m's predictions over the path's training
// part and the held-out part together: the training RMSE of a model
// refitted on both.
func (p *Path) bothRMSE(m *Model, held Problem) (float64, error) {
	yt, err := m.Predict(p.x)
	if err != nil {
		return 0, err
	}
	yv, err := m.Predict(held.X)
	if err != nil {
		return 0, err
	}
	return RMSE(append(yt, yv...), append(append([]float64(nil), p.t...), held.T...)), nil
}
