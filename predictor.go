package scn

import (
	"sync"

	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/node"
	"github.com/scn2d/scn/internal/predict"
	"github.com/scn2d/scn/internal/score"
)

// Predictor answers many small prediction requests with one model, as a
// server does, keeping its working memory between calls; Model.Predict is
// a Predictor made for one call. It adds nothing to the model's own
// parameters: a 1D model's nodes are scored with their weights as they
// are, a 2D model's nodes in their u^T X v form (linalg.Score2D), never
// expanded to d1 x d2 weights (ten times a 2D model's file at 28 x 28).
// Its working memory does not grow with the model either: the images go
// through in passes of predictBatch, and the nodes of each pass in chunks
// of predictNodeChunk, whose outputs are added to the network's outputs
// (float64) before the next chunk is scored. Each image's outputs are the
// same bits whatever other images share its pass (TestPredictorMatchesPredict).
// A 2D model of C > 1 channels scores each plane as a grey one
// (node.Matrix.Score: linalg.Score2DStride, reading the plane in place) and sums
// w_c u^T X_c v over the planes in float32, channel by channel: C times
// the grey work, with one more chunk of node inputs as scratch.
// It is safe for concurrent use.
type Predictor struct {
	m       *Model
	scratch sync.Pool // *predict.Scratch
	deep    sync.Pool // *deep.Scratch, for deep models
}

// predictNodeChunk is the nodes scored at a time in a prediction pass.
const predictNodeChunk = 256

// NewPredictor prepares m for repeated prediction. m must not change
// afterwards.
func NewPredictor(m *Model) *Predictor { return &Predictor{m: m} }

// Model returns the model the predictor was made from.
func (p *Predictor) Model() *Model { return p.m }

// Predict returns the network's outputs on x, N x M row-major, as
// Model.Predict does.
func (p *Predictor) Predict(x Images) ([]float64, error) {
	m := p.m
	if err := m.checkInput(x); err != nil {
		return nil, err
	}
	if m.IsDeep() {
		return p.predictDeep(x), nil
	}
	if m.Local != nil {
		return m.predictLocal(x)
	}
	net := predict.Net{Vector: m.Kind.Input == Vector, Rows: m.Rows, Cols: m.Cols, Ch: m.Chans(), NP: m.ParamsPerNode(), M: m.M,
		Act: node.Activation(m.Activation), Params: m.Params, Bias: m.Bias, Beta: m.Beta,
		Batch: predictBatch, Chunk: predictNodeChunk}
	if m.Direct != nil {
		net.DirectPool, net.DirectDim, net.DirectBeta = m.Direct.Pool, m.DirectDim(), m.Direct.Beta
	}
	sc, _ := p.scratch.Get().(*predict.Scratch)
	sc = net.Scratch(sc, x.Len())
	defer p.scratch.Put(sc)
	return net.Predict(direct.Images(x), x.Len(), x.Dim(), sc), nil
}

// TopK returns the indices of the k largest values of y, largest first
// (ties in index order); all of them if k >= len(y), none if k <= 0.
func TopK(y []float64, k int) []int { return score.TopK(y, k) }
