package deep

import (
	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
	"github.com/scn2d/scn/internal/par"
)

// Forward fills the outputs of the layers after a first layer of first
// nodes in h, node-major (row j holds node j on each of rows images),
// whose first first rows hold the first layer's outputs; xt is scratch.
// Each layer's outputs are the scoring kernel's on the previous layer's
// outputs, as the fit scores that layer's candidates.
func Forward(layers []Layer, act node.Activation, first int, h []float32, rows int, xt *[]float32) {
	off, prev := 0, first
	for _, l := range layers {
		in := h[off*rows : (off+prev)*rows]
		*xt = lsq.Grow(*xt, rows*prev)
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
		par.Chunks(c, 16, func(_, a, b int) {
			for j := a; j < b; j++ {
				act.Apply(out[j*rows:(j+1)*rows], l.Bias[j])
			}
		})
		prev = c
	}
}

// Net is what Predict reads of a deep model.
type Net struct {
	// Vector says the first layer's nodes are vector nodes (rows of
	// Params of the image's size); else they are matrix nodes u^T X v of
	// NP parameters each on Rows x Cols images.
	Vector     bool
	Rows, Cols int
	NP         int
	M          int // outputs
	Act        node.Activation
	Params     []float32 // the first layer's
	Bias       []float32
	Beta       []float64 // every layer's output weights, L x M
	Layers     []Layer   // the further layers
	// Batch is the images of one pass, Chunk the first layer's matrix
	// nodes scored at a time.
	Batch, Chunk int
}

// Scratch is the working memory of a deep model's prediction pass.
type Scratch struct {
	h, xt []float32 // every node's outputs (node-major), transposed inputs
	h64   []float64
	yt    []float64
}

// Predict returns a deep model's outputs on the n images pix of d values
// each (checked by the caller), sc its scratch: each pass of Batch images
// scores the first layer as the shallow predictor does (Score2D for matrix
// nodes), then every further layer (Forward), and forms the outputs from
// all nodes in float64. Each image's outputs do not depend on the other
// images of the call.
func (m *Net) Predict(pix []float32, n, d int, sc *Scratch) []float64 {
	l1 := len(m.Bias)
	l := l1 + Nodes(m.Layers)
	out := make([]float64, n*m.M)
	np := m.NP
	for lo := 0; lo < n; lo += m.Batch {
		rows := min(m.Batch, n-lo)
		xb := pix[lo*d : (lo+rows)*d]
		sc.h = lsq.Grow(sc.h, l*rows)
		h := sc.h
		if m.Vector {
			linalg.ScoreNT(l1, rows, d, m.Params, xb, h, rows)
		} else {
			par.Chunks(l1, m.Chunk, func(_, a, b int) {
				linalg.Score2D(b-a, rows, m.Rows, m.Cols, m.Params[a*np:], np, xb, h[a*rows:], rows)
			})
		}
		act := m.Act
		par.Chunks(l1, 16, func(_, a, b int) {
			for j := a; j < b; j++ {
				act.Apply(h[j*rows:(j+1)*rows], m.Bias[j])
			}
		})
		Forward(m.Layers, m.Act, l1, h, rows, &sc.xt)
		sc.h64 = lsq.Grow(sc.h64, l*rows)
		for i, v := range h {
			sc.h64[i] = float64(v)
		}
		sc.yt = lsq.Grow(sc.yt, m.M*rows)
		linalg.Dgemm(true, false, m.M, rows, l, 1, m.Beta, m.M, sc.h64, rows, 0, sc.yt, rows)
		for q := 0; q < m.M; q++ {
			for i, v := range sc.yt[q*rows : (q+1)*rows] {
				out[(lo+i)*m.M+q] = v
			}
		}
	}
	return out
}

// Input returns the last prev of the l columns held by the shards (each
// shard's H node-major over its rows) as n images of 1 x prev, their
// pixels: image i holds the previous layer's outputs on training image i.
func Input(shards []lsq.Shard, l, n, prev int) []float32 {
	pix := make([]float32, n*prev)
	l0 := l - prev
	par.Chunks(len(shards), 1, func(s, _, _ int) {
		sh := shards[s]
		r := sh.Hi - sh.Lo
		for j := 0; j < prev; j++ {
			col := sh.H[(l0+j)*r : (l0+j+1)*r]
			for i, v := range col {
				pix[(sh.Lo+i)*prev+j] = v
			}
		}
	})
	return pix
}
