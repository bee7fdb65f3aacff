package scn

import (
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/linalg"
)

// Model is a fitted network f(X) = sum_j beta_j g(a_j(X)). It is safe for
// concurrent use by several goroutines once fitted or loaded.
type Model struct {
	Kind       Kind
	Activation Activation
	Rows, Cols int      // input image shape d1 x d2
	M          int      // outputs m
	Classes    []string // class names for classification, nil for regression

	// Params holds each node's hidden parameters, L rows of ParamsPerNode:
	// w (d1*d2 values) for vector learners, u (d1) then v (d2) for matrix ones.
	Params []float32
	Bias   []float32 // L biases
	Beta   []float64 // output weights, L x M row-major

	Config  Config            // hyper-parameters the model was fitted with
	Summary Summary           // how the fit went
	Meta    map[string]string // free-form metadata (e.g. preprocessing), saved with the model

	ls *lsq // the fit's factorisation, for Prefix; nil for loaded models
}

// Nodes returns the number of hidden nodes L.
func (m *Model) Nodes() int { return len(m.Bias) }

// ParamsPerNode returns the hidden parameters per node, the bias excluded:
// d1*d2 for vector learners, d1+d2 for matrix ones.
func (m *Model) ParamsPerNode() int { return newNodeMap(m.Kind.Input, m.Rows, m.Cols).size() }

// ParamCount returns every trained number: L*(ParamsPerNode+1+M).
func (m *Model) ParamCount() int { return m.Nodes() * (m.ParamsPerNode() + 1 + m.M) }

// IsClassifier reports whether the model predicts classes.
func (m *Model) IsClassifier() bool { return m.Classes != nil }

// weights returns the nodes' weights over the flattened image, L x d.
func (m *Model) weights() []float32 {
	nm := newNodeMap(m.Kind.Input, m.Rows, m.Cols)
	np, d := nm.size(), m.Rows*m.Cols
	w := make([]float32, m.Nodes()*d)
	for j := 0; j < m.Nodes(); j++ {
		nm.weight(m.Params[j*np:(j+1)*np], w[j*d:(j+1)*d])
	}
	return w
}

// checkInput reports whether x can be fed to the model.
func (m *Model) checkInput(x Images) error {
	if err := x.check(); err != nil {
		return err
	}
	if x.Rows != m.Rows || x.Cols != m.Cols {
		return fmt.Errorf("%w: images are %d x %d, the model takes %d x %d", ErrData, x.Rows, x.Cols, m.Rows, m.Cols)
	}
	return nil
}

// predictBatch is the number of images pushed through the network per
// matrix product.
const predictBatch = 512

// hidden calls f with the hidden outputs (rows x L, row-major) of
// consecutive batches of images, starting at image lo.
func (m *Model) hidden(x Images, f func(lo, rows int, h []float32)) {
	w := m.weights()
	n, d, l := x.Len(), x.Dim(), m.Nodes()
	h := make([]float32, predictBatch*l)
	for lo := 0; lo < n; lo += predictBatch {
		rows := min(predictBatch, n-lo)
		hb := h[:rows*l]
		linalg.Sgemm(false, true, rows, l, d, 1, x.Pix[lo*d:(lo+rows)*d], d, w, d, 0, hb, l)
		act := m.Activation
		forChunks(rows, 64, func(_, a, b int) { act.apply(hb[a*l:b*l], m.Bias) })
		f(lo, rows, hb)
	}
}

// Predict returns the network's outputs on x, N x M row-major.
func (m *Model) Predict(x Images) ([]float64, error) {
	if err := m.checkInput(x); err != nil {
		return nil, err
	}
	l := m.Nodes()
	out := make([]float64, x.Len()*m.M)
	h64 := make([]float64, predictBatch*l)
	m.hidden(x, func(lo, rows int, h []float32) {
		hb := h64[:rows*l]
		for i, v := range h {
			hb[i] = float64(v)
		}
		linalg.Dgemm(false, false, rows, m.M, l, 1, hb, l, m.Beta, m.M, 0, out[lo*m.M:(lo+rows)*m.M], m.M)
	})
	return out, nil
}

// Classify returns the predicted class (arg-max output) of each image.
func (m *Model) Classify(x Images) ([]int, error) {
	y, err := m.Predict(x)
	if err != nil {
		return nil, err
	}
	return ArgMax(y, m.M), nil
}

// ArgMax returns the index of the largest value of each row of y (N x m).
func ArgMax(y []float64, m int) []int {
	out := make([]int, len(y)/m)
	for i := range out {
		row := y[i*m : (i+1)*m]
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		out[i] = best
	}
	return out
}

// Accuracy returns the share of images whose predicted class is the label.
func (m *Model) Accuracy(x Images, labels []int) (float64, error) {
	if x.Len() != len(labels) {
		return 0, fmt.Errorf("%w: %d labels for %d images", ErrData, len(labels), x.Len())
	}
	pred, err := m.Classify(x)
	if err != nil {
		return 0, err
	}
	return Accuracy(pred, labels), nil
}

// Accuracy returns the share of pred equal to labels (0 for empty input).
func Accuracy(pred, labels []int) float64 {
	if len(pred) == 0 {
		return 0
	}
	hit := 0
	for i, p := range pred {
		if p == labels[i] {
			hit++
		}
	}
	return float64(hit) / float64(len(pred))
}

// RMSE returns the root mean squared error of the model's outputs on x
// against targets (N x M), over all N*M values.
func (m *Model) RMSE(x Images, targets []float64) (float64, error) {
	if len(targets) != x.Len()*m.M {
		return 0, fmt.Errorf("%w: %d target values for %d images x %d outputs", ErrData, len(targets), x.Len(), m.M)
	}
	y, err := m.Predict(x)
	if err != nil {
		return 0, err
	}
	return RMSE(y, targets), nil
}

// RMSE returns sqrt(mean((y-t)^2)) (0 for empty input).
func RMSE(y, t []float64) float64 {
	if len(y) == 0 {
		return 0
	}
	var s float64
	for i, v := range y {
		d := v - t[i]
		s += d * d
	}
	return math.Sqrt(s / float64(len(y)))
}

// Prefix returns the model made of the first l hidden nodes, with output
// weights solved anew by least squares for those l nodes: exactly the model
// the fit had after l steps. It works on freshly fitted models only (the
// factorisation it needs is not saved).
func (m *Model) Prefix(l int) (*Model, error) {
	if m.ls == nil {
		return nil, fmt.Errorf("scn: Prefix needs a freshly fitted model, not a loaded one")
	}
	if l < 0 || l > m.Nodes() {
		return nil, fmt.Errorf("scn: prefix of %d nodes of a model with %d", l, m.Nodes())
	}
	beta, err := m.ls.solve(l, m.Config.Ridge)
	if err != nil {
		return nil, err
	}
	p := *m
	np := m.ParamsPerNode()
	p.Params = m.Params[: l*np : l*np]
	p.Bias = m.Bias[:l:l]
	p.Beta = beta
	p.Summary.Nodes = l
	p.Summary.Trace = m.Summary.Trace[:min(l, len(m.Summary.Trace))]
	if l > 0 && l <= len(p.Summary.Trace) {
		p.Summary.TrainRMSE = p.Summary.Trace[l-1].RMSE
	}
	return &p, nil
}

// Indicator returns the generalization indicator Theta_raw of the paper
// (SPEC section 3) on the training images x:
//
//	||g'(H) o W||_F * ||beta||_F
//
// where H (N x L) holds the hidden outputs, g'(H) the activation's slope
// written in terms of them (H o (1-H) for the sigmoid, so that for the
// sigmoid this is the paper's ||H o (1-H) o W||_F), and W repeats the row of
// weight norms ||w_j|| (||u_j|| ||v_j|| for matrix learners).
func (m *Model) Indicator(x Images) (float64, error) {
	if err := m.checkInput(x); err != nil {
		return 0, err
	}
	nm := newNodeMap(m.Kind.Input, m.Rows, m.Cols)
	np, l := nm.size(), m.Nodes()
	wn := make([]float64, l)
	for j := range wn {
		wn[j] = nm.weightNorm(m.Params[j*np : (j+1)*np])
	}
	var sum float64
	m.hidden(x, func(_, _ int, h []float32) {
		for i, v := range h {
			hv := float64(v)
			s := m.Activation.slope(hv) * wn[i%l]
			sum += s * s
		}
	})
	var bb float64
	for _, b := range m.Beta {
		bb += b * b
	}
	return math.Sqrt(sum) * math.Sqrt(bb), nil
}
