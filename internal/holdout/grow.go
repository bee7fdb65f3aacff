package holdout

import (
	"fmt"
	"strings"
	"time"
)

// Fitted is what growth past L_max reads of one fit's selection (scn's
// Choice): the chosen point's score, the curve it was chosen from, the
// fit's nodes, the held-out images and the fit's own stop.
type Fitted struct {
	Best     Point
	Curve    []Point
	FitNodes int
	Held     int
	Stop     string // why the fit stopped (its message when it stopped short)
}

// Growth decides growth past L_max (scn's Selection.Grow): after each fit
// of twice the nodes of the last, whether its choice is kept and whether
// the next fit is made. A fit's choice is kept unless it does not gain
// over the kept one (Gains, on its held-out images); growth stops when
// the fit gains nothing over the previous one, stopped by itself short of
// its nodes, gains nothing in its second half (LateGain), or the next fit
// would pass Limit or end after Deadline (at twice the pace of the last).
// Reason says why it stopped.
type Growth struct {
	Limit    int       // the most nodes a fit may have
	Deadline time.Time // zero: none
	Reason   string

	kept  *Fitted
	sizes []string
}

// GrowLimit returns the most nodes growth may reach: limit if > 0 (else
// 64 times the first fit's nodes), at most maxNodes.
func GrowLimit(limit, first, maxNodes int) int {
	if limit <= 0 {
		limit = min(64*first, maxNodes)
	}
	return min(limit, maxNodes)
}

// Failed records that the fit of nodes nodes failed with err after a fit
// was kept: growth stops.
func (g *Growth) Failed(nodes int, err error) {
	g.Reason = fmt.Sprintf("the fit of %d nodes failed (%v)", nodes, err)
}

// Stop records that growth stops for reason (the caller's own test of
// the next fit, such as its memory).
func (g *Growth) Stop(reason string) { g.Reason = reason }

// Next takes the fit asked for nodes nodes, which took took, at time
// now: keep reports whether its model replaces the kept one, next the
// nodes of the next fit (0: growth stops, Reason says why).
func (g *Growth) Next(f Fitted, nodes int, classify bool, took time.Duration, now time.Time) (keep bool, next int) {
	g.sizes = append(g.sizes, fmt.Sprint(f.FitNodes))
	if g.kept != nil && !f.Best.Gains(g.kept.Best, classify, f.Held) {
		g.Reason = fmt.Sprintf("held-out score stopped improving: %d nodes gave no gain over %d", f.FitNodes, g.kept.FitNodes)
		return false, 0
	}
	g.kept = &f
	next = 2 * nodes
	switch {
	case f.FitNodes < nodes:
		g.Reason = fmt.Sprintf("the fit stopped at %d of %d nodes (%v)", f.FitNodes, nodes, f.Stop)
	case !LateGain(f.Curve, f.FitNodes, f.Held, classify):
		g.Reason = fmt.Sprintf("held-out score stopped improving: best at L = %d of %d, no gain in the second half", f.Best.Nodes, f.FitNodes)
	case next > g.Limit:
		g.Reason = fmt.Sprintf("growth limit: %d nodes would pass %d", next, g.Limit)
	case !g.Deadline.IsZero() && now.Add(2*took).After(g.Deadline):
		g.Reason = fmt.Sprintf("time budget: a fit of %d nodes would end past the deadline", next)
	}
	if g.Reason != "" {
		return true, 0
	}
	return true, next
}

// Record returns what growth did, for the kept choice: the fits' nodes in
// turn and why growth stopped.
func (g *Growth) Record() string {
	return fmt.Sprintf("fits of %s nodes; growth stopped: %s", strings.Join(g.sizes, ", "), g.Reason)
}
