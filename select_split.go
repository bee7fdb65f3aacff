package scn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

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
	return splitGroups(groups, p.Classes != nil, share, seed)
}

// splitGroups is splitHoldout on the class groups of classGroups (one
// group for regression).
func splitGroups(groups [][]int, classify bool, share float64, seed uint64) (train, held []int, err error) {
	rng := rand.New(rand.NewPCG(seed, 0x5e1ec7))
	for _, g := range groups {
		rng.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
		k := int(math.Round(share * float64(len(g))))
		if classify {
			k = min(max(k, 1), len(g)-1)
		} else if k < 1 || k >= len(g) {
			return nil, nil, fmt.Errorf("%w: holding out %v of %d images leaves %d for validation", ErrData, share, len(g), k)
		}
		held = append(held, g[:k]...)
		train = append(train, g[k:]...)
	}
	sort.Ints(train)
	sort.Ints(held)
	return train, held, nil
}

// splitFolds deals p's images into k folds, class by class for
// classification so that each fold has its share of every class.
func splitFolds(p Problem, k int, seed uint64) ([][]int, error) {
	rng := rand.New(rand.NewPCG(seed, 0xf01d5))
	groups, err := classGroups(p, k)
	if err != nil {
		return nil, err
	}
	folds := make([][]int, k)
	next := 0
	for _, g := range groups {
		rng.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
		for _, i := range g {
			folds[next%k] = append(folds[next%k], i)
			next++
		}
	}
	for f := range folds {
		if len(folds[f]) == 0 {
			return nil, fmt.Errorf("%w: %d images cannot fill %d folds", ErrData, p.X.Len(), k)
		}
		sort.Ints(folds[f])
	}
	return folds, nil
}

// classGroups returns the image indices of each class (one group of all
// images for regression), refusing a class with fewer than need images.
func classGroups(p Problem, need int) ([][]int, error) {
	var labels []int
	if p.Classes != nil {
		labels = ArgMax(p.T, p.M)
	}
	return labelGroups(labels, p.X.Len(), p.M, p.Classes, need)
}

// labelGroups is classGroups from the images' classes (labels; nil for
// regression, with n images).
func labelGroups(labels []int, n, m int, classes []string, need int) ([][]int, error) {
	if classes == nil {
		if n < need {
			return nil, fmt.Errorf("%w: %d images, selection needs at least %d", ErrData, n, need)
		}
		g := make([]int, n)
		for i := range g {
			g[i] = i
		}
		return [][]int{g}, nil
	}
	groups := make([][]int, m)
	for i, c := range labels {
		groups[c] = append(groups[c], i)
	}
	kept := groups[:0]
	for c, g := range groups {
		if len(g) == 0 {
			continue // a class with no image at all has nothing to hold out
		}
		kept = append(kept, g)
		if len(g) < need {
			return nil, fmt.Errorf("%w: class %q has %d image(s); model selection needs at least %d per class (turn validation off, or add images)", ErrData, classes[c], len(g), need)
		}
	}
	return kept, nil
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
// other fold, in increasing order.
func foldTraining(folds [][]int, f int) []int {
	var train []int
	for g, idx := range folds {
		if g != f {
			train = append(train, idx...)
		}
	}
	sort.Ints(train)
	return train
}
