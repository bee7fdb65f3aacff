package scn

// Small training sets are selected by k-fold cross-validation rather than
// one hold-out: a 10% hold-out of a few hundred images is a few dozen,
// where many (L, ridge) pairs tie (ORL with 7 images per subject: 40
// held-out faces, L = 100 chosen on a tie, 92.5% on the test images
// against 96.7% with 5 folds and 99.2% by hindsight). The extra fits cost
// little on such sets. SmallSetImages is the largest set Selection.ForSize
// moves to folds, SmallSetFolds the most folds it takes.
const (
	SmallSetImages = 2000
	SmallSetFolds  = 5
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
	if n > SmallSetImages {
		return s
	}
	folds := min(SmallSetFolds, n)
	for _, c := range classCounts {
		folds = min(folds, c)
	}
	if folds < 2 {
		return s
	}
	s.Folds = folds
	return s
}
