package scn

import (
	"fmt"
	"slices"

	"github.com/scn2d/scn/internal/augment"
)

// Sufficient statistics of models of local nodes (Config.Local; issue 31
// item 5).
//
// A local model's hidden outputs are the pooled outputs of its filters,
// standardised when the model records a standardisation (LocalLayer.Mean
// and Scale, fixed by the fit on its training images): the very values its
// predictions multiply by the output weights (Model.hidden, hiddenLocal).
// Their sums G, H^T T and T^T T are formed as for global nodes, and the
// standardisation stays the fit's: new images are standardised with the
// training images' moments, as predictions standardise them, so that
// statistics of any images of the same model add up.
//
// A model fitted with augmentation (Config.Augment recorded: its output
// weights solve the sums of the images and of their copies) sums each
// image's copies too, the Extra() copies of image i of the set being
// Augment.moves(N, Seed)[i*Extra() ...], drawn from the model's seed as
// the fit draws them: the statistics of the training images then hold
// every row of the fit's least squares and solve to its output weights.
// The statistics of other images (scn update, scn serve --learn) hold
// their copies drawn the same way from their positions in the set summed
// (not the copies a fit on the union would draw: for an augmented model,
// an update is the least squares of the old rows and the new images'
// rows, each with its own copies). Stats.N and ClassCounts count rows,
// copies included; the solved model's Summary.Samples counts images.

// augmentRows returns the rows per image of m's statistics: 1, or 1 +
// the copies of an augmented local model.
func (m *Model) augmentRows() int {
	if m.Local == nil || m.Config.Augment == nil {
		return 1
	}
	return 1 + m.Config.Augment.Extra()
}

// forStatsRows calls f with the hidden outputs (the first lh nodes, as
// forHidden does) of every row of m's statistics over x: the images, then
// for an augmented local model each copy c of every image (all images'
// copy c, then copy c+1), a batch of consecutive images lo ... lo+rows-1
// at a time, so that row i of a batch belongs to image lo+i. The copies
// are those of images first ... first+N-1 of a set (StatsFrom; 0: x is
// the set).
func (m *Model) forStatsRows(lh int, x Images, first int, f func(lo, rows int, hb []float32)) error {
	if err := m.checkStatsRows(x); err != nil {
		return err
	}
	extra := m.augmentRows() - 1
	forHidden(m, lh, x, f)
	if extra == 0 {
		return nil
	}
	n, d, l := x.Len(), x.Dim(), m.localOutputs()
	moves := m.Config.Augment.movesFrom(first, n, m.Config.Seed)
	layers := m.localLayers()
	b := min(n, localBatch)
	img := make([]float32, b*d)
	h := make([]float32, b*l)
	ht := make([]float32, b*l)
	for c := 0; c < extra; c++ {
		for lo := 0; lo < n; lo += localBatch {
			r := min(localBatch, n-lo)
			for k := 0; k < r; k++ {
				i := lo + k
				augment.Image(img[k*d:(k+1)*d], x.Pix[i*d:(i+1)*d], x.Rows, x.Cols, x.Chans(), moves[i*extra+c])
			}
			if err := m.localFeatures(layers, img[:r*d], r, h); err != nil {
				return err
			}
			for k := 0; k < r; k++ {
				for j := 0; j < l; j++ {
					ht[j*r+k] = h[k*l+j]
				}
			}
			f(lo, r, ht[:l*r])
		}
	}
	return nil
}

// checkStatsRows reports why m's statistics rows cannot be formed on x
// (whose shape checkInput accepted), if they cannot.
func (m *Model) checkStatsRows(x Images) error {
	if m.augmentRows() == 1 {
		return nil
	}
	if m.Direct != nil {
		return fmt.Errorf("%w: direct links of augmented copies (a model with both has no statistics yet)", ErrStats)
	}
	if err := m.Config.Augment.ForImages(x.Rows, x.Cols); err != nil {
		return fmt.Errorf("%w: %v", ErrStats, err)
	}
	return nil
}

// sameLocal reports the first way in which the local layers (filters and
// their whitening, geometry, standardisation, augmentation) of two recipes differ, nil if
// they do not.
func sameLocal(a, b *Model) error {
	la, lb := a.Local, b.Local
	switch {
	case la == nil && lb == nil:
		return nil
	case (la == nil) != (lb == nil):
		return fmt.Errorf("%w: statistics of local (convolutional) nodes and of global nodes", ErrStats)
	case !sameGeometry(&la.Geometry, &lb.Geometry):
		return fmt.Errorf("%w: local nodes of geometry %v and %v", ErrStats, &la.Geometry, &lb.Geometry)
	case len(la.Banks) != len(lb.Banks):
		return fmt.Errorf("%w: %d and %d banks of local filters", ErrStats, len(la.Banks), len(lb.Banks))
	case !sameSecond(la, lb):
		return fmt.Errorf("%w: the second layers of local filters differ (statistics of another model's filters)", ErrStats)
	}
	for i := range la.Banks {
		ba, bb := &la.Banks[i], &lb.Banks[i]
		if ba.Size != bb.Size || !slices.Equal(ba.Params, bb.Params) || !slices.Equal(ba.Bias, bb.Bias) || !slices.Equal(ba.Whiten, bb.Whiten) {
			return fmt.Errorf("%w: the local filters of bank %d differ (statistics of another model's filters)", ErrStats, i)
		}
	}
	if !slices.Equal(la.Mean, lb.Mean) || !slices.Equal(la.Scale, lb.Scale) {
		return fmt.Errorf("%w: the pooled outputs' standardisations differ (statistics of another standardisation of the filters)", ErrStats)
	}
	if a.augmentRows() > 1 || b.augmentRows() > 1 {
		aa, ab := a.Config.Augment, b.Config.Augment
		if aa == nil || ab == nil || *aa != *ab || a.Config.Seed != b.Config.Seed {
			return fmt.Errorf("%w: augmentation %v (seed %d) and %v (seed %d): the rows summed differ", ErrStats,
				aa, a.Config.Seed, ab, b.Config.Seed)
		}
	}
	return nil
}

// sameGeometry reports whether two local geometries are equal.
func sameGeometry(a, b *Local) bool {
	return slices.Equal(a.Sizes, b.Sizes) && a.Filters == b.Filters && a.Stride == b.Stride && a.Pad == b.Pad &&
		a.Pool == b.Pool && a.Pooling == b.Pooling && a.TwoSided == b.TwoSided && a.Standardize == b.Standardize &&
		a.Whiten == b.Whiten && a.WhitenEps == b.WhitenEps && sameSecondGeometry(a.Second, b.Second)
}

// Images returns the images the statistics were summed over: N, or for an
// augmented local recipe N over the rows per image (each image and its
// copies).
func (s *Stats) Images() int { return s.N / s.Recipe.augmentRows() }
