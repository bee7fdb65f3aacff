package main

import (
	"fmt"

	"github.com/scn2d/scn/dataset"
	"github.com/spf13/pflag"
)

// matFlags say where MATLAB data come from: variables of a MAT-file
// (dataset.ReadMAT), named as the .npz flags name arrays.
type matFlags struct {
	file, x, y, targets string // --mat, --mat-x, --mat-y, --mat-targets
}

// add registers the MAT-file flags, each name prefixed with p.
func (m *matFlags) add(f *pflag.FlagSet, p, what string) {
	f.StringVar(&m.file, p+"mat", "", what+"MATLAB MAT-file (level 5, save -v7 or -v6) holding the images and their labels or targets, named by --"+p+"mat-x and --"+p+"mat-y or --"+p+"mat-targets")
	f.StringVar(&m.x, p+"mat-x", "", what+"name of the images variable in the --"+p+"mat file: rows x cols x C x N (as MATLAB's image stacks), rows x cols x N, or N x rows*cols")
	f.StringVar(&m.y, p+"mat-y", "", what+"name of the class labels variable (N integers) in the --"+p+"mat file, for classification")
	f.StringVar(&m.targets, p+"mat-targets", "", what+"name of the real targets variable (N, or N x dim) in the --"+p+"mat file, for regression (e.g. anglesTrain)")
}

// check refuses MAT flags without their file, and a file without its
// variables.
func (m *matFlags) check(p string) error {
	switch {
	case m.file == "" && (m.x != "" || m.y != "" || m.targets != ""):
		return usageError{fmt.Errorf("--%smat-x, --%smat-y and --%smat-targets name variables of a --%smat file; there is none", p, p, p, p)}
	case m.file == "":
		return nil
	case m.y != "" && m.targets != "":
		return usageError{fmt.Errorf("give --%smat-y (labels) or --%smat-targets (regression targets), not both", p, p)}
	case m.x == "" || (m.y == "" && m.targets == ""):
		return usageError{fmt.Errorf("--%smat needs --%smat-x (the images) and --%smat-y (labels, classification) or --%smat-targets (regression)%s", p, p, p, p, matHolds(m.file))}
	}
	return nil
}

// matHolds lists a MAT-file's variables for a usage message.
func matHolds(path string) string {
	_, err := dataset.ReadMAT(path, "", "", false, 0, 0)
	if err == nil {
		return ""
	}
	msg := err.Error()
	for i := 0; i+len("; the file holds") <= len(msg); i++ {
		if msg[i:i+len("; the file holds")] == "; the file holds" {
			return msg[i:]
		}
	}
	return ""
}

// read reads the MAT-file data set the flags name.
func (m *matFlags) read(d *dataFlags) (*dataset.Set, error) {
	if m.targets != "" {
		return dataset.ReadMAT(m.file, m.x, m.targets, true, d.rows, d.cols)
	}
	return dataset.ReadMAT(m.file, m.x, m.y, false, d.rows, d.cols)
}
