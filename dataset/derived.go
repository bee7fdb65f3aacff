package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Rotate turns an image about its centre by the given angle in degrees
// (counter-clockwise as displayed), with bilinear interpolation; pixels
// that come from outside the image are 0.
func Rotate(img []float32, rows, cols int, degrees float64) []float32 {
	out := make([]float32, len(img))
	if degrees == 0 {
		copy(out, img)
		return out
	}
	s, c := math.Sincos(degrees * math.Pi / 180)
	cy, cx := float64(rows-1)/2, float64(cols-1)/2
	for y := 0; y < rows; y++ {
		for x := 0; x < cols; x++ {
			// The source of (x, y) is the point rotated back by the angle.
			dx, dy := float64(x)-cx, float64(y)-cy
			sx, sy := c*dx-s*dy+cx, s*dx+c*dy+cy
			out[y*cols+x] = bilinear(img, rows, cols, sy, sx)
		}
	}
	return out
}

// bilinear samples img at the real position (y, x), 0 outside.
func bilinear(img []float32, rows, cols int, y, x float64) float32 {
	y0, x0 := math.Floor(y), math.Floor(x)
	fy, fx := y-y0, x-x0
	at := func(r, c int) float64 {
		if r < 0 || c < 0 || r >= rows || c >= cols {
			return 0
		}
		return float64(img[r*cols+c])
	}
	r, c := int(y0), int(x0)
	v := (1-fy)*((1-fx)*at(r, c)+fx*at(r, c+1)) + fy*((1-fx)*at(r+1, c)+fx*at(r+1, c+1))
	return float32(v)
}

// rng returns the package's random stream for a seed.
func rng(seed uint64, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// RotatedDigits builds the rotation-regression sets of the paper's E1:
// nTrain images drawn at random from train and nTest from test, each
// rotated about its centre by an angle uniform in [-45, 45] degrees. The
// angle is the target (TargetDim 1); the digit labels are kept.
func RotatedDigits(train, test *Set, nTrain, nTest int, seed uint64) (tr, te *Set, err error) {
	r := rng(seed, 0xe1)
	if tr, err = rotated(train, nTrain, r); err != nil {
		return nil, nil, err
	}
	if te, err = rotated(test, nTest, r); err != nil {
		return nil, nil, err
	}
	return tr, te, nil
}

func rotated(s *Set, n int, r *rand.Rand) (*Set, error) {
	if n < 1 || n > s.Len() {
		return nil, fmt.Errorf("dataset: %d rotated images asked of a set of %d", n, s.Len())
	}
	out := s.Subset(r.Perm(s.Len())[:n])
	out.Targets, out.TargetDim = make([]float64, n), 1
	out.Source = fmt.Sprintf("%s, rotated by U[-45, 45] degrees", s.Source)
	for i := 0; i < n; i++ {
		a := 90*r.Float64() - 45
		out.Targets[i] = a
		copy(out.Image(i), Rotate(out.Image(i), s.Rows, s.Cols, a))
	}
	return out, nil
}

// SplitPerClass splits s at random, per class: perClass images of each
// class go to train, the rest to test (the faces protocol: half of each
// subject's images).
func SplitPerClass(s *Set, perClass int, seed uint64) (train, test *Set, err error) {
	byClass := make([][]int, len(s.Classes))
	for i, l := range s.Labels {
		byClass[l] = append(byClass[l], i)
	}
	r := rng(seed, 0x5b)
	var tr, te []int
	for c, idx := range byClass {
		if len(idx) < perClass {
			return nil, nil, fmt.Errorf("dataset: class %s has %d images, fewer than %d", s.Classes[c], len(idx), perClass)
		}
		r.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		tr = append(tr, idx[:perClass]...)
		te = append(te, idx[perClass:]...)
	}
	return s.Subset(tr), s.Subset(te), nil
}
