package holdout

import (
	"slices"
	"testing"
)

// TestHoldOutStratified: every image lands in exactly one part, each class
// keeps about its share held out (at least one each side), the parts are
// sorted, and the seed alone fixes them.
func TestHoldOutStratified(t *testing.T) {
	labels := make([]int, 103)
	for i := range labels {
		labels[i] = i % 3
	}
	labels[0] = 3 // a class of 1 image... refused below with need 2
	if _, err := Groups(labels, len(labels), 4, []string{"a", "b", "c", "d"}, 2); err == nil {
		t.Fatal("a class of one image accepted for a hold-out")
	}
	labels[0] = 0
	split := func(seed uint64) ([]int, []int) {
		g, err := Groups(labels, len(labels), 4, []string{"a", "b", "c", "d"}, 2)
		if err != nil {
			t.Fatal(err)
		}
		train, held, err := HoldOut(g, true, 0.2, seed)
		if err != nil {
			t.Fatal(err)
		}
		return train, held
	}
	train, held := split(7)
	if !slices.IsSorted(train) || !slices.IsSorted(held) {
		t.Error("parts not in increasing order")
	}
	all := append(slices.Clone(train), held...)
	slices.Sort(all)
	for i, v := range all {
		if v != i {
			t.Fatalf("image %d missing or repeated in the parts", i)
		}
	}
	perClass := make([]int, 3)
	for _, i := range held {
		perClass[labels[i]]++
	}
	for c, k := range perClass {
		if k < 6 || k > 8 {
			t.Errorf("class %d: %d held out of about 34, want about 7", c, k)
		}
	}
	t2, h2 := split(7)
	if !slices.Equal(train, t2) || !slices.Equal(held, h2) {
		t.Error("the same seed gives other parts")
	}
	if _, h3 := split(8); slices.Equal(held, h3) {
		t.Error("the parts do not depend on the seed")
	}
	// Regression: a share too small to hold one image out is refused.
	g, _ := Groups(nil, 10, 1, nil, 2)
	if _, _, err := HoldOut(g, false, 0.01, 1); err == nil {
		t.Error("holding out no image accepted")
	}
}

// TestFolds: the folds cover every image once, differ in size by at most
// one, and Training is the union of the others.
func TestFolds(t *testing.T) {
	labels := []int{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0}
	g, err := Groups(labels, 11, 2, []string{"x", "y"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	folds, err := Folds(g, 11, 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, f := range folds {
		if len(f) < 3 || len(f) > 4 || !slices.IsSorted(f) {
			t.Errorf("fold %v", f)
		}
		for _, i := range f {
			if seen[i] {
				t.Fatalf("image %d in two folds", i)
			}
			seen[i] = true
		}
	}
	if tr := Training(folds, 1); len(tr) != 11-len(folds[1]) || !slices.IsSorted(tr) {
		t.Errorf("training part of fold 1: %v", tr)
	}
	if _, err := Folds([][]int{{0, 1}}, 2, 3, 1); err == nil {
		t.Error("2 images dealt into 3 folds")
	}
}

// TestGrid: the prefix lengths are sorted, distinct, in [1, l], include l
// and about the points asked for; checkpoints add their first and at most
// maxInGrid of them.
func TestGrid(t *testing.T) {
	for _, l := range []int{1, 7, 100, 5000} {
		g := Grid(l, 20, 0, 16)
		if !slices.IsSorted(g) || g[0] < 1 || g[len(g)-1] != l || len(g) > 21 {
			t.Errorf("l = %d: grid %v", l, g)
		}
		for i := 1; i < len(g); i++ {
			if g[i] == g[i-1] {
				t.Errorf("l = %d: %d twice", l, g[i])
			}
		}
	}
	g := Grid(6400, 2, 64, 16)
	cp := 0
	for _, v := range g {
		if v%64 == 0 && v != 6400 {
			cp++
		}
	}
	if !slices.Contains(g, 64) || cp > 17 || len(g) < 10 {
		t.Errorf("checkpoints every 64 of 6400: grid %v", g)
	}
}

func TestHeldMask(t *testing.T) {
	labels := make([]int, 60)
	for i := range labels {
		labels[i] = i % 3
	}
	classes := []string{"a", "b", "c"}
	mask, nTrain, nHeld, err := HeldMask(labels, 60, 3, classes, 0.25, 9)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := Groups(labels, 60, 3, classes, 2)
	if err != nil {
		t.Fatal(err)
	}
	train, held, err := HoldOut(groups, true, 0.25, 9)
	if err != nil {
		t.Fatal(err)
	}
	if nTrain != len(train) || nHeld != len(held) || len(mask) != 60 {
		t.Fatalf("sizes %d, %d (mask %d), want %d, %d", nTrain, nHeld, len(mask), len(train), len(held))
	}
	for _, i := range held {
		if !mask[i] {
			t.Fatalf("held-out image %d not marked", i)
		}
	}
	for _, i := range train {
		if mask[i] {
			t.Fatalf("training image %d marked", i)
		}
	}
	// Regression: one group; a class of one image is refused.
	if _, nt, nh, err := HeldMask(nil, 10, 1, nil, 0.3, 1); err != nil || nt+nh != 10 || nh < 1 {
		t.Errorf("regression: %d + %d, %v", nt, nh, err)
	}
	if _, _, _, err := HeldMask([]int{0, 0, 1}, 3, 2, []string{"a", "b"}, 0.5, 1); err == nil {
		t.Error("a class of one image split")
	}
}
