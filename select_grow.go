package scn

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/scn2d/scn/internal/holdout"
)

// Growth past L_max (Selection.Grow).
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

// selectGrow is Select with growth past L_max.
func (c Config) selectGrow(ctx context.Context, p Problem, s Selection, progress func(Step), o runOpts) (*Model, error) {
	return c.growLoop(ctx, s, func(cur Config) (*Model, error) { return cur.selectOnce(ctx, p, s, progress, o) })
}

// growLoop runs the fits of growth past L_max, fit making and selecting
// one of cur.MaxNodes nodes without growth (in memory or streamed).
func (c Config) growLoop(ctx context.Context, s Selection, fit func(cur Config) (*Model, error)) (*Model, error) {
	limit := s.GrowLimit
	if limit <= 0 {
		limit = min(64*c.MaxNodes, maxNodes)
	}
	limit = min(limit, maxNodes)
	cur := c
	var kept *Model // the best model so far
	var sizes []string
	var reason string
	for {
		start := time.Now()
		m, err := fit(cur)
		if err != nil {
			if kept != nil && ctx.Err() == nil {
				// A grown fit failed (singular, say): keep what we had.
				reason = fmt.Sprintf("the fit of %d nodes failed (%v)", cur.MaxNodes, err)
				break
			}
			return m, err
		}
		took := time.Since(start)
		sizes = append(sizes, fmt.Sprint(m.Selection.FitNodes))
		ch := m.Selection
		classify := m.Classes != nil
		if kept != nil && !gains(choiceScore(ch), choiceScore(kept.Selection), classify, ch.Held) {
			reason = fmt.Sprintf("held-out score stopped improving: %d nodes gave no gain over %d", ch.FitNodes, kept.Selection.FitNodes)
			break
		}
		kept = m
		next := 2 * cur.MaxNodes
		switch {
		case ch.FitNodes < cur.MaxNodes:
			reason = fmt.Sprintf("the fit stopped at %d of %d nodes (%v)", ch.FitNodes, cur.MaxNodes, m.Summary.Stop)
		case !lateGain(ch, classify):
			reason = fmt.Sprintf("held-out score stopped improving: best at L = %d of %d, no gain in the second half", ch.Nodes, ch.FitNodes)
		case next > limit:
			reason = fmt.Sprintf("growth limit: %d nodes would pass %d", next, limit)
		case !s.Deadline.IsZero() && time.Now().Add(2*took).After(s.Deadline):
			reason = fmt.Sprintf("time budget: a fit of %d nodes would end past the deadline", next)
		}
		if reason == "" && s.Afford != nil {
			nc := cur
			nc.MaxNodes = next
			if err := s.Afford(nc); err != nil {
				reason = fmt.Sprintf("memory limit: %v", err)
			}
		}
		if reason != "" {
			break
		}
		if s.Growing != nil {
			s.Growing(next)
		}
		cur.MaxNodes = next
	}
	kept.Selection.Growth = fmt.Sprintf("fits of %s nodes; growth stopped: %s", strings.Join(sizes, ", "), reason)
	return kept, nil
}

// gains reports whether s beats t by more than one standard error of t's
// held-out score on held images (the one-standard-error rule: a larger
// model must earn its place; holdout.Point.Gains).
func gains(s, t Score, classify bool, held int) bool {
	return holdout.Point(s).Gains(holdout.Point(t), classify, held)
}

// lateGain reports whether the best score over the second half of the
// fit's prefixes (any ridge term, either kind) gains over the best before.
// (holdout.LateGain; the second half begins at holdout.GrowShare of the
// fit's nodes).
func lateGain(c *Choice, classify bool) bool {
	return holdout.LateGain(points(c.Curve), c.FitNodes, c.Held, classify)
}

// choiceScore is the score a choice was made with.
func choiceScore(c *Choice) Score {
	return Score{Nodes: c.Nodes, Ridge: c.Ridge, Accuracy: c.Accuracy, RMSE: c.RMSE, Direct: c.Direct}
}

// pickDirect returns the best score of a selection that tried direct
// links: the best plain model unless the best direct-link one beats it by
// more than a standard error of its held-out score on held images
// (holdout.PickDirect).
func pickDirect(scores []Score, classify bool, held int) Score {
	return Score(holdout.PickDirect(points(scores), classify, held))
}
