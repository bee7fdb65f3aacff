package scn

import "testing"

// TestSelectionForSize: small sets move to as many folds as the smallest
// class allows (at most SmallSetFolds); large sets, and sets where no two
// folds fit, keep the selection they were given.
func TestSelectionForSize(t *testing.T) {
	base := Selection{Validation: 0.1, Points: 7}
	cases := []struct {
		name   string
		n      int
		counts []int
		folds  int
	}{
		{"regression, small", 100, nil, SmallSetFolds},
		{"regression, at the limit", SmallSetImages, nil, SmallSetFolds},
		{"regression, large", SmallSetImages + 1, nil, 0},
		{"classes of 7 (ORL)", 280, []int{7, 7, 7, 7}, 5},
		{"smallest class of 3", 100, []int{50, 47, 3}, 3},
		{"a class of one", 100, []int{99, 1}, 0},
		{"classes, large", 60000, []int{6000, 1}, 0},
		{"three images", 3, nil, 3},
		{"one image", 1, nil, 0},
		{"no images", 0, nil, 0},
	}
	for _, c := range cases {
		got := base.ForSize(c.n, c.counts)
		if got.Folds != c.folds || got.Validation != base.Validation || got.Points != base.Points {
			t.Errorf("%s: ForSize(%d, %v) = %+v, want %d folds and the rest as given", c.name, c.n, c.counts, got, c.folds)
		}
	}
	// The selection's other fields pass through; a folds count already
	// set is replaced for a small set (callers told a split keep theirs).
	s := Selection{Folds: 10, Points: 9, Patience: 2}
	if got := s.ForSize(500, []int{100, 400}); got.Folds != SmallSetFolds || got.Points != 9 || got.Patience != 2 {
		t.Errorf("ForSize kept %+v", got)
	}
}
