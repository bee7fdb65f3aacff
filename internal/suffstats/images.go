package suffstats

import (
	"fmt"
	"slices"

	"github.com/scn2d/scn/internal/score"
)

// ImagesMismatchError says that images are not those statistics were
// summed over (Stats.CheckImages). It wraps ErrStats.
type ImagesMismatchError struct {
	// Images is the count of the images given, Summed that of the
	// statistics.
	Images, Summed int
	// Class is, when the counts agree, the first class of the statistics
	// whose count of images differs (or that the images do not have).
	Class string
}

// Error says what differs.
func (e *ImagesMismatchError) Error() string {
	if e.Class == "" {
		return fmt.Sprintf("%v: the images are %d, the statistics were summed over %d", ErrStats, e.Images, e.Summed)
	}
	return fmt.Sprintf("%v: the images have another count of class %q than the statistics", ErrStats, e.Class)
}

// Unwrap returns ErrStats.
func (e *ImagesMismatchError) Unwrap() error { return ErrStats }

// CheckImages reports (an *ImagesMismatchError) when n images of targets
// t (m a row, of the classes classes, nil for a regression) cannot be
// those s was summed over, each counting rowsPer rows: another count of
// images, or, for a classification, another count of images of some
// class of s.
func (s *Sums) CheckImages(n int, t []float64, m int, classes []string, rowsPer int) error {
	images := s.N / rowsPer
	if n != images {
		return &ImagesMismatchError{Images: n, Summed: images}
	}
	if s.Classes == nil {
		return nil
	}
	counts := make([]int, len(classes))
	if classes != nil {
		for _, c := range score.ArgMax(t, m) {
			counts[c] += rowsPer
		}
	}
	for i, c := range s.Classes {
		j := slices.Index(classes, c)
		if j < 0 || counts[j] != s.ClassCounts[i] {
			return &ImagesMismatchError{Images: n, Summed: images, Class: c}
		}
	}
	return nil
}

// Residual returns the n images' targets t (pm a row, of the classes
// pClasses, nil for a regression) minus the predictions y of a model of
// m outputs (of the classes classes), with the model's outputs first and
// a column for each class of pClasses the model does not have (predicted
// 0 there), as merged statistics order them; false if the targets do not
// fit the model's outputs.
func Residual(y, t []float64, n, m, pm int, classes, pClasses []string) ([]float64, bool) {
	if classes == nil || pClasses == nil {
		if pm != m || (classes == nil) != (pClasses == nil) {
			return nil, false
		}
		r := make([]float64, n*m)
		for i := range r {
			r[i] = t[i] - y[i]
		}
		return r, true
	}
	union := slices.Clone(classes)
	for _, c := range pClasses {
		if !slices.Contains(union, c) {
			union = append(union, c)
		}
	}
	q := len(union)
	r := make([]float64, n*q)
	for i, label := range score.ArgMax(t, pm) {
		for j := 0; j < m; j++ {
			r[i*q+j] = -y[i*m+j]
		}
		r[i*q+slices.Index(union, pClasses[label])]++
	}
	return r, true
}
