package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/scn2d/scn/dataset"
)

// matchClasses relabels a labelled set by class name against the classes a
// model (or a training set) knows: a test set may hold any subset of them,
// in any order; a class with images that the model does not know is an
// error listing them. s gets new Labels and Classes slices (the slices it
// had are not changed).
func matchClasses(known []string, s *dataset.Set, what string) error {
	if s.Labels == nil {
		return nil
	}
	index := make(map[string]int, len(known))
	for i, c := range known {
		index[c] = i
	}
	counts := s.ClassCounts()
	to := make([]int, len(s.Classes))
	var unknown []string
	for c, name := range s.Classes {
		i, ok := index[name]
		if !ok && counts[c] > 0 {
			unknown = append(unknown, name)
		}
		to[c] = i
	}
	if len(unknown) > 0 {
		return fmt.Errorf("%s has classes the model does not know: %s (it knows %s); classes are matched by name",
			what, nameList(unknown), nameList(known))
	}
	labels := make([]int, len(s.Labels))
	for i, l := range s.Labels {
		if l < 0 || l >= len(to) {
			return fmt.Errorf("%s: label %d of image %d is outside its %d classes", what, l, i, len(to))
		}
		labels[i] = to[l]
	}
	s.Labels, s.Classes = labels, append([]string(nil), known...)
	return nil
}

// nameList lists class names for a message, the first 12 of a long list.
func nameList(names []string) string {
	const most = 12
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:most], ", ") + fmt.Sprintf(", ... (%d in all)", len(names))
}

// checkTrainClasses looks at the classes of a labelled training set whose
// labels are numbers (IDX, CSV: the classes are 0 up to the largest
// label): it refuses a set most of whose classes have no image (a stray
// label 200 among 0-9 would make a 201-class model), and notes on w the
// classes without images of one that has a few.
func checkTrainClasses(w io.Writer, s *dataset.Set) error {
	if s.Labels == nil {
		return nil
	}
	counts := s.ClassCounts()
	var empty []string
	for c, n := range counts {
		if n == 0 {
			empty = append(empty, s.Classes[c])
		}
	}
	if len(empty) == 0 {
		return nil
	}
	used := len(counts) - len(empty)
	top := len(counts) - 1
	if len(empty) > used {
		return fmt.Errorf("the labels run up to %s (%d image(s)), which makes %d classes, but %d of them have no training image: a stray label? Fix the labels (a model would have an output for every class)",
			s.Classes[top], counts[top], len(counts), len(empty))
	}
	fmt.Fprintf(w, "scn: note: %d of the %d classes have no training image (%s); the model keeps an output for each\n", len(empty), len(counts), nameList(empty))
	return nil
}
