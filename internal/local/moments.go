package local

import "math"

// Moments accumulates the mean and standard deviation of each plane of a
// set of images (or of maps) over all their pixels: each plane's sum and
// sum of squares, image by image in order, so that images added in one
// call or in many (a stream's shards, a sample's batches) give the same
// bits.
type Moments struct {
	sum, sum2 []float64
	plane, n  int
}

// NewMoments returns empty sums for images of ch planes of plane pixels.
func NewMoments(ch, plane int) *Moments {
	return &Moments{sum: make([]float64, ch), sum2: make([]float64, ch), plane: plane}
}

// Add adds n images, pix holding them one after another (n x ch x plane
// values, each image's planes in order).
func (m *Moments) Add(pix []float32, n int) {
	ch, plane := len(m.sum), m.plane
	for i := 0; i < n; i++ {
		for c := 0; c < ch; c++ {
			s, s2 := m.sum[c], m.sum2[c]
			for _, v := range pix[(i*ch+c)*plane : (i*ch+c+1)*plane] {
				s += float64(v)
				s2 += float64(v) * float64(v)
			}
			m.sum[c], m.sum2[c] = s, s2
		}
	}
	m.n += n
}

// Images returns the number of images added.
func (m *Moments) Images() int { return m.n }

// Result returns each plane's mean and standard deviation over the pixels
// of the images added (sqrt(E[v^2] - E[v]^2), clamped at 0 against
// rounding); a deviation of 0 (at most 1e-12, or NaN) is taken as 1, so
// that standardising by it leaves a constant plane at 0.
func (m *Moments) Result() (mean, sd []float64) {
	mean, sd = make([]float64, len(m.sum)), make([]float64, len(m.sum))
	cnt := float64(m.n * m.plane)
	for c := range mean {
		mean[c] = m.sum[c] / cnt
		sd[c] = math.Sqrt(max(m.sum2[c]/cnt-mean[c]*mean[c], 0))
		if !(sd[c] > 1e-12) {
			sd[c] = 1
		}
	}
	return mean, sd
}
