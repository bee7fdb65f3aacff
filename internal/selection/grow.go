package selection

import (
	"fmt"
	"time"

	"github.com/scn2d/scn/internal/holdout"
)

// Growth past L_max (scn's Selection.Grow).
//
// L_max is where selection starts, not a cap: a fit of L_max nodes is
// scored on held-out data as usual, and when the held-out curve still
// improves at the end (the best score over the prefixes of its second
// half beats the best of the first half by more than a standard error,
// see gains: the last doubling paid), the fit is made again with twice the nodes (the same seed: the
// first nodes are drawn as before), scored again, and so on. Growth stops
// when
//
//   - the second half gains nothing, or the fit's choice does not gain
//     over the previous fit's ("held-out score stopped improving"): the
//     model with the better score is kept;
//   - the fit stopped by itself before its L_max (no admissible candidate,
//     tolerance, patience);
//   - twice the nodes would pass GrowLimit, or Afford refuses the fit (the
//     memory limit), or the next fit would end after Deadline.
//
// The fits are made one after another, each from scratch: growth to 8
// L_max costs about 15 L_max of fitting (1 + 2 + 4 + 8), where the held-out
// curve of each fit is complete. Choice.Growth records the fits' sizes and
// the reason growth stopped; Choice.FitNodes is the last fit's.

// Grow runs the fits of growth past L_max from a fit of first nodes: fit
// makes and selects one of the given nodes without growth (in memory or
// streamed), fitted says what g.Next reads of its model (and whether it
// classifies); g decides what is kept and when growth stops (its Record
// is the choice's Growth). afford, if not nil, may refuse the next fit's
// nodes (its error the reason), growing, if not nil, is told of each
// growth fit before it runs, and cancelled reports a cancelled context
// (a grown fit that failed otherwise leaves the model kept so far).
func Grow[M any](g *holdout.Growth, first int, fit func(nodes int) (M, error), fitted func(M) (holdout.Fitted, bool), afford func(nodes int) error, growing func(nodes int), cancelled func() bool) (M, error) {
	cur := first
	var kept M // the best model so far
	have := false
	for {
		start := time.Now()
		m, err := fit(cur)
		if err != nil {
			if have && !cancelled() {
				// A grown fit failed (singular, say): keep what we had.
				g.Failed(cur, err)
				break
			}
			return m, err
		}
		took := time.Since(start)
		f, classify := fitted(m)
		keep, next := g.Next(f, cur, classify, took, time.Now())
		if keep {
			kept, have = m, true
		}
		if next > 0 && afford != nil {
			if err := afford(next); err != nil {
				g.Stop(fmt.Sprintf("memory limit: %v", err))
				next = 0
			}
		}
		if next == 0 {
			break
		}
		if growing != nil {
			growing(next)
		}
		cur = next
	}
	return kept, nil
}
