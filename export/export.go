// Package export writes a fitted model in formats other tools run: an ONNX
// graph (ONNX) and NumPy arrays (NPZ).
//
// # ONNX
//
// The graph uses opset 13 of the default ONNX domain (IR version 7), so
// that any runtime from onnxruntime 1.6 on runs it. Its input "x" is a
// float32 tensor N x d1 x d2 (N free): the images after the model's
// recorded preprocessing, pixels in [0, 1], exactly what Model.Predict
// takes. Its output "y" (float64, N x m) holds the network's outputs, and
// for classifiers "class" (int64, N) the index of the largest output (the
// first on ties, as scn.ArgMax). The network itself:
//
//	2D models (2DSCN, 2DRVFL), node j: g(u_j^T X v_j + b_j), the u^T X v
//	structure kept (L (d1 + d2) weights, not L d1 d2):
//	    XV = MatMul(x, V)                 N x d1 x L   (V: d2 x L, column j = v_j)
//	    P  = Mul(XV, Ut)                  N x d1 x L   (Ut: d1 x L, column j = u_j)
//	    Z  = ReduceSum(P, axes=[1])       N x L        (keepdims = 0)
//	2D models with ONNXOptions.Expand: the weights formed from u and v
//	once (runtimes fold these nodes at load), then one MatMul:
//	    Wt = Reshape(Mul(Unsqueeze(Ut, [1]), Unsqueeze(V, [0])), [d, L])
//	    Z  = MatMul(Reshape(x, [-1, d]), Wt)   N x L
//	1D models (SCN, RVFL), node j: g(w_j^T vec(X) + b_j):
//	    F  = Reshape(x, [-1, d1 d2])      N x d
//	    Z  = MatMul(F, Wt)                N x L        (Wt: d x L, column j = w_j)
//	then, for both:
//	    H  = Sigmoid|Tanh|Relu(Add(Z, b)) N x L        float32
//	    y  = MatMul(Cast(H, double), beta) N x m       (beta: L x m, float64)
//	    class = ArgMax(y, axis=1, keepdims=0)
//
// A model of C > 1 channels (scn.Model.Channels: colour) takes x as
// N x C x d1 x d2 (channel planes, the layout of scn.Images) and records
// "channels" in metadata_props. Its 1D nodes read Reshape(x, [-1, C d1 d2]);
// its 2D nodes are the 3-way g(sum_c w_jc u_j^T X_c v_j + b_j):
//
//	XV = MatMul(x, V)                 N x C x d1 x L
//	ZC = ReduceSum(Mul(XV, Ut), [2])  N x C x L
//	Z  = ReduceSum(Mul(ZC, Wc), [1])  N x L        (Wc: C x L, column j = w_j)
//
// and with Expand the weights are Mul(Unsqueeze(Wc, [1, 2]), UV) reshaped
// to [C d1 d2, L] (UV the d1 x d2 x L product above).
// A deep model (scn.Config.Layers) adds, for each further layer k, one
// MatMul and activation on the previous layer's outputs, and its output
// layer reads every layer's nodes:
//
//	Hk = Sigmoid|Tanh|Relu(Add(MatMul(H{k-1}, Wk_t), bk))  N x L_k
//	y  = MatMul(Cast(Concat(H, H2, ..., axis=1), double), beta)
//
// with Wk_t (L_{k-1} x L_k, column j = node j's weights), bk (L_k) and
// beta (L_1 + L_2 + ... x m, the first layer's rows first).
//
// The hidden weights and biases are stored as float32 raw data, as the
// model holds them; beta is stored as float64, as the model holds it, and
// the output layer is computed in float64 as Model.Predict does. The hidden
// layer is float32 in both, summed in a different order, so outputs agree
// to about 1e-6 relative (tested against onnxruntime to 1e-5 for every kind
// and activation). The model's kind, activation, shapes, class names and
// metadata (preprocessing) are in the ONNX model's metadata_props.
//
// # NPZ
//
// NPZ returns the arrays u (L x d1) and v (L x d2) for 2D models or W
// (L x d1 d2) for 1D ones (float32), b (L, float32), beta (L x m, float64,
// every layer's rows for a deep model), for a deep model's further layers
// W2, b2, W3, b3, ... (Wk: L_k x L_{k-1}, bk: L_k, float32) and layers
// (the node count of every layer, int64),
// shape ([d1, d2], int64), and as unicode strings kind, activation, classes
// (empty for regression) and preprocessing (the JSON the command line
// records); numpy.load reads them with allow_pickle=False. A model of
// C > 1 channels adds w (L x C, the channel weights) for 2D models, has W of
// L x C d1 d2 for 1D ones, and shape [C, d1, d2].
//
// # Calibration
//
// A calibrated classifier (scn.Model.Calibration) adds to the ONNX graph
// the output "probability" (float64, N x m): Softmax(Div(y, T), axis 1)
// for a temperature map, Softmax(Add(MatMul(y, At), cb), axis 1) for a
// logistic one (At the transposed matrix A, m x m, cb its offsets), the
// probabilities Model.Probabilities gives; "class" is then
// the arg-max of the probabilities. A regression model with conformal
// intervals (scn.Model.Interval) adds "lower" = Sub(y, r) and "upper" =
// Add(y, r) (float64, N x m), r the radii. The NPZ file carries the map as
// calibration_method and temperature, and for a logistic map calibration_a
// (m x m) and calibration_b (m); the intervals as interval_radius (m) and interval_coverage;
// class weights as class_weights (m).
package export

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/scn2d/scn"

	"github.com/scn2d/scn/internal/atomicfile"
)

// Opset is the version of the default ONNX operator set the graph uses.
const Opset = 13

// irVersion is the ONNX IR version that goes with opset 13.
const irVersion = 7

// MetaPreprocess is the key of the exported files' metadata under which
// the model's preprocessing record (scn.PreprocessRecord) is written as a
// JSON object.
const MetaPreprocess = "preprocess"

// check reports whether m is a complete model this package can export.
func check(m *scn.Model) error {
	if m == nil {
		return fmt.Errorf("export: nil model")
	}
	if !slices.Contains(scn.Kinds(), m.Kind) {
		return fmt.Errorf("export: unknown model kind %v", m.Kind)
	}
	switch m.Activation {
	case scn.Sigmoid, scn.Tanh, scn.ReLU:
	default:
		return fmt.Errorf("export: unknown activation %v", m.Activation)
	}
	if m.Local != nil {
		return checkLocal(m)
	}
	l := len(m.Bias)
	if m.Rows < 1 || m.Cols < 1 || m.M < 1 || l < 1 && m.Direct == nil {
		return fmt.Errorf("export: model of %d x %d inputs, %d outputs and %d nodes", m.Rows, m.Cols, m.M, l)
	}
	if len(m.Params) != l*m.ParamsPerNode() || len(m.Beta) != m.Nodes()*m.M {
		return fmt.Errorf("export: model with %d hidden parameters and %d output weights for %d nodes", len(m.Params), len(m.Beta), m.Nodes())
	}
	prev := l
	for k, ly := range m.Deep {
		if ly.Nodes() < 1 || len(ly.Params) != ly.Nodes()*prev {
			return fmt.Errorf("export: layer %d holds %d weights for %d nodes of %d inputs", k+2, len(ly.Params), ly.Nodes(), prev)
		}
		prev = ly.Nodes()
	}
	if m.Direct != nil && (m.Direct.Pool < 1 || len(m.Direct.Beta) != m.DirectDim()*m.M || m.IsDeep()) {
		return fmt.Errorf("export: direct links of %d weights for %d features and %d outputs", len(m.Direct.Beta), m.DirectDim(), m.M)
	}
	if m.Classes != nil && len(m.Classes) != m.M {
		return fmt.Errorf("export: %d class names for %d outputs", len(m.Classes), m.M)
	}
	return nil
}

// preprocessing returns the preprocessing the model records
// (Model.Preprocessing), as JSON ("{}" when it records none).
func preprocessing(m *scn.Model) string {
	b, err := json.Marshal(m.Preprocessing)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// writeAtomic writes a file through a temporary file in the same folder,
// synced and renamed over path, as the model files are written (see
// internal/atomicfile: the umask and an existing file's mode are kept, a
// device is written to, never replaced).
func writeAtomic(path string, write func(io.Writer) error) error {
	if err := atomicfile.Write(path, write); err != nil {
		return fmt.Errorf("export: write %s: %w", path, err)
	}
	return nil
}
