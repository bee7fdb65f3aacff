package classweight

import (
	"math"
	"slices"
	"testing"
)

// TestBalanced: weights n / (m n_c) worked out by hand; a class without
// images weighs 1; the weighted counts are equal (n / m each).
func TestBalanced(t *testing.T) {
	labels := []int{0, 0, 0, 1, 2, 2, 0, 0} // counts 5, 1, 2; class 3 empty
	w := Balanced(labels, 8, 4)
	want := []float64{8.0 / 20, 8.0 / 4, 8.0 / 8, 1}
	if !slices.Equal(w, want) {
		t.Fatalf("Balanced %v, want %v", w, want)
	}
	for c, k := range []int{5, 1, 2} {
		if got := w[c] * float64(k); math.Abs(got-2) > 1e-15 {
			t.Errorf("class %d weighs %v images, want n / m = 2", c, got)
		}
	}
}

// TestFor: weights carried by name, 1 for a class not named, nil for nil.
func TestFor(t *testing.T) {
	w := []float64{2, 3, 5}
	from := []string{"a", "b", "c"}
	if got := For(w, from, []string{"c", "x", "a"}); !slices.Equal(got, []float64{5, 1, 2}) {
		t.Errorf("For %v", got)
	}
	if For(nil, from, from) != nil {
		t.Error("For of nil weights is not nil")
	}
	if got := For(w, from, nil); got == nil || len(got) != 0 {
		t.Errorf("For of no classes %v", got)
	}
}

// TestSame: alike on the classes both name, with 1 for a class only one
// side names; nil only against nil.
func TestSame(t *testing.T) {
	a, b := []string{"a", "b"}, []string{"b", "a", "c"}
	cases := []struct {
		wa, wb []float64
		want   bool
	}{
		{[]float64{2, 3}, []float64{3, 2, 1}, true},
		{[]float64{2, 3}, []float64{3, 2, 4}, false}, // c weighs 4 on one side, 1 on the other
		{[]float64{2, 3}, []float64{3, 2.5, 1}, false},
		{nil, nil, true},
		{nil, []float64{1, 1, 1}, false},
	}
	for i, c := range cases {
		if got := Same(c.wa, a, c.wb, b); got != c.want {
			t.Errorf("case %d: Same %v, want %v", i, got, c.want)
		}
		if got := Same(c.wb, b, c.wa, a); got != c.want {
			t.Errorf("case %d: Same is not symmetric", i)
		}
	}
}

// TestRoots: each image gets the square root of its class's weight.
func TestRoots(t *testing.T) {
	got := Roots([]float64{4, 9, 1}, []int{1, 0, 2, 1})
	if !slices.Equal(got, []float64{3, 2, 1, 3}) {
		t.Errorf("Roots %v", got)
	}
}

func TestCheck(t *testing.T) {
	if err := Check([]float64{1, 0.5}, 2); err != nil {
		t.Fatal(err)
	}
	for _, w := range [][]float64{{1}, {1, 0}, {1, -1}, {1, math.Inf(1)}, {math.NaN(), 1}} {
		if Check(w, 2) == nil {
			t.Errorf("Check(%v, 2) = nil", w)
		}
	}
}
