package scn

import "github.com/scn2d/scn/internal/holdout"

// Small training sets are selected by k-fold cross-validation rather than
// one hold-out (internal/holdout's FoldsForSize says why). SmallSetImages
// is the largest set Selection.ForSize moves to folds, SmallSetFolds the
// most folds it takes.
const (
	SmallSetImages = holdout.SmallSetImages
	SmallSetFolds  = holdout.SmallSetFolds
)

// ForSize returns s adjusted to a training set of n images, classCounts
// holding the images of each class (nil for regression): for at most
// SmallSetImages images, k-fold cross-validation with as many folds as the
// smallest class allows (at most SmallSetFolds); s as it is for larger
// sets, and where a class of one image (or a set of one) leaves no two
// folds: the hold-out then says why it cannot split it. It is the rule
// scn train and scn compare apply when neither a hold-out share nor a
// number of folds was asked for; a caller that was told either keeps s.
func (s Selection) ForSize(n int, classCounts []int) Selection {
	if folds := holdout.FoldsForSize(n, classCounts); folds > 0 {
		s.Folds = folds
	}
	return s
}
