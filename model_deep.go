package scn

import (
	"errors"
	"fmt"

	"github.com/scn2d/scn/internal/linalg"
)

// Layer is one further layer of a deep model: Nodes() supervised vector
// nodes, each reading the outputs of every node of the layer before.
type Layer struct {
	// Params holds the nodes' weights, Nodes() rows of the previous
	// layer's width.
	Params []float32
	Bias   []float32
}

// Nodes returns the layer's node count.
func (l Layer) Nodes() int { return len(l.Bias) }

// ErrDeep is wrapped by the refusals of what deep models do not support.
var ErrDeep = errors.New("scn: not supported for deep models (Config.Layers)")

// IsDeep reports whether the model has layers after the first.
func (m *Model) IsDeep() bool { return len(m.Deep) > 0 }

// LayerSizes returns the node count of each layer, the first included.
func (m *Model) LayerSizes() []int {
	s := []int{len(m.Bias)}
	for _, l := range m.Deep {
		s = append(s, l.Nodes())
	}
	return s
}

// deepNodes returns the nodes of the layers after the first.
func (m *Model) deepNodes() int {
	n := 0
	for _, l := range m.Deep {
		n += l.Nodes()
	}
	return n
}

// deepParamCount returns every trained number of the further layers:
// each node's weights (the previous layer's width), bias and output weights.
func (m *Model) deepParamCount() int {
	n, prev := 0, len(m.Bias)
	for _, l := range m.Deep {
		n += l.Nodes() * (prev + 1 + m.M)
		prev = l.Nodes()
	}
	return n
}

// checkDeep reports whether the further layers' slices agree.
func (m *Model) checkDeep() error {
	prev := len(m.Bias)
	for k, l := range m.Deep {
		if l.Nodes() == 0 {
			return fmt.Errorf("scn: layer %d has no nodes", k+2)
		}
		if len(l.Params) != l.Nodes()*prev {
			return fmt.Errorf("scn: layer %d holds %d weights for %d nodes of %d inputs", k+2, len(l.Params), l.Nodes(), prev)
		}
		if !finite32(l.Params) {
			return fmt.Errorf("scn: layer %d has a non-finite weight", k+2)
		}
		if !finite32(l.Bias) {
			return fmt.Errorf("scn: layer %d has a non-finite bias", k+2)
		}
		prev = l.Nodes()
	}
	return nil
}

// forwardDeep fills the outputs of the further layers in h, node-major
// (row j holds node j on each of rows images), whose first len(m.Bias) rows
// hold the first layer's outputs; xt is scratch. Each layer's outputs are
// the scoring kernel's on the previous layer's outputs, as the fit scores
// that layer's candidates.
func (m *Model) forwardDeep(h []float32, rows int, xt *[]float32) {
	off, prev := 0, len(m.Bias)
	for _, l := range m.Deep {
		in := h[off*rows : (off+prev)*rows]
		*xt = grow(*xt, rows*prev)
		t := *xt
		for j := 0; j < prev; j++ {
			for i, v := range in[j*rows : (j+1)*rows] {
				t[i*prev+j] = v
			}
		}
		off += prev
		c := l.Nodes()
		out := h[off*rows : (off+c)*rows]
		linalg.ScoreNT(c, rows, prev, l.Params, t, out, rows)
		act := m.Activation
		forChunks(c, 16, func(_, a, b int) {
			for j := a; j < b; j++ {
				act.applyRow(out[j*rows:(j+1)*rows], l.Bias[j])
			}
		})
		prev = c
	}
}

// truncateDeep returns the further layers of a prefix of l nodes (l beyond
// the first layer): whole layers, then part of the one l ends in.
func (m *Model) truncateDeep(l int) []Layer {
	l -= len(m.Bias)
	var out []Layer
	prev := len(m.Bias)
	for _, ly := range m.Deep {
		if l <= 0 {
			break
		}
		c := min(l, ly.Nodes())
		out = append(out, Layer{Params: ly.Params[: c*prev : c*prev], Bias: ly.Bias[:c:c]})
		l -= c
		prev = ly.Nodes()
	}
	return out
}

// deepScratch is the working memory of a deep model's prediction pass.
type deepScratch struct {
	h, xt []float32 // every node's outputs (node-major), transposed inputs
	h64   []float64
	yt    []float64
}

// predictDeep returns a deep model's outputs on x (checked by the caller):
// each pass of predictBatch images scores the first layer as the shallow
// Predictor does (Score2D for matrix nodes), then every further layer
// (forwardDeep), and forms the outputs from all nodes in float64. Each
// image's outputs do not depend on the other images of the call.
func (p *Predictor) predictDeep(x Images) []float64 {
	m := p.m
	n, d, l, l1 := x.Len(), x.Dim(), m.Nodes(), len(m.Bias)
	out := make([]float64, n*m.M)
	sc, _ := p.deep.Get().(*deepScratch)
	if sc == nil {
		sc = &deepScratch{}
	}
	defer p.deep.Put(sc)
	np := m.ParamsPerNode()
	for lo := 0; lo < n; lo += predictBatch {
		rows := min(predictBatch, n-lo)
		xb := x.Pix[lo*d : (lo+rows)*d]
		sc.h = grow(sc.h, l*rows)
		h := sc.h
		if m.Kind.Input == Vector {
			linalg.ScoreNT(l1, rows, d, m.Params, xb, h, rows)
		} else {
			forChunks(l1, predictNodeChunk, func(_, a, b int) {
				linalg.Score2D(b-a, rows, m.Rows, m.Cols, m.Params[a*np:], np, xb, h[a*rows:], rows)
			})
		}
		act := m.Activation
		forChunks(l1, 16, func(_, a, b int) {
			for j := a; j < b; j++ {
				act.applyRow(h[j*rows:(j+1)*rows], m.Bias[j])
			}
		})
		m.forwardDeep(h, rows, &sc.xt)
		sc.h64 = grow(sc.h64, l*rows)
		for i, v := range h {
			sc.h64[i] = float64(v)
		}
		sc.yt = grow(sc.yt, m.M*rows)
		linalg.Dgemm(true, false, m.M, rows, l, 1, m.Beta, m.M, sc.h64, rows, 0, sc.yt, rows)
		for q := 0; q < m.M; q++ {
			for i, v := range sc.yt[q*rows : (q+1)*rows] {
				out[(lo+i)*m.M+q] = v
			}
		}
	}
	return out
}
