package scn

import (
	"math"
	"math/rand/v2"
)

// nodeMap is the input half of the grid: how a node's hidden parameters are
// drawn and how they act on an image. Every node, whatever its map, is used
// through its weight over the flattened image, so that scoring and prediction
// are one matrix product for both halves of the grid.
type nodeMap interface {
	// size is the number of hidden parameters per node, the bias excluded.
	size() int
	// draw fills p (size values) uniformly on [-lambda, lambda].
	draw(rng *rand.Rand, lambda float64, p []float32)
	// weight writes the node's weight over the flattened image into w (d values).
	weight(p, w []float32)
	// weightNorm returns ||w|| for the node with parameters p.
	weightNorm(p []float32) float64
}

// newNodeMap returns the map of a kind for images of chans planes of
// rows x cols (chans 0 or 1: grey).
func newNodeMap(in InputMap, rows, cols, chans int) nodeMap {
	if in == Matrix {
		return matrixMap{rows, cols, max(chans, 1)}
	}
	return vectorMap{max(chans, 1) * rows * cols}
}

// vectorMap: a node is w^T vec(X) + b with w of length d.
type vectorMap struct{ d int }

func (v vectorMap) size() int { return v.d }

func (v vectorMap) draw(rng *rand.Rand, lambda float64, p []float32) { uniform(rng, lambda, p) }

func (v vectorMap) weight(p, w []float32) { copy(w, p) }

func (v vectorMap) weightNorm(p []float32) float64 { return norm32(p) }

// matrixMap: a node is u^T X v + b with u of length rows and v of length
// cols; p holds u then v. Its weight is vec(u v^T) (row-major), since
// u^T X v = sum_ab u_a X_ab v_b.
//
// With ch > 1 planes (colour, or any third axis) the node is the 3-way
// sum_c w_c u^T X_c v + b, and p holds u, v, then w (ch values): d1 + d2 + C
// numbers. Its weight over vec(X) (N x C x H x W) is vec(u (x) v (x) w): the
// entry c*rows*cols + a*cols + b is w_c u_a v_b. All three are drawn
// uniform on [-lambda, lambda], u then v then w from one stream, so that a
// grey map (ch 1, no w) draws exactly what it drew before w existed.
type matrixMap struct{ rows, cols, ch int }

// chanWeights reports whether the node has channel weights w (ch > 1).
func (m matrixMap) chanWeights() bool { return m.ch > 1 }

func (m matrixMap) size() int {
	if m.chanWeights() {
		return m.rows + m.cols + m.ch
	}
	return m.rows + m.cols
}

func (m matrixMap) draw(rng *rand.Rand, lambda float64, p []float32) { uniform(rng, lambda, p) }

func (m matrixMap) weight(p, w []float32) {
	u, v := p[:m.rows], p[m.rows:m.rows+m.cols]
	plane := w[:m.rows*m.cols]
	for a, ua := range u {
		row := plane[a*m.cols : (a+1)*m.cols]
		for b, vb := range v {
			row[b] = ua * vb
		}
	}
	if !m.chanWeights() {
		return
	}
	// Plane c is w_c times the product u v^T (computed in float32 as
	// (u_a v_b) w_c, the order the predictor's per-plane scores use).
	d2 := m.rows * m.cols
	for c := m.ch - 1; c >= 0; c-- {
		wc := p[m.rows+m.cols+c]
		dst := w[c*d2 : (c+1)*d2]
		for i, x := range plane {
			dst[i] = x * wc
		}
	}
}

// weightNorm uses ||vec(u (x) v (x) w)|| = ||u|| ||v|| ||w|| (||w|| = 1
// without channel weights).
func (m matrixMap) weightNorm(p []float32) float64 {
	n := norm32(p[:m.rows]) * norm32(p[m.rows:m.rows+m.cols])
	if m.chanWeights() {
		n *= norm32(p[m.rows+m.cols:])
	}
	return n
}

// uniform fills p with independent draws uniform on [-lambda, lambda].
func uniform(rng *rand.Rand, lambda float64, p []float32) {
	for i := range p {
		p[i] = float32(lambda * (2*rng.Float64() - 1))
	}
}

func norm32(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s)
}
