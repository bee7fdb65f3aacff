package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/holdout"
)

// Selection's splitters: the images of a problem dealt into a hold-out
// share or folds by internal/holdout, class by class.

// splitHoldout splits p's images into a training and a held-out part: for
// classification, each class's images are shuffled and about share of them
// held out (at least one, and at least one left for training); for
// regression, a shuffled share of all images. Indices are in increasing
// order in both parts.
func splitHoldout(p Problem, share float64, seed uint64) (train, held []int, err error) {
	groups, err := classGroups(p, 2)
	if err != nil {
		return nil, nil, err
	}
	train, held, err = holdout.HoldOut(groups, p.Classes != nil, share, seed)
	return train, held, dataErr(err)
}

// splitFolds deals p's images into k folds, class by class for
// classification so that each fold has its share of every class.
func splitFolds(p Problem, k int, seed uint64) ([][]int, error) {
	groups, err := classGroups(p, k)
	if err != nil {
		return nil, err
	}
	folds, err := holdout.Folds(groups, p.X.Len(), k, seed)
	return folds, dataErr(err)
}

// classGroups returns the image indices of each class (one group of all
// images for regression), refusing a class with fewer than need images
// (holdout.Groups).
func classGroups(p Problem, need int) ([][]int, error) {
	var labels []int
	if p.Classes != nil {
		labels = ArgMax(p.T, p.M)
	}
	groups, err := holdout.Groups(labels, p.X.Len(), p.M, p.Classes, need)
	return groups, dataErr(err)
}

// dataErr wraps a splitter's error in ErrData (nil stays nil).
func dataErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %v", ErrData, err)
}

// subset returns the problem of the images idx of p.
func (p Problem) subset(idx []int) Problem {
	d := p.X.Dim()
	q := Problem{X: Images{Rows: p.X.Rows, Cols: p.X.Cols, Channels: p.X.Channels, Pix: make([]float32, 0, len(idx)*d)}, M: p.M, Classes: p.Classes}
	q.T = make([]float64, 0, len(idx)*p.M)
	for _, i := range idx {
		q.X.Pix = append(q.X.Pix, p.X.Image(i)...)
		q.T = append(q.T, p.T[i*p.M:(i+1)*p.M]...)
	}
	return q
}

// foldTraining returns the training part of fold f: the images of every
// other fold, in increasing order (holdout.Training).
func foldTraining(folds [][]int, f int) []int { return holdout.Training(folds, f) }
