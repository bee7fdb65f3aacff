package scn

import "math/rand/v2"

// newRand returns the fit's random stream for a seed (the one-node path
// seeds its stream the same way).
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x2d5c4e)) }

// drawNode draws one candidate's hidden parameters p for the configuration
// c at scale lambda:
//
//   - by default uniform on [-lambda, lambda] (the node map's own draw);
//   - with Standardize, standard normal entries (standardize sets their
//     scale afterwards from the data);
//   - with receptive fields (FieldMin > 0), the entries outside a random
//     rectangle are zero. A matrix node u^T X v has u supported on a random
//     interval of rows and v on a random interval of columns, so it sees
//     the rectangle of their product; a vector node's w is supported on a
//     random rectangle of the image. Each side's length is uniform on
//     [FieldMin, FieldMax] (clipped to the image), its position uniform.
//
// The parameters are stored as ordinary u, v or w, zeros included, so
// models with receptive fields are ordinary model files.
func drawNode(rng *rand.Rand, nm nodeMap, c Config, lambda float64, p []float32) {
	entry := func() float32 { return float32(lambda * (2*rng.Float64() - 1)) }
	if c.Standardize {
		entry = func() float32 { return float32(rng.NormFloat64()) }
	}
	if c.FieldMin <= 0 {
		if c.Standardize {
			for i := range p {
				p[i] = entry()
			}
			return
		}
		nm.draw(rng, lambda, p)
		return
	}
	clear(p)
	switch m := nm.(type) {
	case matrixMap:
		r0, r1 := fieldInterval(rng, m.rows, c.FieldMin, c.FieldMax)
		c0, c1 := fieldInterval(rng, m.cols, c.FieldMin, c.FieldMax)
		for a := r0; a < r1; a++ {
			p[a] = entry()
		}
		for b := c0; b < c1; b++ {
			p[m.rows+b] = entry()
		}
	case fieldVector:
		r0, r1 := fieldInterval(rng, m.rows, c.FieldMin, c.FieldMax)
		c0, c1 := fieldInterval(rng, m.cols, c.FieldMin, c.FieldMax)
		for a := r0; a < r1; a++ {
			for b := c0; b < c1; b++ {
				p[a*m.cols+b] = entry()
			}
		}
	default:
		panic("scn: receptive fields on an unknown node map")
	}
}

// fieldInterval returns a random interval [lo, hi) of [0, size) whose
// length is uniform on [minLen, maxLen], both clipped to [1, size].
func fieldInterval(rng *rand.Rand, size, minLen, maxLen int) (lo, hi int) {
	a, b := min(max(minLen, 1), size), min(max(maxLen, 1), size)
	if b < a {
		a, b = b, a
	}
	n := a + rng.IntN(b-a+1)
	lo = rng.IntN(size - n + 1)
	return lo, lo + n
}

// fieldVector is the vector node map of an image of rows x cols, for
// drawing receptive fields (which need the image's shape).
type fieldVector struct {
	vectorMap
	rows, cols int
}
