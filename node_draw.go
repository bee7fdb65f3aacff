package scn

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
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
			r0, r1 = fieldInterval(rng, src.x.Rows, c.FieldMin, c.FieldMax)
			c0, c1 = fieldInterval(rng, src.x.Cols, c.FieldMin, c.FieldMax)
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
		if m.chanWeights() {
			for i := m.rows + m.cols; i < len(p); i++ {
				p[i] = entry()
			}
		}
	case fieldVector:
		r0, r1 := fieldInterval(rng, m.rows, c.FieldMin, c.FieldMax)
		c0, c1 := fieldInterval(rng, m.cols, c.FieldMin, c.FieldMax)
		for ch := 0; ch < max(m.ch, 1); ch++ {
			plane := p[ch*m.rows*m.cols:]
			for a := r0; a < r1; a++ {
				for b := c0; b < c1; b++ {
					plane[a*m.cols+b] = entry()
				}
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

// fieldVector is the vector node map of an image of ch planes of
// rows x cols, for drawing receptive fields (which need the image's shape).
type fieldVector struct {
	vectorMap
	rows, cols, ch int
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
		if m.chanWeights() {
			var wc []float64
			u, v, wc = rankOne3(d, chans, h, w)
			for c, x := range wc {
				p[m.rows+m.cols+c] = float32(x)
			}
		} else {
			u, v = rankOne(d, h, w)
		}
		for i, ui := range u {
			p[r0+i] = float32(ui)
		}
		for j, vj := range v {
			p[m.rows+c0+j] = float32(vj)
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

// rankOne3 returns u (h), v (w) and c (chans) whose outer product
// u (x) v (x) c approximates the chans x h x w tensor d (row-major): v is
// the leading right singular vector of d unfolded as (chans*h) x w, then u
// and c are the best rank-1 approximation of Y (h x chans), Y[i][k] =
// sum_j d[k][i][j] v_j. It is exact when d has rank 1, deterministic, and
// signed as rankOne signs (v's and c's largest entries positive).
func rankOne3(d []float64, chans, h, w int) (u, v, c []float64) {
	_, v = rankOne(d, chans*h, w)
	y := make([]float64, h*chans)
	for k := 0; k < chans; k++ {
		for i := 0; i < h; i++ {
			row := d[(k*h+i)*w : (k*h+i+1)*w]
			var s float64
			for j, vj := range v {
				s += row[j] * vj
			}
			y[i*chans+k] = s
		}
	}
	u, c = rankOne(y, h, chans)
	return u, v, c
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

// rankOne returns u = sigma_1 u_1 and v = v_1 for the h x w matrix d
// (row-major): u v^T is d's best rank-1 approximation. v's largest entry in
// magnitude is made positive, so the pair does not depend on the start's
// sign.
//
// v_1 is found by power iteration on d^T d (u = d v): each step costs two
// passes over d, O(h w), where a full SVD costs O(h w min(h, w)); on a
// 243 x 320 photo an SVD per node took 90 ms and made the default preset's
// node draws most of a fit's time. The iteration starts from d's largest
// row, is deterministic, and stops when v moves by less than 1e-9 or after
// rankOneSteps steps (then v is a mix of the leading singular vectors,
// whose singular values are within a factor 1 - 1e-3 or so of each other:
// as good a rank-one direction for a node).
func rankOne(d []float64, h, w int) (u, v []float64) {
	u, v = make([]float64, h), make([]float64, w)
	best, bestNorm := 0, -1.0
	for i := 0; i < h; i++ {
		if n := floats.Dot(d[i*w:(i+1)*w], d[i*w:(i+1)*w]); n > bestNorm {
			best, bestNorm = i, n
		}
	}
	copy(v, d[best*w:(best+1)*w])
	if !normalise(v) {
		// d is zero: any direction, u = 0.
		v[0] = 1
		return u, v
	}
	next := make([]float64, w)
	for step := 0; step < rankOneSteps; step++ {
		for i := range u {
			u[i] = floats.Dot(d[i*w:(i+1)*w], v)
		}
		clear(next)
		for i, ui := range u {
			floats.AddScaled(next, ui, d[i*w:(i+1)*w])
		}
		if !normalise(next) {
			break
		}
		moved := floats.Distance(next, v, 2)
		v, next = next, v
		if moved < 1e-9 {
			break
		}
	}
	big := floats.MaxIdx(v)
	if small := floats.MinIdx(v); -v[small] > v[big] {
		floats.Scale(-1, v)
	}
	for i := range u {
		u[i] = floats.Dot(d[i*w:(i+1)*w], v)
	}
	return u, v
}

// rankOneSteps bounds rankOne's power iteration.
const rankOneSteps = 300

// normalise scales x to unit norm, reporting false if x is zero or not
// finite.
func normalise(x []float64) bool {
	n := floats.Norm(x, 2)
	if !(n > 0) || math.IsInf(n, 0) {
		return false
	}
	floats.Scale(1/n, x)
	return true
}
