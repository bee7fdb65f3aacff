package scn

import (
	"math/rand/v2"

	"github.com/scn2d/scn/internal/node"
)

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
//     With several channels the rectangle spans every channel: a vector
//     node's w is supported on the rectangle in each plane, a matrix
//     node's channel weights are all drawn.
//
// With Differences (src not nil) the entries on the rectangle (the whole
// image without receptive fields) come from the data instead: see
// diffSource.fill.
//
// The parameters are stored as ordinary u, v or w, zeros included, so
// models with receptive fields are ordinary model files.
func drawNode(rng *rand.Rand, nm nodeMap, c Config, lambda float64, p []float32, src *diffSource) {
	if src != nil {
		r0, r1, c0, c1 := 0, src.x.Rows, 0, src.x.Cols
		if c.FieldMin > 0 {
			r0, r1 = node.FieldInterval(rng, src.x.Rows, c.FieldMin, c.FieldMax)
			c0, c1 = node.FieldInterval(rng, src.x.Cols, c.FieldMin, c.FieldMax)
		}
		clear(p)
		src.fill(rng, nm, r0, r1, c0, c1, p)
		return
	}
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
		nm.Draw(rng, lambda, p)
		return
	}
	clear(p)
	switch m := nm.(type) {
	case matrixMap:
		r0, r1 := node.FieldInterval(rng, m.Rows, c.FieldMin, c.FieldMax)
		c0, c1 := node.FieldInterval(rng, m.Cols, c.FieldMin, c.FieldMax)
		for a := r0; a < r1; a++ {
			p[a] = entry()
		}
		for b := c0; b < c1; b++ {
			p[m.Rows+b] = entry()
		}
		if m.ChanWeights() {
			for i := m.Rows + m.Cols; i < len(p); i++ {
				p[i] = entry()
			}
		}
	case fieldVector:
		r0, r1 := node.FieldInterval(rng, m.Rows, c.FieldMin, c.FieldMax)
		c0, c1 := node.FieldInterval(rng, m.Cols, c.FieldMin, c.FieldMax)
		for ch := 0; ch < max(m.Ch, 1); ch++ {
			plane := p[ch*m.Rows*m.Cols:]
			for a := r0; a < r1; a++ {
				for b := c0; b < c1; b++ {
					plane[a*m.Cols+b] = entry()
				}
			}
		}
	default:
		panic("scn: receptive fields on an unknown node map")
	}
}

// diffSource draws difference nodes (Config.Differences) from the training
// images.
type diffSource struct {
	x     Images
	class []int // each image's class; nil for regression
	// d is fill's scratch, kept between nodes (nodes are drawn one at a
	// time from the fit's random stream): on a 243 x 320 photo a
	// difference is 0.6 MB, and a fresh one per node made a block of 100
	// nodes 60 MB of garbage.
	d []float64
}

// newDiffSource returns the source of difference nodes for problem p.
func newDiffSource(p Problem) *diffSource {
	s := &diffSource{x: p.X}
	if p.Classes != nil {
		s.class = make([]int, p.X.Len())
		for i := range s.class {
			row := p.T[i*p.M : (i+1)*p.M]
			for q, v := range row {
				if v > row[s.class[i]] {
					s.class[i] = q
				}
			}
		}
	}
	return s
}

// diffTries is how many image pairs fill draws before it gives up on
// finding one that differs on the rectangle (at the border of digits both
// images are often blank there).
const diffTries = 32

// fill writes into p (zeroed by the caller) a node whose weights on the
// rectangle [r0, r1) x [c0, c1) come from D = x_a - x_b, the difference of
// two images a, b drawn uniformly (of different classes when the problem
// has classes), retried while D is zero: a vector node's w is D on the
// rectangle; a matrix node's u and v are sigma_1 u_1 and v_1 of D's
// leading singular triple (its best rank-1 approximation, signed so that
// v's largest entry in magnitude is positive). If every try gives D = 0
// (blank images), the entries are standard normal, as Standardize draws.
//
// With C > 1 channels D spans every channel on the rectangle (C x h x w):
// a vector node's w is D in each plane; a matrix node's u (x) v (x) w is a
// rank-1 approximation of the tensor D (rankOne3).
func (s *diffSource) fill(rng *rand.Rand, nm nodeMap, r0, r1, c0, c1 int, p []float32) {
	h, w, cols, chans := r1-r0, c1-c0, s.x.Cols, s.x.Chans()
	plane := s.x.Rows * cols
	if cap(s.d) < chans*h*w {
		s.d = make([]float64, chans*h*w)
	}
	d := s.d[:chans*h*w]
	found := false
	for try := 0; try < diffTries && !found; try++ {
		a, b := s.pair(rng)
		xa, xb := s.x.Image(a), s.x.Image(b)
		for ch := 0; ch < chans; ch++ {
			dc := d[ch*h*w : (ch+1)*h*w]
			for i := 0; i < h; i++ {
				for j := 0; j < w; j++ {
					k := ch*plane + (r0+i)*cols + c0 + j
					dc[i*w+j] = float64(xa[k]) - float64(xb[k])
					found = found || dc[i*w+j] != 0
				}
			}
		}
	}
	if !found {
		for i := range d {
			d[i] = rng.NormFloat64()
		}
	}
	switch m := nm.(type) {
	case matrixMap:
		var u, v []float64
		if m.ChanWeights() {
			var wc []float64
			u, v, wc = node.RankOne3(d, chans, h, w)
			for c, x := range wc {
				p[m.Rows+m.Cols+c] = float32(x)
			}
		} else {
			u, v = node.RankOne(d, h, w)
		}
		for i, ui := range u {
			p[r0+i] = float32(ui)
		}
		for j, vj := range v {
			p[m.Rows+c0+j] = float32(vj)
		}
	default: // a vector node over the image
		for ch := 0; ch < chans; ch++ {
			for i := 0; i < h; i++ {
				for j := 0; j < w; j++ {
					p[ch*plane+(r0+i)*cols+c0+j] = float32(d[(ch*h+i)*w+j])
				}
			}
		}
	}
}

// pair draws two distinct images, of different classes when there are
// classes (any two when every image has the same class).
func (s *diffSource) pair(rng *rand.Rand) (a, b int) {
	n := s.x.Len()
	if n < 2 {
		return 0, 0
	}
	for try := 0; ; try++ {
		a, b = rng.IntN(n), rng.IntN(n)
		if a == b {
			continue
		}
		if s.class == nil || s.class[a] != s.class[b] || try >= 64 {
			return a, b
		}
	}
}
