package experiment

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/scn2d/scn/dataset"
)

// This file reads the data sets of ../shared/data through package dataset.

// ErrMissingData is wrapped by errors about absent data files.
var ErrMissingData = errors.New("data file missing")

func missing(p string) error {
	return fmt.Errorf("experiment: %w: %s (set the data folder with --data or Options.DataDir)", ErrMissingData, p)
}

// needFile returns an error naming p if it does not exist.
func needFile(p string) error {
	if _, err := os.Stat(p); err != nil {
		return missing(p)
	}
	return nil
}

var digitClasses = []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}

var fashionClasses = []string{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"}

// readIDXPair reads images and labels of an MNIST-layout folder; prefix is
// "train" or "t10k".
func readIDXPair(dir, prefix string, classes []string, source string) (*dataset.Set, error) {
	ip := filepath.Join(dir, prefix+"-images-idx3-ubyte.gz")
	lp := filepath.Join(dir, prefix+"-labels-idx1-ubyte.gz")
	for _, p := range []string{ip, lp} {
		if err := needFile(p); err != nil {
			return nil, err
		}
	}
	d, err := dataset.ReadIDX(ip, lp)
	if err != nil {
		return nil, err
	}
	if classes != nil {
		if len(d.Classes) > len(classes) {
			return nil, fmt.Errorf("experiment: %s: %d classes, expected %d", lp, len(d.Classes), len(classes))
		}
		d.Classes = classes
	}
	d.Source = source
	return d, nil
}

// loadMNISTLike reads the training and test sets of mnist/ or
// fashion-mnist/; source names the data set for the reports.
func loadMNISTLike(dataDir, sub string, classes []string, source string) (train, test *dataset.Set, err error) {
	dir := filepath.Join(dataDir, sub)
	if train, err = readIDXPair(dir, "train", classes, source+", training set, "+dir); err != nil {
		return nil, nil, err
	}
	if test, err = readIDXPair(dir, "t10k", classes, source+", test set, "+dir); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// loadMNIST reads MNIST's training and test sets.
func loadMNIST(dataDir string) (train, test *dataset.Set, err error) {
	return loadMNISTLike(dataDir, "mnist", nil, "MNIST (LeCun, Cortes, Burges)")
}

// loadFashion reads Fashion-MNIST's training and test sets.
func loadFashion(dataDir string) (train, test *dataset.Set, err error) {
	return loadMNISTLike(dataDir, "fashion-mnist", fashionClasses, "Fashion-MNIST (Zalando Research, MIT)")
}

// loadORL reads orl_faces/sX/Y.pgm: 40 subjects x 10 images of 112 x 92,
// pixel values in [0, 1]; class i is subject s(i+1).
func loadORL(dataDir string) (*dataset.Set, error) {
	dir := filepath.Join(dataDir, "orl_faces")
	if err := needFile(filepath.Join(dir, "s1")); err != nil {
		return nil, err
	}
	d, err := dataset.ReadORL(dir)
	if err != nil {
		return nil, err
	}
	d.Source = "ORL / AT&T Database of Faces (Olivetti Research Laboratory), " + dir
	return d, nil
}

// loadCVL reads the CVL single digits from the archive, brought to the
// MNIST convention (the archive's digits are dark ink on white).
func loadCVL(dataDir string) (train, test *dataset.Set, err error) {
	p := filepath.Join(dataDir, "cvl-digits.tar.gz")
	if err := needFile(p); err != nil {
		return nil, nil, err
	}
	prep := dataset.Preprocess{Invert: "auto", MNIST: true}
	src := "CVL single digits (Diem et al., ICDAR 2013 HDRC), " + p + ", inverted and normalised to the MNIST convention"
	var sets [2]*dataset.Set
	for i, part := range []string{"train", "test"} {
		d, err := dataset.ReadFolderTarGz(p, "cvl-digits/"+part, prep)
		if err != nil {
			return nil, nil, err
		}
		d.Source = src
		sets[i] = d
	}
	return sets[0], sets[1], nil
}

// sample returns n indices of [0, total) drawn without replacement, in
// increasing order (all of them when n >= total or n <= 0).
func sample(total, n int, rng *rand.Rand) []int {
	if n <= 0 || n >= total {
		idx := make([]int, total)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := rng.Perm(total)[:n]
	sort.Ints(idx)
	return idx
}
