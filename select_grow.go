package scn

import (
	"context"

	"github.com/scn2d/scn/internal/holdout"
	"github.com/scn2d/scn/internal/selection"
)

// selectGrow is Select with growth past L_max (Selection.Grow; the loop
// and its rules are internal/selection's Grow).
func (c Config) selectGrow(ctx context.Context, p Problem, s Selection, progress func(Step), o runOpts) (*Model, error) {
	return c.growLoop(ctx, s, func(cur Config) (*Model, error) { return cur.selectOnce(ctx, p, s, progress, o) })
}

// growLoop runs the fits of growth past L_max, fit making and selecting
// one of cur.MaxNodes nodes without growth (in memory or streamed);
// holdout.Growth decides what is kept and when growth stops.
func (c Config) growLoop(ctx context.Context, s Selection, fit func(cur Config) (*Model, error)) (*Model, error) {
	g := &holdout.Growth{Limit: holdout.GrowLimit(s.GrowLimit, c.MaxNodes, maxNodes), Deadline: s.Deadline}
	with := func(nodes int) Config {
		cur := c
		cur.MaxNodes = nodes
		return cur
	}
	var afford func(int) error
	if s.Afford != nil {
		afford = func(nodes int) error { return s.Afford(with(nodes)) }
	}
	kept, err := selection.Grow(g, c.MaxNodes, func(nodes int) (*Model, error) { return fit(with(nodes)) }, func(m *Model) (holdout.Fitted, bool) {
		ch := m.Selection
		return holdout.Fitted{Best: holdout.Point(choiceScore(ch)), Curve: points(ch.Curve), FitNodes: ch.FitNodes, Held: ch.Held, Stop: m.Summary.Stop.String()}, m.Classes != nil
	}, afford, s.Growing, func() bool { return ctx.Err() != nil })
	if err != nil {
		return kept, err
	}
	kept.Selection.Growth = g.Record()
	return kept, nil
}

// choiceScore is the score a choice was made with.
func choiceScore(c *Choice) Score {
	return Score{Nodes: c.Nodes, Ridge: c.Ridge, Accuracy: c.Accuracy, RMSE: c.RMSE, Direct: c.Direct}
}
