package scn

import (
	"sort"
	"sync"

	"github.com/scn2d/scn/internal/linalg"
)

// Predictor answers many small prediction requests with one model, as a
// server does, keeping its working memory between calls; Model.Predict is
// a Predictor made for one call. A 1D model's parameters are its weights,
// used as they are. A 2D model's nodes u^T X v are scored as w^T vec(X)
// with w = vec(u v^T), the fit's kernel. The expanded weights (L x d1 d2
// float32, ten times a 2D model's file at 28 x 28) are kept when they take
// at most expandLimit bytes; larger models are expanded chunk by chunk of
// predictNodeChunk nodes in each call (for a 2D model of 20000 nodes on
// 112 x 92 faces the whole expansion would be 824 MB for a 16 MB file).
// Chunks cost d1 d2 multiplications per node and pass, as much as scoring
// one image: measured on a server answering single-image requests, 66%
// more CPU per request, for 2 MB less peak memory at L = 1000 on 28 x 28,
// hence the limit. A node's output does not depend on the group it is
// scored in (linalg.ScoreNT), so either way the outputs are the bits the
// fit saw. It is safe for concurrent use.
type Predictor struct {
	m       *Model
	w       []float32 // a 1D model's weights, L x d; nil for a 2D model
	scratch sync.Pool // *predictScratch
}

// predictNodeChunk is the nodes whose weights a 2D model's prediction
// expands at a time when it does not keep them: 128 x 784 float32 is 392
// KB at 28 x 28.
const predictNodeChunk = 128

// expandLimit is the most bytes of expanded 2D weights a Predictor keeps
// (a variable so that tests can force the chunked path).
var expandLimit = 64 << 20

// predictScratch is the working memory of one Predict call, kept for the
// next: a server's many small calls would otherwise allocate and clear it
// every time. Every value used is written before it is read: ScoreNT
// writes h, the loop h64, Dgemm (with beta 0) yt.
type predictScratch struct {
	h   []float32
	h64 []float64
	yt  []float64
	w   []float32 // a chunk of a 2D model's expanded weights
}

// NewPredictor prepares m for repeated prediction. m must not change
// afterwards.
func NewPredictor(m *Model) *Predictor {
	if m.Kind.Input == Vector { // the weights are the parameters: no copy
		return &Predictor{m: m, w: m.Params}
	}
	if float64(m.Nodes())*float64(m.Rows*m.Cols)*4 <= float64(expandLimit) {
		return &Predictor{m: m, w: m.weights()}
	}
	return &Predictor{m: m} // expanded by chunks in each call
}

// Model returns the model the predictor was made from.
func (p *Predictor) Model() *Model { return p.m }

// Predict returns the network's outputs on x, N x M row-major, as
// Model.Predict does.
func (p *Predictor) Predict(x Images) ([]float64, error) {
	m := p.m
	if err := m.checkInput(x); err != nil {
		return nil, err
	}
	n, d, l := x.Len(), x.Dim(), m.Nodes()
	batch := min(n, predictBatch)
	out := make([]float64, n*m.M)
	sc, _ := p.scratch.Get().(*predictScratch)
	if sc == nil || len(sc.h) < l*batch {
		sc = &predictScratch{h: make([]float32, l*batch), h64: make([]float64, l*batch), yt: make([]float64, m.M*batch)}
	}
	defer p.scratch.Put(sc)
	h, h64, yt := sc.h, sc.h64, sc.yt
	act := m.Activation
	for lo := 0; lo < n; lo += predictBatch {
		rows := min(predictBatch, n-lo)
		hb := h[:l*rows]
		// As Model.hidden: the fit's scoring kernel, then g(z + b) by node.
		xb := x.Pix[lo*d : (lo+rows)*d]
		if p.w != nil {
			linalg.ScoreNT(l, rows, d, p.w, xb, hb, rows)
		} else {
			p.scoreMatrix(sc, xb, rows, hb)
		}
		forChunks(l, 16, func(_, a, b int) {
			for j := a; j < b; j++ {
				act.applyRow(hb[j*rows:(j+1)*rows], m.Bias[j])
			}
		})
		// As Model.Predict: Y^T = beta^T H^T in float64.
		hd := h64[:rows*l]
		for i, v := range hb {
			hd[i] = float64(v)
		}
		linalg.Dgemm(true, false, m.M, rows, l, 1, m.Beta, m.M, hd, rows, 0, yt, rows)
		for q := 0; q < m.M; q++ {
			for i, v := range yt[q*rows : (q+1)*rows] {
				out[(lo+i)*m.M+q] = v
			}
		}
	}
	return out, nil
}

// scoreMatrix writes a 2D model's node inputs z = vec(u v^T)^T vec(X) for
// the rows images xb into hb (node-major), expanding the weights by chunks
// of predictNodeChunk nodes into the scratch.
func (p *Predictor) scoreMatrix(sc *predictScratch, xb []float32, rows int, hb []float32) {
	m := p.m
	nm := newNodeMap(m.Kind.Input, m.Rows, m.Cols)
	np, d, l := nm.size(), m.Rows*m.Cols, m.Nodes()
	if len(sc.w) < predictNodeChunk*d {
		sc.w = make([]float32, predictNodeChunk*d)
	}
	for j0 := 0; j0 < l; j0 += predictNodeChunk {
		c := min(predictNodeChunk, l-j0)
		w := sc.w[:c*d]
		for j := 0; j < c; j++ {
			nm.weight(m.Params[(j0+j)*np:(j0+j+1)*np], w[j*d:(j+1)*d])
		}
		linalg.ScoreNT(c, rows, d, w, xb, hb[j0*rows:], rows)
	}
}

// TopK returns the indices of the k largest values of y, largest first
// (ties in index order); all of them if k >= len(y), none if k <= 0.
func TopK(y []float64, k int) []int {
	idx := make([]int, len(y))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return y[idx[a]] > y[idx[b]] })
	return idx[:max(0, min(k, len(idx)))]
}
