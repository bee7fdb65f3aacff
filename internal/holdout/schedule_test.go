package holdout

import (
	"slices"
	"testing"
)

// TestSchedule: each prefix length is due once, when the fit passes it;
// lengths passed together are due once.
func TestSchedule(t *testing.T) {
	s := Schedule{Grid: []int{10, 20, 30, 40}}
	var due []int
	for _, l := range []int{5, 10, 12, 35, 36, 40, 50} {
		if s.Due(l) {
			due = append(due, l)
		}
	}
	if !slices.Equal(due, []int{10, 35, 40}) {
		t.Errorf("due at %v, want [10 35 40]", due)
	}
	if got := Upto([]int{1, 5, 9, 12}, 9); !slices.Equal(got, []int{1, 5, 9}) {
		t.Errorf("Upto: %v", got)
	}
	if got := Upto([]int{3}, 2); got != nil {
		t.Errorf("Upto below the grid: %v", got)
	}
}
