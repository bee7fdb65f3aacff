package scn

import (
	"errors"
	"fmt"

	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/node"
)

// LocalLayer is the hidden layer of a model of local nodes (Config.Local):
// banks of filters, one per filter size, the standardisation of their
// pooled outputs and the second layer's bank (internal/localnet's Layer).
// The model's Params and Bias are then empty, and Beta holds one row per
// pooled output, bank by bank, filter by filter.
type LocalLayer = localnet.Layer

// LocalBank is the filters of one size (internal/localnet's Bank).
type LocalBank = localnet.Bank

// mapsOf returns how the filters of a learner of input map in and
// activation act read images.
func mapsOf(in InputMap, act Activation) localnet.Maps {
	return localnet.Maps{Matrix: in == Matrix, Act: node.Activation(act)}
}

// localNet returns a local model's layer on its images.
func (m *Model) localNet() localnet.Net {
	return localnet.Net{Maps: mapsOf(m.Kind.Input, m.Activation), Layer: m.Local, Rows: m.Rows, Cols: m.Cols, Chans: m.Chans()}
}

// filterMap returns the node map of a filter of side k: the 2D learners'
// separable u v^T (x w) or the 1D learners' full weights.
func filterMap(in InputMap, k, chans int) nodeMap { return mapsOf(in, 0).FilterMap(k, chans) }

// localOutputs returns the pooled outputs of a local model, 0 for others.
func (m *Model) localOutputs() int {
	if m.Local == nil {
		return 0
	}
	return m.Local.Outputs()
}

// localParamCount returns the trained numbers of a local model's filters
// and standardisation (its output weights are counted with the nodes).
func (m *Model) localParamCount() int {
	if m.Local == nil {
		return 0
	}
	return m.Local.ParamCount(m.M)
}

// predictLocal returns the outputs of a local model on x (checked).
func (m *Model) predictLocal(x Images) ([]float64, error) {
	return m.localNet().Predict(x.Pix, x.Len(), m.Beta, m.M)
}

// hiddenLocal calls f with the pooled outputs of consecutive batches of
// images as Model.hidden does (L x rows, node-major).
func (m *Model) hiddenLocal(x Images, f func(lo, rows int, h []float32)) {
	m.localNet().Hidden(x.Pix, x.Len(), f)
}

// LocalWeights returns the full weights of bank i of a local model, F x C
// x k x k row-major (for a 2D learner, (u_a v_b) w_c in float32, the
// weights the model applies).
// With whitening, the weights are those it applies to the patches as
// read: the whitening matrix times the filter's weights.
func (m *Model) LocalWeights(i int) []float32 {
	return mapsOf(m.Kind.Input, m.Activation).Weights(m.Local.Banks[i], m.Chans())
}

// SecondWeights returns the full weights of the second layer of a
// two-layer local model, F2 x P x k2 x k2 row-major (P planes: the first
// layer's pooled maps, filter j's g(z) then g(-z) two-sided), the
// planes' standardisation folded in; nil for other models.
func (m *Model) SecondWeights() []float32 {
	if m.Local == nil {
		return nil
	}
	return m.localNet().SecondWeights()
}

// SecondParamsPerFilter returns the parameters of one filter of the second
// layer of local nodes, the bias excluded (0 without a second layer): 2
// k2 + P for matrix learners, P k2^2 for vector ones, P being the planes
// it reads (the first layer's maps).
func (in Info) SecondParamsPerFilter() int {
	return mapsOf(in.Kind.Input, 0).SecondPerFilter(in.Local, in.Rows, in.Cols)
}

// ErrLocal is wrapped by the errors of what models of local nodes do not
// support yet.
var ErrLocal = errors.New("scn: not available for local nodes")

// refuseLocal returns an error wrapping ErrLocal for a local model.
func (m *Model) refuseLocal(what string) error {
	if m.Local == nil {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrLocal, what)
}

// localPredictBytes is PredictBytes for a local model (internal/memest's
// LocalPredict), with the second layer's.
func (m *Model) localPredictBytes(n int) int64 {
	return m.localNet().PredictBytes(n, m.M, m.Nodes())
}
