// Package dataset reads the image formats people have (IDX, PGM/PPM, PNG,
// JPEG, GIF, BMP, folders of class subfolders, CSV), prepares images (grey
// levels, polarity, resizing, the MNIST convention) and builds the derived
// data sets of the paper's experiments (rotated digits, per-class splits).
// It also embeds a small balanced MNIST subset, the default data set of the
// command line.
//
// Every reader checks what a file claims before allocating for it and
// returns an error naming the file; no input makes it panic (each reader
// has a fuzz target).
package dataset

import (
	"errors"
	"fmt"
	"math"
)

// Set is a collection of equally sized grey images with class labels or
// real-valued targets.
type Set struct {
	Rows, Cols int       // image height and width
	Pix        []float32 // N*Rows*Cols values in [0,1]; image i at Pix[i*Rows*Cols:], row-major
	Labels     []int     // class of each image, or nil
	Classes    []string  // class names: Classes[label]
	Targets    []float64 // N*TargetDim real targets (row-major), or nil
	TargetDim  int
	Source     string // provenance, for reports
}

// ErrFormat is wrapped by every error about a malformed file.
var ErrFormat = errors.New("malformed data")

// Len returns the number of images.
func (s *Set) Len() int {
	if s.Rows <= 0 || s.Cols <= 0 {
		return 0
	}
	return len(s.Pix) / (s.Rows * s.Cols)
}

// Image returns image i as a slice of Pix.
func (s *Set) Image(i int) []float32 {
	d := s.Rows * s.Cols
	return s.Pix[i*d : (i+1)*d]
}

// Subset returns a new set with the images idx, in that order.
func (s *Set) Subset(idx []int) *Set {
	d := s.Rows * s.Cols
	out := &Set{Rows: s.Rows, Cols: s.Cols, Classes: s.Classes, TargetDim: s.TargetDim, Source: s.Source,
		Pix: make([]float32, 0, len(idx)*d)}
	for _, i := range idx {
		out.Pix = append(out.Pix, s.Image(i)...)
		if s.Labels != nil {
			out.Labels = append(out.Labels, s.Labels[i])
		}
		if s.Targets != nil {
			out.Targets = append(out.Targets, s.Targets[i*s.TargetDim:(i+1)*s.TargetDim]...)
		}
	}
	return out
}

// ClassCounts returns how many images each class has.
func (s *Set) ClassCounts() []int {
	c := make([]int, len(s.Classes))
	for _, l := range s.Labels {
		if l >= 0 && l < len(c) {
			c[l]++
		}
	}
	return c
}

// Validate reports whether the set is usable: a positive shape, a whole
// number of images, finite pixels, labels within the classes, targets of the
// right count.
func (s *Set) Validate() error {
	if s.Rows <= 0 || s.Cols <= 0 {
		return fmt.Errorf("dataset: image shape %d x %d", s.Rows, s.Cols)
	}
	d := s.Rows * s.Cols
	if len(s.Pix) == 0 || len(s.Pix)%d != 0 {
		return fmt.Errorf("dataset: %d pixel values are not a positive number of %d x %d images", len(s.Pix), s.Rows, s.Cols)
	}
	n := len(s.Pix) / d
	for i, v := range s.Pix {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("dataset: image %d has a non-finite pixel", i/d)
		}
	}
	if s.Labels != nil {
		if len(s.Labels) != n {
			return fmt.Errorf("dataset: %d labels for %d images", len(s.Labels), n)
		}
		for i, l := range s.Labels {
			if l < 0 || l >= len(s.Classes) {
				return fmt.Errorf("dataset: label %d of image %d is outside %d classes", l, i, len(s.Classes))
			}
		}
	}
	if s.Targets != nil && (s.TargetDim < 1 || len(s.Targets) != n*s.TargetDim) {
		return fmt.Errorf("dataset: %d targets for %d images of dimension %d", len(s.Targets), n, s.TargetDim)
	}
	return nil
}

// digitClasses names the ten digit classes.
func digitClasses(n int) []string {
	c := make([]string, n)
	for i := range c {
		c[i] = fmt.Sprint(i)
	}
	return c
}
