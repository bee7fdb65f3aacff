// Package dataset reads the image formats people have (IDX, PGM/PPM, PNG,
// JPEG, GIF, BMP, folders of class subfolders, also inside tar archives,
// CSV, NumPy .npy/.npz arrays), prepares images (grey levels, polarity,
// resizing, the MNIST convention) and builds the derived data sets of the
// paper's experiments:
// rotated digits (BuildRotated), per-subject splits (BuildFaceSplit) and
// occluded faces (BuildOccluded, Occlude), which Derived.Write puts in a
// folder as ordinary files with a manifest of their provenance and
// ReadDerived reads back. It also embeds a small balanced MNIST subset, the
// default data set of the command line, and the natural image that
// occlusion pastes from.
//
// Set is the one data-set type of the project: the readers return it, the
// experiments and the command line use it, and its Images and Problem
// methods give the learners' views (package scn). Preprocess is the model's
// preprocessing record (scn.PreprocessRecord) with the image operations.
//
// Every reader checks what a file claims before allocating for it and
// returns an error naming the file; no input makes it panic (each reader
// has a fuzz target, whose seeds a plain go test runs).
package dataset

import (
	"errors"
	"fmt"
	"math"

	"github.com/scn2d/scn"
)

// Set is a collection of equally sized grey images with class labels or
// real-valued targets: the one data-set type of the project (readers,
// derived sets, the experiments and the command line all use it). The 2D
// learners take each image as a Rows x Cols matrix; the vector learners
// flatten it (row-major). Images and Problem give the learners' view.
//
// A set with Targets is a regression set: the learners fit the targets and
// Labels, if present, only describe the images (the digit of each rotated
// digit of E1). A set without Targets is a classification set of Labels.
//
// Set does not embed scn.Images although its first three fields are the
// same: embedding would change every composite literal (Set{Rows: ...}
// becomes Set{Images: scn.Images{Rows: ...}}) and promote the learners'
// view into the file-format package's API, for no saving (Images returns the
// view without copying).
type Set struct {
	Rows, Cols int // image height and width
	// Channels is the number of colour planes per image (3 for RGB); 0
	// means 1 (grey). Image i is Dim() values at Pix[i*Dim():]: Channels
	// planes of Rows x Cols, each row-major (N x C x H x W).
	Channels  int
	Pix       []float32 // N*Dim() values in [0,1]
	Labels    []int     // class of each image, or nil
	Classes   []string  // class names: Classes[label]
	Targets   []float64 // N*TargetDim real targets (row-major), or nil
	TargetDim int
	Source    string // provenance, for reports
	// Origin, if not nil, gives for each image its index in the set it was
	// read from (Subset composes them), so that a derived set says which
	// images it took.
	Origin []int
	// Inverted counts the images that preprocessing inverted (dark ink on
	// a light background detected, or asked for).
	Inverted int
}

// ErrFormat is wrapped by every error about a malformed file.
var ErrFormat = errors.New("malformed data")

// Len returns the number of images.
func (s *Set) Len() int {
	if s.Rows <= 0 || s.Cols <= 0 {
		return 0
	}
	return len(s.Pix) / s.Dim()
}

// Chans returns the number of planes per image (1 for grey).
func (s *Set) Chans() int { return max(s.Channels, 1) }

// Dim returns the number of values per image, Channels*Rows*Cols.
func (s *Set) Dim() int { return s.Chans() * s.Rows * s.Cols }

// Image returns image i as a slice of Pix.
func (s *Set) Image(i int) []float32 {
	d := s.Dim()
	return s.Pix[i*d : (i+1)*d]
}

// Images returns the set's pixels as the learners take them; it shares Pix
// (no copy).
func (s *Set) Images() scn.Images {
	return scn.Images{Rows: s.Rows, Cols: s.Cols, Channels: s.Channels, Pix: s.Pix}
}

// IsRegression reports whether the set has real targets (see Set).
func (s *Set) IsRegression() bool { return s.Targets != nil }

// Problem returns the set as a training problem: a regression on Targets
// when the set has them, a classification of Labels otherwise. The targets
// are checked (scn.Classification, scn.Regression).
func (s *Set) Problem() (scn.Problem, error) {
	if s.IsRegression() {
		return scn.Regression(s.Images(), s.Targets, s.TargetDim)
	}
	return scn.Classification(s.Images(), s.Labels, s.Classes)
}

// Clone returns a deep copy of s.
func (s *Set) Clone() *Set {
	out := *s
	out.Pix = append([]float32(nil), s.Pix...)
	out.Classes = append([]string(nil), s.Classes...)
	if s.Labels != nil {
		out.Labels = append([]int(nil), s.Labels...)
	}
	if s.Targets != nil {
		out.Targets = append([]float64(nil), s.Targets...)
	}
	if s.Origin != nil {
		out.Origin = append([]int(nil), s.Origin...)
	}
	return &out
}

// Subset returns a new set with the images idx, in that order; its Origin
// says where each image came from.
func (s *Set) Subset(idx []int) *Set {
	d := s.Dim()
	out := &Set{Rows: s.Rows, Cols: s.Cols, Channels: s.Channels, Classes: s.Classes, TargetDim: s.TargetDim, Source: s.Source,
		Pix: make([]float32, 0, len(idx)*d), Origin: make([]int, 0, len(idx))}
	for _, i := range idx {
		out.Pix = append(out.Pix, s.Image(i)...)
		if s.Origin != nil {
			out.Origin = append(out.Origin, s.Origin[i])
		} else {
			out.Origin = append(out.Origin, i)
		}
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
	if s.Channels < 0 {
		return fmt.Errorf("dataset: %d channels", s.Channels)
	}
	d := s.Dim()
	if len(s.Pix) == 0 || len(s.Pix)%d != 0 {
		return fmt.Errorf("dataset: %d pixel values are not a positive number of %d x %d x %d images", len(s.Pix), s.Chans(), s.Rows, s.Cols)
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
	for i, t := range s.Targets {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("dataset: target %d of image %d is %v", i%max(s.TargetDim, 1), i/max(s.TargetDim, 1), t)
		}
	}
	if s.Origin != nil && len(s.Origin) != n {
		return fmt.Errorf("dataset: %d origin indices for %d images", len(s.Origin), n)
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
