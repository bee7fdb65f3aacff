package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/classweight"
)

// BalancedWeights returns the class weights N / (M N_c) of a
// classification problem (scikit-learn's "balanced"): every class then
// weighs as much in the least squares as N / M images would, whatever its
// share. A class without images gets weight 1.
func BalancedWeights(p Problem) ([]float64, error) {
	if p.Classes == nil {
		return nil, fmt.Errorf("%w: class weights need a classification problem", ErrData)
	}
	return classweight.Balanced(ArgMax(p.T, p.M), p.X.Len(), p.M), nil
}

// imageWeights returns the square roots of the weights of p's images
// under m's class weights (nil when m has none): an image weighs its
// class's weight, matched by name (a class m's weights do not name
// weighs 1).
func (m *Model) imageWeights(p Problem) []float64 {
	if m.ClassWeights == nil || p.Classes == nil {
		return nil
	}
	return classweight.Roots(m.weightsFor(p.Classes), ArgMax(p.T, p.M))
}

// Reweighted returns m with its output weights solved again on p by
// weighted least squares: image i weighs weights[c] (c its class, weights
// indexed like p.Classes), minimising sum_i w_i ||h_i beta - t_i||^2 +
// ridge ||beta||^2 with m's ridge term. The nodes stay m's; the weights
// are recorded in the model (Model.ClassWeights), and its statistics
// (Model.Stats) and updates (Model.Update) weigh images the same way.
// Summary.TrainRMSE is then the weighted RMSE, sqrt(sum_i w_i ||h_i beta -
// t_i||^2 / (N m)).
func (m *Model) Reweighted(p Problem, weights []float64) (*Model, error) {
	if p.Classes == nil || !m.IsClassifier() {
		return nil, fmt.Errorf("%w: class weights need a classification problem", ErrData)
	}
	if err := checkWeights(weights, p.M); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	r := *m
	r.ClassWeights = classweight.For(weights, p.Classes, m.Classes)
	st, err := r.Stats(p)
	if err != nil {
		return nil, err
	}
	out, err := st.Solve(m.Config.Ridge)
	if err != nil {
		return nil, err
	}
	out.Meta, out.Preprocessing = m.Meta, m.Preprocessing
	out.Selection, out.Budget = m.Selection, m.Budget
	out.Calibration, out.Interval = m.Calibration, m.Interval
	out.Summary.Trace, out.Summary.Tried, out.Summary.Rejected = m.Summary.Trace, m.Summary.Tried, m.Summary.Rejected
	out.Summary.Duration, out.Summary.Profile = m.Summary.Duration, m.Summary.Profile
	return out, nil
}

// weightsFor returns m's class weights for the classes named (1 for a
// class m's weights do not name), nil when m has none.
func (m *Model) weightsFor(classes []string) []float64 {
	return classweight.For(m.ClassWeights, m.Classes, classes)
}
