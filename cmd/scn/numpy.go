package main

import (
	"fmt"
	"strings"

	"github.com/scn2d/scn/dataset"
	"github.com/spf13/pflag"
)

// numpyFlags say where NumPy data come from: a .npy file of images with
// one of labels or targets, or a .npz file with arrays chosen by name.
type numpyFlags struct {
	images, labels, targets string // --npy-images, --npy-labels, --npy-targets
	npz, x, y, npzTargets   string // --npz, --npz-x, --npz-y, --npz-targets
	channelsFirst           bool   // --channels-first
}

// add registers the NumPy source flags, each name prefixed with p.
func (n *numpyFlags) add(f *pflag.FlagSet, p, what string) {
	f.StringVar(&n.images, p+"npy-images", "", what+"NumPy .npy file of images: uint8 (scaled to [0,1]) or float (used as given), N x rows x cols, N x rows*cols or N x rows x cols x C")
	f.StringVar(&n.labels, p+"npy-labels", "", what+"NumPy .npy file of class labels (integers or strings), for classification")
	f.StringVar(&n.targets, p+"npy-targets", "", what+"NumPy .npy file of real targets (N or N x dim), for regression")
	f.StringVar(&n.npz, p+"npz", "", what+"NumPy .npz file of images and labels (arrays x and y unless --"+p+"npz-x/--"+p+"npz-y say otherwise)")
	f.StringVar(&n.x, p+"npz-x", "", what+"name of the images array in the --"+p+"npz file (default x)")
	f.StringVar(&n.y, p+"npz-y", "", what+"name of the labels array in the --"+p+"npz file (default y)")
	f.StringVar(&n.npzTargets, p+"npz-targets", "", what+"name of an array of real targets in the --"+p+"npz file, for regression (instead of labels)")
	f.BoolVar(&n.channelsFirst, p+"channels-first", false, what+"a four-dimensional NumPy image array is N x C x rows x cols (PyTorch), not N x rows x cols x C")
	// --rows and --cols (registered before) shape flat NumPy arrays too.
	for _, name := range []string{"rows", "cols"} {
		if fl := f.Lookup(p + name); fl != nil {
			fl.Usage = strings.Replace(fl.Usage, "of a CSV file", "of a CSV file or a flat NumPy array", 1)
		}
	}
}

// given reports whether a NumPy source is set.
func (n *numpyFlags) given() bool { return n.images != "" || n.npz != "" }

// readNumPy reads the NumPy data set the flags name.
func (d *dataFlags) readNumPy() (*dataset.Set, error) {
	return numpyCall(d, dataset.ReadNPY, dataset.ReadNPZ)
}

// numpyCall calls npyFn (dataset.ReadNPY or PeekNPY) or npzFn
// (dataset.ReadNPZ or PeekNPZ) with the NumPy source the flags name.
func numpyCall[T any](d *dataFlags,
	npyFn func(images, labels, targets string, rows, cols int, channelsFirst bool) (T, error),
	npzFn func(path, x, y string, targets bool, rows, cols int, channelsFirst bool) (T, error)) (T, error) {
	var none T
	n, p := &d.numpy, d.prefix
	if n.images != "" {
		switch {
		case n.npz != "":
			return none, usageError{fmt.Errorf("give one data source: --%snpy-images or --%snpz", p, p)}
		case n.labels != "" && n.targets != "":
			return none, usageError{fmt.Errorf("give --%snpy-labels or --%snpy-targets, not both", p, p)}
		case n.labels == "" && n.targets == "":
			return none, usageError{fmt.Errorf("--%snpy-images needs --%snpy-labels (classification) or --%snpy-targets (regression)", p, p, p)}
		}
		return npyFn(n.images, n.labels, n.targets, d.rows, d.cols, n.channelsFirst)
	}
	x, y := n.x, n.y
	if x == "" {
		x = "x"
	}
	if n.npzTargets != "" {
		if n.y != "" {
			return none, usageError{fmt.Errorf("give --%snpz-y (labels) or --%snpz-targets (regression targets), not both", p, p)}
		}
		return npzFn(n.npz, x, n.npzTargets, true, d.rows, d.cols, n.channelsFirst)
	}
	if y == "" {
		y = "y"
	}
	return npzFn(n.npz, x, y, false, d.rows, d.cols, n.channelsFirst)
}

// checkNumPyFlags reports NumPy flags given without the source they go
// with, and a NumPy source given with another.
func (d *dataFlags) checkNumPyFlags() error {
	n, p := &d.numpy, d.prefix
	others := 0
	for _, s := range []string{d.idxImages, d.folder, d.csv, d.derived, n.images, n.npz} {
		if s != "" {
			others++
		}
	}
	if n.given() && others > 1 {
		return usageError{fmt.Errorf("give one data source: --%sidx-images, --%sfolder, --%scsv, --%sderived, --%snpy-images or --%snpz", p, p, p, p, p, p)}
	}
	if (n.labels != "" || n.targets != "") && n.images == "" {
		return usageError{fmt.Errorf("--%snpy-labels and --%snpy-targets need --%snpy-images", p, p, p)}
	}
	if n.channelsFirst && !n.given() {
		return usageError{fmt.Errorf("--%schannels-first is about a NumPy image array; there is no --%snpy-images or --%snpz", p, p, p)}
	}
	if (n.x != "" || n.y != "" || n.npzTargets != "") && n.npz == "" {
		return usageError{fmt.Errorf("--%snpz-x, --%snpz-y and --%snpz-targets name arrays of a --%snpz file; there is none", p, p, p, p)}
	}
	return nil
}
