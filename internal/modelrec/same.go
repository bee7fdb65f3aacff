package modelrec

import (
	"fmt"
	"slices"

	"github.com/scn2d/scn/internal/augment"
	"github.com/scn2d/scn/internal/classweight"
	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/statsfile"
)

// AugmentRows returns the rows per image of the model's statistics: 1, or
// 1 + the copies of an augmented local model.
func (m *Model) AugmentRows() int {
	if m.Local == nil || m.Augment == nil {
		return 1
	}
	return 1 + m.Augment.Extra()
}

// directPool returns the direct links' pooling side, 0 without them.
func (m *Model) directPool() int {
	if m.Direct == nil {
		return 0
	}
	return m.Direct.Pool
}

// SameRecipe reports the first field in which two statistics' recipes
// differ (an error wrapping statsfile.ErrStats), nil if the statistics of
// the one add up with the other's.
func SameRecipe(a, b *Model) error {
	errStats := statsfile.ErrStats
	switch {
	case (a.Local == nil) != (b.Local == nil):
		return sameLocal(a, b)
	case a.Kind != b.Kind:
		return fmt.Errorf("%w: kind %v and %v", errStats, a.Kind, b.Kind)
	case a.Activation != b.Activation:
		return fmt.Errorf("%w: activation %v and %v", errStats, a.ActivationName, b.ActivationName)
	case a.Rows != b.Rows || a.Cols != b.Cols:
		return fmt.Errorf("%w: image size %d x %d and %d x %d", errStats, a.Rows, a.Cols, b.Rows, b.Cols)
	case a.Chans() != b.Chans():
		return fmt.Errorf("%w: channels %d and %d", errStats, a.Chans(), b.Chans())
	case a.Nodes() != b.Nodes():
		return fmt.Errorf("%w: %d and %d hidden nodes", errStats, a.Nodes(), b.Nodes())
	case a.directPool() != b.directPool():
		return fmt.Errorf("%w: direct links pooled by %d and %d (0: none)", errStats, a.directPool(), b.directPool())
	case !slices.Equal(a.Params, b.Params):
		return fmt.Errorf("%w: the hidden nodes' parameters differ (statistics of another model's nodes)", errStats)
	case !slices.Equal(a.Bias, b.Bias):
		return fmt.Errorf("%w: the hidden nodes' biases differ (statistics of another model's nodes)", errStats)
	case a.Preprocessing != b.Preprocessing:
		return fmt.Errorf("%w: preprocessing %+v and %+v", errStats, a.Preprocessing, b.Preprocessing)
	case !classweight.Same(a.ClassWeights, a.Classes, b.ClassWeights, b.Classes):
		return fmt.Errorf("%w: class weights %v and %v (statistics weighted differently)", errStats, a.ClassWeights, b.ClassWeights)
	}
	return sameLocal(a, b)
}

// sameLocal reports the first way in which the local layers (filters and
// their whitening, geometry, standardisation, augmentation) of two
// recipes differ, nil if they do not.
func sameLocal(a, b *Model) error {
	errStats := statsfile.ErrStats
	la, lb := a.Local, b.Local
	switch {
	case la == nil && lb == nil:
		return nil
	case (la == nil) != (lb == nil):
		return fmt.Errorf("%w: statistics of local (convolutional) nodes and of global nodes", errStats)
	case !sameGeometry(&la.Geometry, &lb.Geometry):
		return fmt.Errorf("%w: local nodes of geometry %v and %v", errStats, &la.Geometry, &lb.Geometry)
	case len(la.Banks) != len(lb.Banks):
		return fmt.Errorf("%w: %d and %d banks of local filters", errStats, len(la.Banks), len(lb.Banks))
	case !la.SameSecond(lb):
		return fmt.Errorf("%w: the second layers of local filters differ (statistics of another model's filters)", errStats)
	}
	for i := range la.Banks {
		ba, bb := &la.Banks[i], &lb.Banks[i]
		if ba.Size != bb.Size || !slices.Equal(ba.Params, bb.Params) || !slices.Equal(ba.Bias, bb.Bias) || !slices.Equal(ba.Whiten, bb.Whiten) {
			return fmt.Errorf("%w: the local filters of bank %d differ (statistics of another model's filters)", errStats, i)
		}
	}
	if !slices.Equal(la.Mean, lb.Mean) || !slices.Equal(la.Scale, lb.Scale) {
		return fmt.Errorf("%w: the pooled outputs' standardisations differ (statistics of another standardisation of the filters)", errStats)
	}
	if a.AugmentRows() > 1 || b.AugmentRows() > 1 {
		aa, ab := a.Augment, b.Augment
		if aa == nil || ab == nil || *aa != *ab || a.Seed != b.Seed {
			return fmt.Errorf("%w: augmentation %v (seed %d) and %v (seed %d): the rows summed differ", errStats,
				augmentName(aa), a.Seed, augmentName(ab), b.Seed)
		}
	}
	return nil
}

// augmentName is scn.Augment's String: "none" for nil.
func augmentName(a *augment.Spec) string {
	if a == nil {
		return "none"
	}
	return a.String()
}

// sameGeometry reports whether two local geometries are equal.
func sameGeometry(a, b *localnet.Geometry) bool {
	return slices.Equal(a.Sizes, b.Sizes) && a.Filters == b.Filters && a.Stride == b.Stride && a.Pad == b.Pad &&
		a.Pool == b.Pool && a.Pooling == b.Pooling && a.TwoSided == b.TwoSided && a.Standardize == b.Standardize &&
		a.Whiten == b.Whiten && a.WhitenEps == b.WhitenEps && localnet.SameSecond(a.Second, b.Second)
}
