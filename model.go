package scn

import (
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/score"
	"gonum.org/v1/gonum/mat"
)

// Model is a fitted network f(X) = sum_j beta_j g(a_j(X)). It is safe for
// concurrent use by several goroutines once fitted or loaded.
type Model struct {
	// Kind and Activation are what the network is, all that prediction
	// needs besides the weights. Config.Kind and Config.Activation say the
	// same for a fitted or loaded model; they are kept in Config too
	// because Config is the fit's whole recipe (Config.Fit of a model's
	// Config with its seed refits it), and a Model assembled by hand may
	// leave Config zero.
	Kind       Kind
	Activation Activation
	Rows, Cols int // input image shape d1 x d2
	// Channels is the input's planes C (0 or 1: grey): the model takes
	// images of C x d1 x d2 (Images.Channels).
	Channels int
	M        int      // outputs m
	Classes  []string // class names for classification, nil for regression

	// Params holds each node's hidden parameters, L rows of ParamsPerNode:
	// w (C*d1*d2 values) for vector learners, u (d1) then v (d2) for matrix
	// ones, then, with C > 1 channels, the channel weights w (C).
	Params []float32
	Bias   []float32 // L biases
	Beta   []float64 // output weights, L x M row-major

	Config  Config            // hyper-parameters the model was fitted with
	Summary Summary           // how the fit went
	Meta    map[string]string // free-form metadata (e.g. the data's source), saved with the model

	Preprocessing PreprocessRecord // how the training images were prepared, saved with the model

	// Selection records how L and the ridge term were chosen on held-out
	// data (Config.Select), nil for a model fitted without selection.
	Selection *Choice

	// Budget records the plan of a fit made within a time budget (Budget)
	// and what happened, nil for other fits.
	Budget *BudgetRecord

	// Deep holds the layers after the first of a deep model
	// (Config.Layers; see deep.go), nil for the paper's one-layer
	// networks. Params and Bias are the first layer's; Beta has a row for
	// every node of every layer, the first layer's first.
	Deep []Layer

	// Local is the hidden layer of a model of local (convolutional) nodes
	// (Config.Local; Params and Bias are then empty), nil for global nodes.
	Local *LocalLayer
	// Calibration maps a classifier's outputs to class probabilities
	// (Probabilities; calibrate.go), nil for an uncalibrated model.
	Calibration *Calibration
	// Interval holds a regression model's split-conformal prediction
	// intervals, nil without.
	Interval *Interval
	// ClassWeights weighs each class's images in the output layer's least
	// squares (indexed like Classes; classweight.go), nil: every image
	// weighs 1.
	ClassWeights []float64
	// Direct holds the direct links from the input to the outputs
	// (Config.DirectLink; see direct.go), nil for the paper's networks.
	Direct *DirectLink
}

// Nodes returns the number of hidden nodes L, every layer's.
func (m *Model) Nodes() int { return len(m.Bias) + m.deepNodes() + m.localOutputs() }

// ParamsPerNode returns the hidden parameters per node, the bias excluded:
// C*d1*d2 for vector learners, d1+d2 for matrix ones (d1+d2+C with C > 1
// channels).
func (m *Model) ParamsPerNode() int { return m.nodeMap().Size() }

// Chans returns the input's planes C (1 for grey).
func (m *Model) Chans() int { return max(m.Channels, 1) }

// Dim returns the length of an input image's vec(X), C*d1*d2.
func (m *Model) Dim() int { return m.Chans() * m.Rows * m.Cols }

// nodeMap returns the model's node map.
func (m *Model) nodeMap() nodeMap { return newNodeMap(m.Kind.Input, m.Rows, m.Cols, m.Channels) }

// ParamCount returns every trained number: L*(ParamsPerNode+1+M), plus
// for a deep model each further node's weights (the previous layer's
// width), bias and output weights, plus the direct links' D x M weights.
func (m *Model) ParamCount() int {
	return len(m.Bias)*(m.ParamsPerNode()+1+m.M) + m.deepParamCount() + m.localParamCount() + m.DirectDim()*m.M
}

// IsClassifier reports whether the model predicts classes.
func (m *Model) IsClassifier() bool { return m.Classes != nil }

// weights returns the nodes' weights over the flattened image, L x d.
func (m *Model) weights() []float32 {
	nm := m.nodeMap()
	np, d := nm.Size(), m.Dim()
	w := make([]float32, len(m.Bias)*d)
	for j := range m.Bias {
		nm.Weight(m.Params[j*np:(j+1)*np], w[j*d:(j+1)*d])
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
	if x.Chans() != m.Chans() {
		return fmt.Errorf("%w: images have %s, the model takes %s", ErrData, chanString(x.Chans()), chanString(m.Chans()))
	}
	return nil
}

// predictBatch is the number of images pushed through the network per
// matrix product. Each image's outputs do not depend on the batch it is
// in (TestPredictorMatchesPredict). 128 rather than 512: measured with scn
// serve (2D model, L = 1000, JSON batches of 256) the peak RSS fell from
// 64-68 to 58 MiB at the same images/s (when a pass's hidden outputs were
// L x batch; they are now predictNodeChunk x batch).
const predictBatch = 128

// hidden calls f with the hidden outputs of consecutive batches of images,
// starting at image lo, as an L x rows matrix (row j: node j on each image).
// It uses the same kernel as the fit's candidate scoring, so that the hidden
// outputs of the training images are bit for bit those the fit saw.
func (m *Model) hidden(x Images, f func(lo, rows int, h []float32)) {
	if m.Local != nil {
		m.hiddenLocal(x, f)
		return
	}
	w := m.weights()
	n, d, l, l1 := x.Len(), x.Dim(), m.Nodes(), len(m.Bias)
	h := make([]float32, l*predictBatch)
	var xt []float32
	for lo := 0; lo < n; lo += predictBatch {
		rows := min(predictBatch, n-lo)
		hb := h[:l*rows]
		linalg.ScoreNT(l1, rows, d, w, x.Pix[lo*d:(lo+rows)*d], hb, rows)
		act := m.Activation
		forChunks(l1, 16, func(_, a, b int) {
			for j := a; j < b; j++ {
				act.applyRow(hb[j*rows:(j+1)*rows], m.Bias[j])
			}
		})
		m.forwardDeep(hb, rows, &xt)
		f(lo, rows, hb)
	}
}

// Predict returns the network's outputs on x, N x M row-major, through a
// Predictor made for the call (for many small calls with one model, keep
// one Predictor: it keeps its working memory between calls).
func (m *Model) Predict(x Images) ([]float64, error) { return NewPredictor(m).Predict(x) }

// Classify returns the predicted class (arg-max output) of each image:
// for a calibrated model, the arg-max of its probabilities (the same
// unless the map is a logistic read-out).
func (m *Model) Classify(x Images) ([]int, error) {
	y, err := m.Predict(x)
	if err != nil {
		return nil, err
	}
	return m.classesOf(y), nil
}

// ArgMax returns the index of the largest value of each row of y (N x m).
func ArgMax(y []float64, m int) []int { return score.ArgMax(y, m) }

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
func Accuracy(pred, labels []int) float64 { return score.Accuracy(pred, labels) }

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
func RMSE(y, t []float64) float64 { return score.RMSE(y, t) }

// truncate returns a shallow copy of m with its first l nodes and the given
// output weights.
func (m *Model) truncate(l int, beta []float64) (*Model, error) {
	if l < 1 || l > m.Nodes() {
		return nil, fmt.Errorf("scn: prefix of %d nodes of a model with %d", l, m.Nodes())
	}
	p := *m
	np := m.ParamsPerNode()
	l1 := min(l, len(m.Bias))
	p.Params = m.Params[: l1*np : l1*np]
	p.Bias = m.Bias[:l1:l1]
	p.Deep = m.truncateDeep(l)
	if len(p.Deep) == 0 {
		p.Deep = nil
	}
	p.Beta = beta
	p.Summary.Nodes = l
	return &p, nil
}

// hiddenDense returns the hidden outputs of m on x as a float64 N x L matrix.
func hiddenDense(m *Model, x Images) *mat.Dense {
	l := m.Nodes()
	h := mat.NewDense(x.Len(), l, nil)
	raw := h.RawMatrix().Data
	m.hidden(x, func(lo, rows int, hb []float32) {
		for j := 0; j < l; j++ {
			for i, v := range hb[j*rows : (j+1)*rows] {
				raw[(lo+i)*l+j] = float64(v)
			}
		}
	})
	return h
}

// Indicator returns the generalization indicator Theta_raw of the paper
// (the test-error bound of Li and Wang's 2DSCN paper) on the training images x:
//
//	||g'(H) o W||_F * ||beta||_F
//
// where H (N x L) holds the hidden outputs, g'(H) the activation's slope
// written in terms of them (H o (1-H) for the sigmoid, so that for the
// sigmoid this is the paper's ||H o (1-H) o W||_F), and W repeats the row of
// weight norms ||w_j|| (||u_j|| ||v_j|| for matrix learners). A model with
// direct links counts each direct feature as a linear node (slope 1) whose
// weight is the feature's averaging vector (norm 1/p for p x p pooling, 1
// for pixels), and its output weights in ||beta||_F: see direct.go.
func (m *Model) Indicator(x Images) (float64, error) {
	if err := m.refuseLocal("the generalization indicator"); err != nil {
		return 0, err
	}
	if err := m.checkInput(x); err != nil {
		return 0, err
	}
	if m.IsDeep() {
		return 0, fmt.Errorf("%w: the generalization indicator is defined for one hidden layer", ErrDeep)
	}
	nm := m.nodeMap()
	np, l := nm.Size(), m.Nodes()
	wn := make([]float64, l)
	for j := range wn {
		wn[j] = nm.WeightNorm(m.Params[j*np : (j+1)*np])
	}
	var sum float64
	m.hidden(x, func(_, rows int, h []float32) {
		for i, v := range h {
			s := m.Activation.slope(float64(v)) * wn[i/rows]
			sum += s * s
		}
	})
	var bb float64
	for _, b := range m.Beta {
		bb += b * b
	}
	ds, dw := m.directIndicatorTerm(x.Len())
	sum, bb = sum+ds, bb+dw
	return math.Sqrt(sum) * math.Sqrt(bb), nil
}

// chanString describes a number of channels: "1 channel (grey)" or
// "3 channels".
func chanString(c int) string {
	if c <= 1 {
		return "1 channel (grey)"
	}
	return fmt.Sprintf("%d channels", c)
}
