package node

import "math"

// Standardised draws (Spec.Standardize): a drawn node's input w^T x is
// scaled to spread lambda over the training images and centred, before
// its random bias. The root package's drivers hold the images and the
// candidates; the sums are here.

// MeanImage accumulates the mean of images pixel by pixel, each pixel's
// sum over the images in order, so that images added in one call or shard
// by shard give the same bits.
type MeanImage struct {
	sum []float64
	n   int
}

// NewMeanImage returns an empty sum of images of d values.
func NewMeanImage(d int) *MeanImage { return &MeanImage{sum: make([]float64, d)} }

// Add adds n images, pix holding them one after another (n x d).
func (m *MeanImage) Add(pix []float32, n int) {
	d := len(m.sum)
	for i := 0; i < n; i++ {
		for j, v := range pix[i*d : (i+1)*d] {
			m.sum[j] += float64(v)
		}
	}
	m.n += n
}

// Mean returns the mean image of those added, rounded to float32.
func (m *MeanImage) Mean() []float32 {
	mean := make([]float32, len(m.sum))
	for j, s := range m.sum {
		mean[j] = float32(s / float64(m.n))
	}
	return mean
}

// Spread returns the scale s = lambda / sqrt(v) that gives a node of
// weight w (over the image) the spread lambda, and its input's mean
// w^T xbar over the images, xbar their mean image: v is the variance
// about that mean of the node's inputs z (w^T x_i on a sample of the
// images). ok is false for a node (nearly) blind to the data (v at most
// 1e-10 of the second moment, or not finite): it is then left as drawn.
func Spread(w, xbar, z []float32, lambda float64) (s, mean float64, ok bool) {
	for i, wi := range w {
		mean += float64(wi) * float64(xbar[i])
	}
	var v float64
	for _, zi := range z {
		dz := float64(zi) - mean
		v += dz * dz
	}
	v /= float64(len(z))
	if !(v > 1e-10*(v+mean*mean)) || math.IsInf(v, 0) {
		return 0, mean, false
	}
	return lambda / math.Sqrt(v), mean, true
}
