// Package holdout is the pure part of scn's model selection on held-out
// images: dealing images into the parts (a stratified hold-out share and
// stratified folds, from the images' class groups, one group of every
// image for regression, deterministic in a seed: holdout.go), and scoring
// a fit's prefixes on held-out images read batch by batch while summing
// their normal equations for the refit (Scorer, scorer.go: a streamed
// selection's held-out pass); the held-out scores of the grid's points
// (Point, the fields of scn.Score), their order, the one-standard-error
// rule and k-fold's pooling of the folds' scores (Pool, points.go). It
// works on image indices, scores, hidden outputs
// and targets only; the root package scn builds the problems of the parts
// (Problem.subset), forms the hidden outputs and the prefixes' output
// weights, and wraps the errors here, which say what is wrong with the
// data, in scn.ErrData.
//
// The selection's held-out arithmetic is here too (eval.go): a prefix's
// score from its output weights and the held-out hidden outputs (Held),
// direct links' scores, Patience's stop, local nodes' ridge terms scored
// on held-out rows (RidgeScores), growth's test of the fit's second half
// (LateGain), the default ridge grid, the settings' checks and the rule
// that moves small sets to folds (FoldsForSize); and growth past L_max's
// decisions (Growth, grow.go: which fit is kept, when growth stops and
// why); and when a fit under Patience is scored (Schedule, Upto,
// schedule.go).
//
// It may import the standard library, internal/linalg (the products),
// internal/lsq (Grow, the solves) and internal/score (the scores) only;
// never the root package scn or any package above it.
package holdout

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Groups returns the image indices of each class (labels, m classes named
// classes; one group of the n images for regression, classes nil),
// leaving out classes without images and refusing a class with fewer than
// need images.
func Groups(labels []int, n, m int, classes []string, need int) ([][]int, error) {
	if classes == nil {
		if n < need {
			return nil, fmt.Errorf("%d images, selection needs at least %d", n, need)
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
			return nil, fmt.Errorf("class %q has %d image(s); model selection needs at least %d per class (turn validation off, or add images)", classes[c], len(g), need)
		}
	}
	return kept, nil
}

// HoldOut splits the groups (shuffled in place) into a training and a
// held-out part: for classification, about share of each class's images
// held out (at least one, and at least one left for training); for
// regression, a shuffled share of all images. Indices are in increasing
// order in both parts.
func HoldOut(groups [][]int, classify bool, share float64, seed uint64) (train, held []int, err error) {
	rng := rand.New(rand.NewPCG(seed, 0x5e1ec7))
	for _, g := range groups {
		rng.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
		k := int(math.Round(share * float64(len(g))))
		if classify {
			k = min(max(k, 1), len(g)-1)
		} else if k < 1 || k >= len(g) {
			return nil, nil, fmt.Errorf("holding out %v of %d images leaves %d for validation", share, len(g), k)
		}
		held = append(held, g[:k]...)
		train = append(train, g[k:]...)
	}
	sort.Ints(train)
	sort.Ints(held)
	return train, held, nil
}

// Folds deals the groups' images (shuffled in place; n images in all)
// into k folds, group by group so that each fold has its share of every
// class, each fold in increasing order.
func Folds(groups [][]int, n, k int, seed uint64) ([][]int, error) {
	rng := rand.New(rand.NewPCG(seed, 0xf01d5))
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
			return nil, fmt.Errorf("%d images cannot fill %d folds", n, k)
		}
		sort.Ints(folds[f])
	}
	return folds, nil
}

// Training returns the training part of fold f: the images of every
// other fold, in increasing order.
func Training(folds [][]int, f int) []int {
	var train []int
	for g, idx := range folds {
		if g != f {
			train = append(train, idx...)
		}
	}
	sort.Ints(train)
	return train
}

// HeldMask deals n images into a training part and a held-out share as
// HoldOut does (labels: their classes, nil for regression; m classes
// named classes; every class needs two images), and returns which images
// are held out and the two parts' sizes.
func HeldMask(labels []int, n, m int, classes []string, share float64, seed uint64) (held []bool, nTrain, nHeld int, err error) {
	groups, err := Groups(labels, n, m, classes, 2)
	if err != nil {
		return nil, 0, 0, err
	}
	train, h, err := HoldOut(groups, classes != nil, share, seed)
	if err != nil {
		return nil, 0, 0, err
	}
	held = make([]bool, n)
	for _, i := range h {
		held[i] = true
	}
	return held, len(train), len(h), nil
}

// MaxCheckpoints bounds the checkpoints (a budget's blocks) Grid adds to
// the grid of scn's selection.
const MaxCheckpoints = 16

// Grid returns the prefix lengths model selection scores for a fit of l
// nodes: about points values (at least 2), half spread geometrically
// (small L matters on small data) and half linearly, always including l;
// with checkpoints every k = checkpoints nodes (a budget's blocks), the
// first of them and at most maxInGrid in all.
func Grid(l, points, checkpoints, maxInGrid int) []int {
	pts := max(2, points)
	seen := map[int]bool{l: true}
	if k := checkpoints; k > 0 {
		// The first checkpoint and at most maxInGrid in all:
		// every prefix length scored costs two triangular solves per ridge.
		stride := (l/k + maxInGrid - 1) / maxInGrid
		for j := 1; j*k <= l; j++ {
			if j == 1 || j%max(stride, 1) == 0 {
				seen[j*k] = true
			}
		}
	}
	for i := 0; i < pts/2; i++ {
		g := int(math.Round(math.Pow(float64(l), float64(i+1)/float64(pts/2))))
		seen[max(1, min(l, g))] = true
		seen[max(1, l*(i+1)/(pts-pts/2))] = true
	}
	out := make([]int, 0, len(seen))
	for v := range seen {
		if v <= l {
			out = append(out, v)
		}
	}
	sort.Ints(out)
	return out
}
