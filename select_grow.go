package scn

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Growth past L_max (Selection.Grow).
//
// L_max is where selection starts, not a cap: a fit of L_max nodes is
// scored on held-out data as usual, and when its best prefix lies in the
// last quarter of its nodes (the held-out curve still improving at the
// end), the fit is made again with twice the nodes (the same seed: the
// first nodes are drawn as before), scored again, and so on. Growth stops
// when
//
//   - the best prefix of the last fit lies before its last quarter, or
//     does not beat the previous fit's best ("held-out score stopped
//     improving"): the model with the better score is kept;
//   - the fit stopped by itself before its L_max (no admissible candidate,
//     tolerance, patience);
//   - twice the nodes would pass GrowLimit, or Afford refuses the fit (the
//     memory limit), or the next fit would end after Deadline.
//
// The fits are made one after another, each from scratch: growth to 8
// L_max costs about 15 L_max of fitting (1 + 2 + 4 + 8), where the held-out
// curve of each fit is complete. Choice.Growth records the fits' sizes and
// the reason growth stopped; Choice.FitNodes is the last fit's.

// growShare is where the best prefix must lie, as a share of the fit's
// nodes, for growth to go on.
const growShare = 0.75

// selectGrow is Select with growth past L_max.
func (c Config) selectGrow(ctx context.Context, p Problem, s Selection, progress func(Step)) (*Model, error) {
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
		m, err := cur.selectOnce(ctx, p, s, progress)
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
		if kept != nil && !choiceScore(ch).better(choiceScore(kept.Selection), p.Classes != nil) {
			reason = fmt.Sprintf("held-out score stopped improving: %d nodes gave no gain over %d", ch.FitNodes, kept.Selection.FitNodes)
			break
		}
		kept = m
		next := 2 * cur.MaxNodes
		switch {
		case ch.FitNodes < cur.MaxNodes:
			reason = fmt.Sprintf("the fit stopped at %d of %d nodes (%v)", ch.FitNodes, cur.MaxNodes, m.Summary.Stop)
		case float64(ch.Nodes) < growShare*float64(ch.FitNodes):
			reason = fmt.Sprintf("held-out score stopped improving: best at L = %d of %d", ch.Nodes, ch.FitNodes)
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

// choiceScore is the score a choice was made with.
func choiceScore(c *Choice) Score {
	return Score{Nodes: c.Nodes, Ridge: c.Ridge, Accuracy: c.Accuracy, RMSE: c.RMSE, Direct: c.Direct}
}
