package scn

import (
	"sync"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/node"
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
	scratch sync.Pool // *predictScratch
	deep    sync.Pool // *deep.Scratch, for deep models
}

// predictNodeChunk is the nodes scored at a time in a prediction pass.
const predictNodeChunk = 256

// predictScratch is the working memory of one Predict call, kept for the
// next: a server's many small calls would otherwise allocate and clear it
// every time. Every value used is written before it is read: the scoring
// kernels write h, the loop h64, Dgemm (with beta 0 on the first chunk) yt.
type predictScratch struct {
	h   []float32 // a chunk's node inputs, then outputs, node-major
	hc  []float32 // one channel's u^T X_c v (models of several channels)
	h64 []float64
	yt  []float64 // the outputs, M x rows
	fd  []float64 // direct features, D x rows (models with direct links)
}

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
	n, d, l := x.Len(), x.Dim(), m.Nodes()
	batch, chunk := min(n, predictBatch), min(l, predictNodeChunk)
	out := make([]float64, n*m.M)
	sc, _ := p.scratch.Get().(*predictScratch)
	if sc == nil || len(sc.h) < chunk*batch || len(sc.yt) < m.M*batch {
		sc = &predictScratch{h: make([]float32, chunk*batch), h64: make([]float64, chunk*batch), yt: make([]float64, m.M*batch)}
	}
	defer p.scratch.Put(sc)
	np := m.ParamsPerNode()
	act := m.Activation
	for lo := 0; lo < n; lo += predictBatch {
		rows := min(predictBatch, n-lo)
		xb := x.Pix[lo*d : (lo+rows)*d]
		yt := sc.yt[:m.M*rows]
		for j0 := 0; j0 < l; j0 += predictNodeChunk {
			c := min(predictNodeChunk, l-j0)
			hb := sc.h[:c*rows]
			switch {
			case m.Kind.Input == Vector:
				linalg.ScoreNT(c, rows, d, m.Params[j0*d:], xb, hb, rows)
			case m.Chans() > 1:
				sc.hc = grow(sc.hc, c*rows)
				node.Matrix{Rows: m.Rows, Cols: m.Cols, Ch: m.Chans()}.Score(c, rows, m.Params[j0*np:], xb, hb, sc.hc)
			default:
				linalg.Score2D(c, rows, m.Rows, m.Cols, m.Params[j0*np:], np, xb, hb, rows)
			}
			forChunks(c, 16, func(_, a, b int) {
				for j := a; j < b; j++ {
					act.applyRow(hb[j*rows:(j+1)*rows], m.Bias[j0+j])
				}
			})
			hd := sc.h64[:c*rows]
			for i, v := range hb {
				hd[i] = float64(v)
			}
			// Y^T += beta_chunk^T H_chunk^T in float64.
			beta0 := 1.0
			if j0 == 0 {
				beta0 = 0
			}
			linalg.Dgemm(true, false, m.M, rows, c, 1, m.Beta[j0*m.M:], m.M, hd, rows, beta0, yt, rows)
		}
		if l == 0 {
			clear(yt)
		}
		if m.Direct != nil {
			m.addDirect(x, lo, rows, yt, &sc.fd)
		}
		for q := 0; q < m.M; q++ {
			for i, v := range yt[q*rows : (q+1)*rows] {
				out[(lo+i)*m.M+q] = v
			}
		}
	}
	return out, nil
}

// TopK returns the indices of the k largest values of y, largest first
// (ties in index order); all of them if k >= len(y), none if k <= 0.
func TopK(y []float64, k int) []int { return score.TopK(y, k) }
