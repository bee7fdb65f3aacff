package node

import (
	"math"
	"math/rand/v2"
)

// Map is the input half of the grid: how a node's hidden parameters are
// drawn and how they act on an image. Every node, whatever its map, is used
// through its weight over the flattened image, so that scoring and
// prediction are one matrix product for both halves of the grid.
type Map interface {
	// Size is the number of hidden parameters per node, the bias excluded.
	Size() int
	// Draw fills p (Size values) uniformly on [-lambda, lambda].
	Draw(rng *rand.Rand, lambda float64, p []float32)
	// Weight writes the node's weight over the flattened image into w (d values).
	Weight(p, w []float32)
	// WeightNorm returns ||w|| for the node with parameters p.
	WeightNorm(p []float32) float64
}

// Vector is the vector map: a node is w^T vec(X) + b with w of length D.
type Vector struct{ D int }

// Size returns D.
func (v Vector) Size() int { return v.D }

// Draw fills p uniformly on [-lambda, lambda].
func (v Vector) Draw(rng *rand.Rand, lambda float64, p []float32) { Uniform(rng, lambda, p) }

// Weight copies p: w is the node's parameters.
func (v Vector) Weight(p, w []float32) { copy(w, p) }

// WeightNorm returns ||p||.
func (v Vector) WeightNorm(p []float32) float64 { return Norm32(p) }

// Matrix is the 2D map: a node is u^T X v + b with u of length Rows and v
// of length Cols; p holds u then v. Its weight is vec(u v^T) (row-major),
// since u^T X v = sum_ab u_a X_ab v_b.
//
// With Ch > 1 planes (colour, or any third axis) the node is the 3-way
// sum_c w_c u^T X_c v + b, and p holds u, v, then w (Ch values): d1 + d2 + C
// numbers. Its weight over vec(X) (N x C x H x W) is vec(u (x) v (x) w): the
// entry c*rows*cols + a*cols + b is w_c u_a v_b. All three are drawn
// uniform on [-lambda, lambda], u then v then w from one stream, so that a
// grey map (Ch 1, no w) draws exactly what it drew before w existed.
type Matrix struct{ Rows, Cols, Ch int }

// ChanWeights reports whether the node has channel weights w (Ch > 1).
func (m Matrix) ChanWeights() bool { return m.Ch > 1 }

// Size returns Rows + Cols (+ Ch with channel weights).
func (m Matrix) Size() int {
	if m.ChanWeights() {
		return m.Rows + m.Cols + m.Ch
	}
	return m.Rows + m.Cols
}

// Draw fills p uniformly on [-lambda, lambda]: u, then v, then w.
func (m Matrix) Draw(rng *rand.Rand, lambda float64, p []float32) { Uniform(rng, lambda, p) }

// Weight writes vec(u v^T), times w_c in plane c with channel weights.
func (m Matrix) Weight(p, w []float32) {
	u, v := p[:m.Rows], p[m.Rows:m.Rows+m.Cols]
	plane := w[:m.Rows*m.Cols]
	for a, ua := range u {
		row := plane[a*m.Cols : (a+1)*m.Cols]
		for b, vb := range v {
			row[b] = ua * vb
		}
	}
	if !m.ChanWeights() {
		return
	}
	// Plane c is w_c times the product u v^T (computed in float32 as
	// (u_a v_b) w_c, the order the predictor's per-plane scores use).
	d2 := m.Rows * m.Cols
	for c := m.Ch - 1; c >= 0; c-- {
		wc := p[m.Rows+m.Cols+c]
		dst := w[c*d2 : (c+1)*d2]
		for i, x := range plane {
			dst[i] = x * wc
		}
	}
}

// WeightNorm uses ||vec(u (x) v (x) w)|| = ||u|| ||v|| ||w|| (||w|| = 1
// without channel weights).
func (m Matrix) WeightNorm(p []float32) float64 {
	n := Norm32(p[:m.Rows]) * Norm32(p[m.Rows:m.Rows+m.Cols])
	if m.ChanWeights() {
		n *= Norm32(p[m.Rows+m.Cols:])
	}
	return n
}

// Field is the vector map of an image of Ch planes of Rows x Cols, for
// drawing receptive fields (which need the image's shape).
type Field struct {
	Vector
	Rows, Cols, Ch int
}

// Uniform fills p with independent draws uniform on [-lambda, lambda].
func Uniform(rng *rand.Rand, lambda float64, p []float32) {
	for i := range p {
		p[i] = float32(lambda * (2*rng.Float64() - 1))
	}
}

// Norm32 returns the Euclidean norm of x, summed in float64.
func Norm32(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s)
}

// Scale multiplies a node's weight over the image by s: every parameter of
// a vector node, u (its first rows values, not v) of a matrix node.
func Scale(matrix bool, p []float32, rows int, s float64) {
	if matrix {
		p = p[:rows]
	}
	for i, v := range p {
		p[i] = float32(float64(v) * s)
	}
}
