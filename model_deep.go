package scn

import (
	"github.com/scn2d/scn/internal/deep"
	"github.com/scn2d/scn/internal/fitcfg"
	"github.com/scn2d/scn/internal/node"
)

// Layer is one further layer of a deep model: Nodes() supervised vector
// nodes, each reading the outputs of every node of the layer before
// (fields Params, Nodes() rows of the previous layer's width, and Bias;
// the arithmetic is internal/deep's).
type Layer = deep.Layer

// ErrDeep is wrapped by the refusals of what deep models do not support.
var ErrDeep = fitcfg.ErrDeep

// IsDeep reports whether the model has layers after the first.
func (m *Model) IsDeep() bool { return len(m.Deep) > 0 }

// LayerSizes returns the node count of each layer, the first included.
func (m *Model) LayerSizes() []int { return deep.Sizes(len(m.Bias), m.Deep) }

// deepNodes returns the nodes of the layers after the first.
func (m *Model) deepNodes() int { return deep.Nodes(m.Deep) }

// deepParamCount returns every trained number of the further layers:
// each node's weights (the previous layer's width), bias and output weights.
func (m *Model) deepParamCount() int { return deep.ParamCount(len(m.Bias), m.M, m.Deep) }

// checkDeep reports whether the further layers' slices agree.
func (m *Model) checkDeep() error { return deep.Check(len(m.Bias), m.Deep) }

// forwardDeep fills the outputs of the further layers in h, node-major
// (row j holds node j on each of rows images), whose first len(m.Bias) rows
// hold the first layer's outputs; xt is scratch (deep.Forward).
func (m *Model) forwardDeep(h []float32, rows int, xt *[]float32) {
	deep.Forward(m.Deep, node.Activation(m.Activation), len(m.Bias), h, rows, xt)
}

// truncateDeep returns the further layers of a prefix of l nodes (l beyond
// the first layer): whole layers, then part of the one l ends in.
func (m *Model) truncateDeep(l int) []Layer { return deep.Truncate(len(m.Bias), m.Deep, l) }

// predictDeep returns a deep model's outputs on x (checked by the caller;
// deep.Net.Predict).
func (p *Predictor) predictDeep(x Images) []float64 {
	m := p.m
	sc, _ := p.deep.Get().(*deep.Scratch)
	if sc == nil {
		sc = &deep.Scratch{}
	}
	defer p.deep.Put(sc)
	net := deep.Net{Vector: m.Kind.Input == Vector, Rows: m.Rows, Cols: m.Cols, NP: m.ParamsPerNode(), M: m.M,
		Act: node.Activation(m.Activation), Params: m.Params, Bias: m.Bias, Beta: m.Beta, Layers: m.Deep,
		Batch: predictBatch, Chunk: predictNodeChunk}
	return net.Predict(x.Pix, x.Len(), x.Dim(), sc)
}
