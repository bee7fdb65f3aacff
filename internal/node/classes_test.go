package node

import (
	"slices"
	"testing"
)

// TestClasses: the class of a row is its first largest output.
func TestClasses(t *testing.T) {
	tg := []float64{
		1, 0, 0,
		0, 0, 1,
		0, 1, 1, // a tie: the first
		-1, -2, -3,
	}
	if got, want := Classes(tg, 4, 3), []int{0, 2, 1, 0}; !slices.Equal(got, want) {
		t.Fatalf("Classes = %v, want %v", got, want)
	}
	if got := Classes(nil, 0, 3); len(got) != 0 {
		t.Fatalf("Classes of no rows = %v", got)
	}
}
