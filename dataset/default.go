package dataset

import (
	"bytes"
	_ "embed"
)

// The built-in data set: a class-balanced subset of MNIST, 3000 training
// images (300 per digit) from MNIST's training set and 1000 test images (100
// per digit) from its test set, chosen by gen_default.go with a fixed seed.
// MNIST is by Yann LeCun, Corinna Cortes and Christopher J. C. Burges
// (usually cited as CC BY-SA 3.0); see embedded/README.md.
var (
	//go:embed embedded/train-images-idx3-ubyte.gz
	defaultTrainImages []byte
	//go:embed embedded/train-labels-idx1-ubyte.gz
	defaultTrainLabels []byte
	//go:embed embedded/test-images-idx3-ubyte.gz
	defaultTestImages []byte
	//go:embed embedded/test-labels-idx1-ubyte.gz
	defaultTestLabels []byte
)

// DefaultSource describes the built-in data set.
const DefaultSource = "built-in MNIST subset (3000 train / 1000 test, balanced; LeCun, Cortes, Burges)"

// Default returns the built-in data set: no file is read.
func Default() (train, test *Set, err error) {
	if train, err = ReadIDXFrom(bytes.NewReader(defaultTrainImages), bytes.NewReader(defaultTrainLabels), DefaultSource+", train"); err != nil {
		return nil, nil, err
	}
	if test, err = ReadIDXFrom(bytes.NewReader(defaultTestImages), bytes.NewReader(defaultTestLabels), DefaultSource+", test"); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}
