package scn

import (
	"errors"
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/lsq"
)

// Images is a set of N equally sized images, each Rows x Cols with
// Channels planes (0 or 1: grey), stored one after another: image i is
// Channels planes of Rows x Cols values in row-major order (N x C x H x W).
// Vector learners read each image as the flat vector vec(X) of length
// Dim() = Channels*Rows*Cols.
type Images struct {
	Rows, Cols int
	// Channels is the number of planes per image; 0 means 1 (grey).
	Channels int
	Pix      []float32 // N*Dim() values; image i starts at i*Dim()
}

// Chans returns the number of planes per image (1 for grey).
func (im Images) Chans() int { return max(im.Channels, 1) }

// Len returns the number of images, N.
func (im Images) Len() int {
	if im.Rows <= 0 || im.Cols <= 0 {
		return 0
	}
	return len(im.Pix) / im.Dim()
}

// Dim returns d = Channels*Rows*Cols, the length of vec(X).
func (im Images) Dim() int { return im.Chans() * im.Rows * im.Cols }

// Image returns image i as a slice of Pix.
func (im Images) Image(i int) []float32 {
	d := im.Dim()
	return im.Pix[i*d : (i+1)*d]
}

// ErrData is wrapped by every error about unusable training or test data.
var ErrData = errors.New("scn: invalid data")

// check reports whether the images are a usable, non-empty set.
func (im Images) check() error {
	switch {
	case im.Rows <= 0 || im.Cols <= 0:
		return fmt.Errorf("%w: image shape %d x %d", ErrData, im.Rows, im.Cols)
	case len(im.Pix) == 0:
		return fmt.Errorf("%w: no images", ErrData)
	case im.Channels < 0:
		return fmt.Errorf("%w: %d channels", ErrData, im.Channels)
	case len(im.Pix)%im.Dim() != 0:
		return fmt.Errorf("%w: %d pixel values are not a whole number of %d x %d x %d images", ErrData, len(im.Pix), im.Chans(), im.Rows, im.Cols)
	}
	for i, v := range im.Pix {
		if d := v - v; d != d { // NaN or an infinity
			d := im.Dim()
			return fmt.Errorf("%w: image %d pixel %d is %v", ErrData, i/d, i%d, v)
		}
	}
	return nil
}

// Problem is a training set: images and their targets. Build one with
// Classification or Regression.
type Problem struct {
	X Images
	// T holds N x M targets, row-major: one-hot rows for classification.
	T []float64
	// M is the number of outputs.
	M int
	// Classes names the classes of a classification problem (len M); it is
	// nil for regression.
	Classes []string
}

// Classification builds a problem whose targets are the one-hot rows of
// labels (each in [0, len(classes))). Predictions take the arg-max.
func Classification(x Images, labels []int, classes []string) (Problem, error) {
	if err := x.check(); err != nil {
		return Problem{}, err
	}
	n, m := x.Len(), len(classes)
	if len(labels) != n {
		return Problem{}, fmt.Errorf("%w: %d labels for %d images", ErrData, len(labels), n)
	}
	if m < 2 {
		return Problem{}, fmt.Errorf("%w: %d classes, want at least 2", ErrData, m)
	}
	t := make([]float64, n*m)
	for i, l := range labels {
		if l < 0 || l >= m {
			return Problem{}, fmt.Errorf("%w: label %d of image %d is outside [0, %d)", ErrData, l, i, m)
		}
		t[i*m+l] = 1
	}
	return Problem{X: x, T: t, M: m, Classes: append([]string(nil), classes...)}, nil
}

// Regression builds a problem with m real-valued outputs per image; targets
// holds N x m values, row-major.
func Regression(x Images, targets []float64, m int) (Problem, error) {
	if err := x.check(); err != nil {
		return Problem{}, err
	}
	n := x.Len()
	if m < 1 {
		return Problem{}, fmt.Errorf("%w: %d outputs, want at least 1", ErrData, m)
	}
	if len(targets) != n*m {
		return Problem{}, fmt.Errorf("%w: %d target values for %d images x %d outputs", ErrData, len(targets), n, m)
	}
	if err := checkFinite(targets, "target"); err != nil {
		return Problem{}, err
	}
	return Problem{X: x, T: append([]float64(nil), targets...), M: m}, nil
}

// check validates a problem built by hand.
func (p Problem) check() error {
	if err := p.X.check(); err != nil {
		return err
	}
	if p.M < 1 || len(p.T) != p.X.Len()*p.M {
		return fmt.Errorf("%w: %d target values for %d images x %d outputs", ErrData, len(p.T), p.X.Len(), p.M)
	}
	if p.Classes != nil && len(p.Classes) != p.M {
		return fmt.Errorf("%w: %d class names for %d outputs", ErrData, len(p.Classes), p.M)
	}
	return checkFinite(p.T, "target")
}

func checkFinite(v []float64, what string) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%w: %s %d is %v", ErrData, what, i, x)
		}
	}
	return nil
}

// finite32 reports whether every value of v is finite (no NaN or
// infinity): the check a model's float32 parameters get when it is read
// or validated.
func finite32(v []float32) bool { return lsq.Finite32(v) }
