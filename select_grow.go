package scn

import (
	"context"
	"fmt"
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
// one of cur.MaxNodes nodes without growth (in memory or streamed);
// holdout.Growth decides what is kept and when growth stops.
func (c Config) growLoop(ctx context.Context, s Selection, fit func(cur Config) (*Model, error)) (*Model, error) {
	g := holdout.Growth{Limit: holdout.GrowLimit(s.GrowLimit, c.MaxNodes, maxNodes), Deadline: s.Deadline}
	cur := c
	var kept *Model // the best model so far
	for {
		start := time.Now()
		m, err := fit(cur)
		if err != nil {
			if kept != nil && ctx.Err() == nil {
				// A grown fit failed (singular, say): keep what we had.
				g.Failed(cur.MaxNodes, err)
				break
			}
			return m, err
		}
		took := time.Since(start)
		ch := m.Selection
		f := holdout.Fitted{Best: holdout.Point(choiceScore(ch)), Curve: points(ch.Curve), FitNodes: ch.FitNodes, Held: ch.Held, Stop: m.Summary.Stop.String()}
		keep, next := g.Next(f, cur.MaxNodes, m.Classes != nil, took, time.Now())
		if keep {
			kept = m
		}
		if next > 0 && s.Afford != nil {
			nc := cur
			nc.MaxNodes = next
			if err := s.Afford(nc); err != nil {
				g.Stop(fmt.Sprintf("memory limit: %v", err))
				next = 0
			}
		}
		if next == 0 {
			break
		}
		if s.Growing != nil {
			s.Growing(next)
		}
		cur.MaxNodes = next
	}
	kept.Selection.Growth = g.Record()
	return kept, nil
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
