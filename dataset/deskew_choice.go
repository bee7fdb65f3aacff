package dataset

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/scn2d/scn"
)

// A time budget (scn.Budget) can decide whether to deskew the training
// images when the caller did not say (scn train --budget without
// --deskew): ChooseDeskew runs the budget's probe on a sample of the
// images as read and deskewed, and keeps the deskewed images when the
// probe's held-out accuracy gains more than its noise (digits gain;
// clothes and faces, which are not slanted ink, do not).

// DeskewSample is how many training images ChooseDeskew probes on (the
// budget's probe uses at most 4000).
const DeskewSample = 4000

// DeskewChoice is what ChooseDeskew decided, with what it measured.
type DeskewChoice struct {
	// Set and Prep are the set to fit and its preprocessing: the set
	// given and its preprocessing, or the set deskewed and the
	// preprocessing with Deskew.
	Set  *Set
	Prep Preprocess
	// Rates are the probe's rates of the preparation kept, for the budget
	// to take (scn.Budget.Rates) instead of probing again; nil when there
	// was no probe.
	Rates *scn.Rates
	// NoRoom says that there was no probe: a deskewed copy of the set
	// (which deskewing holds beside the set for a moment) takes more than
	// the budget's MaxBytes. The set is kept as read.
	NoRoom bool
	// AsRead and Deskewed are the probe's results on the sample as read
	// and deskewed (zero without a probe); Margin is the gain in held-out
	// accuracy the deskewed sample had to show (DeskewMargin).
	AsRead, Deskewed scn.Probe
	Margin           float64
}

// Deskew reports whether the choice deskews the images.
func (c DeskewChoice) Deskew() bool { return c.Prep.Deskew }

// ChooseDeskew decides, for a fit within the budget b of the set s
// prepared with p (p without Deskew), whether to deskew s: it draws a
// sample of DeskewSample images (at most; the draw is seeded by b.Seed),
// runs the budget's probe (scn.Budget.ProbeInputs) on it as read and
// deskewed, and deskews the whole set if the deskewed sample's held-out
// accuracy exceeds the other's by more than DeskewMargin. Without room for
// a deskewed copy of s in b.MaxBytes (when positive) it keeps s without
// probing. The choice says which, with what was measured.
func ChooseDeskew(ctx context.Context, b scn.Budget, s *Set, p Preprocess) (DeskewChoice, error) {
	keep := DeskewChoice{Set: s, Prep: p}
	if b.MaxBytes > 0 && s.Shape().Bytes() > b.MaxBytes {
		keep.NoRoom = true
		return keep, nil
	}
	n := min(s.Len(), DeskewSample)
	idx := rand.New(rand.NewPCG(b.Seed, 0xde5c)).Perm(s.Len())[:n]
	sort.Ints(idx)
	sample := s.Subset(idx)
	skewed, err := Prepare(sample, Preprocess{Deskew: true})
	if err != nil {
		return DeskewChoice{}, err
	}
	var probs [2]scn.Problem
	for i, set := range []*Set{sample, skewed} {
		if probs[i], err = set.Problem(); err != nil {
			return DeskewChoice{}, err
		}
	}
	pr, err := b.ProbeInputs(ctx, s.Len(), probs[:])
	if err != nil {
		return DeskewChoice{}, err
	}
	keep.AsRead, keep.Deskewed, keep.Margin = pr[0], pr[1], DeskewMargin(pr[0])
	if !(keep.Deskewed.Accuracy-keep.AsRead.Accuracy > keep.Margin) {
		r := keep.AsRead.Rates
		keep.Rates = &r
		return keep, nil
	}
	if keep.Set, err = Prepare(s, Preprocess{Deskew: true}); err != nil {
		return DeskewChoice{}, err
	}
	keep.Prep.Deskew = true
	r := keep.Deskewed.Rates
	keep.Rates = &r
	return keep, nil
}

// DeskewMargin is the gain in the probe's held-out accuracy that the
// deskewed images must show over the images as read: one standard error
// of an accuracy on that many held-out images (about the noise of a paired
// comparison on them), so that the noise of a sample of a thousand images
// does not decide. Measured: Fashion-MNIST's probe gained 0.30 points
// (margin 1.2) where a full fit loses 0.2; MNIST's gained 1.9 (margin
// 0.66) and a full fit gains 0.34.
func DeskewMargin(asRead scn.Probe) float64 {
	a := asRead.Accuracy
	return math.Sqrt(a * (1 - a) / float64(max(asRead.Held, 1)))
}
