package suffstats

import (
	"fmt"
	"slices"

	"github.com/scn2d/scn/internal/cfgerr"
)

// Check refuses k images of m targets of the given classes (nil:
// unnamed) that the sum cannot take: other outputs or classes, or more
// images than it was started for (cfgerr.DataError values).
func (a *BatchSum) Check(m int, classes []string, k int) error {
	s := a.S
	if m != s.M || (classes != nil && !slices.Equal(classes, s.Classes)) {
		return cfgerr.Data("images of %d targets (classes %q) for statistics of %d (%q)", m, classes, s.M, s.Classes)
	}
	if a.Seen+k > a.N {
		return cfgerr.Data("%d images beyond the %d the statistics were started for", a.Seen+k-a.N, a.N)
	}
	return nil
}

// End ends the sum (Sums) once every image it was started for was added;
// it refuses a second call (ErrStats) and a count short of the start's (a
// cfgerr.DataError).
func (a *BatchSum) End() (*Sums, error) {
	if a.Done() {
		return nil, fmt.Errorf("%w: Stats called twice", ErrStats)
	}
	if a.Seen != a.N {
		return nil, cfgerr.Data("statistics of %d images, started for %d", a.Seen, a.N)
	}
	return a.Sums(), nil
}
