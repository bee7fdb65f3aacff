package node

import (
	"math/rand/v2"
)

// Draw draws one candidate's hidden parameters p for the node map nm and
// the draw's settings sp at scale lambda:
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
// With difference nodes (src not nil) the entries on the rectangle (the whole
// image without receptive fields) come from the data instead: see
// DiffSource.fill.
//
// The parameters are stored as ordinary u, v or w, zeros included, so
// models with receptive fields are ordinary model files.
func Draw(rng *rand.Rand, nm Map, c Spec, lambda float64, p []float32, src *DiffSource) {
	if src != nil {
		r0, r1, c0, c1 := 0, src.rows, 0, src.cols
		if c.FieldMin > 0 {
			r0, r1 = FieldInterval(rng, src.rows, c.FieldMin, c.FieldMax)
			c0, c1 = FieldInterval(rng, src.cols, c.FieldMin, c.FieldMax)
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
	case Matrix:
		r0, r1 := FieldInterval(rng, m.Rows, c.FieldMin, c.FieldMax)
		c0, c1 := FieldInterval(rng, m.Cols, c.FieldMin, c.FieldMax)
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
	case Field:
		r0, r1 := FieldInterval(rng, m.Rows, c.FieldMin, c.FieldMax)
		c0, c1 := FieldInterval(rng, m.Cols, c.FieldMin, c.FieldMax)
		for ch := 0; ch < max(m.Ch, 1); ch++ {
			plane := p[ch*m.Rows*m.Cols:]
			for a := r0; a < r1; a++ {
				for b := c0; b < c1; b++ {
					plane[a*m.Cols+b] = entry()
				}
			}
		}
	default:
		panic("node: receptive fields on an unknown node map")
	}
}

// DiffSource draws difference nodes (the root package's
// Config.Differences) from the training images.
type DiffSource struct {
	pix               []float32 // the images, each ch planes of rows x cols
	n, rows, cols, ch int
	class             []int // each image's class; nil for regression
	// d is fill's scratch, kept between nodes (nodes are drawn one at a
	// time from the fit's random stream): on a 243 x 320 photo a
	// difference is 0.6 MB, and a fresh one per node made a block of 100
	// nodes 60 MB of garbage.
	d []float64
}

// NewDiffSource returns the source of difference nodes for the n images
// pix (each ch planes of rows x cols) with their classes (nil for
// regression).
func NewDiffSource(pix []float32, n, rows, cols, ch int, class []int) *DiffSource {
	return &DiffSource{pix: pix, n: n, rows: rows, cols: cols, ch: max(ch, 1), class: class}
}

// image returns image i as a slice of pix.
func (s *DiffSource) image(i int) []float32 {
	d := s.ch * s.rows * s.cols
	return s.pix[i*d : (i+1)*d]
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
// rank-1 approximation of the tensor D (RankOne3).
func (s *DiffSource) fill(rng *rand.Rand, nm Map, r0, r1, c0, c1 int, p []float32) {
	h, w, cols, chans := r1-r0, c1-c0, s.cols, s.ch
	plane := s.rows * cols
	if cap(s.d) < chans*h*w {
		s.d = make([]float64, chans*h*w)
	}
	d := s.d[:chans*h*w]
	found := false
	for try := 0; try < diffTries && !found; try++ {
		a, b := s.pair(rng)
		xa, xb := s.image(a), s.image(b)
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
	case Matrix:
		var u, v []float64
		if m.ChanWeights() {
			var wc []float64
			u, v, wc = RankOne3(d, chans, h, w)
			for c, x := range wc {
				p[m.Rows+m.Cols+c] = float32(x)
			}
		} else {
			u, v = RankOne(d, h, w)
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
func (s *DiffSource) pair(rng *rand.Rand) (a, b int) {
	n := s.n
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

// Spec is what a node draw needs of a configuration: receptive fields'
// side lengths (FieldMin > 0 turns them on) and standardised draws.
type Spec struct {
	FieldMin, FieldMax int
	Standardize        bool
}

// Classified reports whether the source's images have classes (pairs are
// then drawn from different classes).
func (s *DiffSource) Classified() bool { return s.class != nil }
