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

// newNodeMap returns the map of a kind for images of rows x cols.
func newNodeMap(in InputMap, rows, cols int) nodeMap {
	if in == Matrix {
		return matrixMap{rows, cols}
	}
	return vectorMap{rows * cols}
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
type matrixMap struct{ rows, cols int }

func (m matrixMap) size() int { return m.rows + m.cols }

func (m matrixMap) draw(rng *rand.Rand, lambda float64, p []float32) { uniform(rng, lambda, p) }

func (m matrixMap) weight(p, w []float32) {
	u, v := p[:m.rows], p[m.rows:]
	for a, ua := range u {
		row := w[a*m.cols : (a+1)*m.cols]
		for b, vb := range v {
			row[b] = ua * vb
		}
	}
}

// weightNorm uses ||vec(u v^T)|| = ||u|| ||v||.
func (m matrixMap) weightNorm(p []float32) float64 {
	return norm32(p[:m.rows]) * norm32(p[m.rows:])
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
