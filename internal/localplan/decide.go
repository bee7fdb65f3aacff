package localplan

import (
	"fmt"
	"strings"
)

// Photos reports whether a budget plans local nodes on a problem of
// images of rows x cols with chans planes: classification (classify) of
// photos (PhotoImages).
func Photos(classify bool, rows, cols, chans int) bool {
	return classify && PhotoImages(rows, cols, chans)
}

// Grey reports whether a budget probes local against global nodes on a
// problem of n images of rows x cols with chans planes: grey
// classification problems that are not photos, of images of at least
// GreyMinSide pixels a side and at least GreyMinImages images.
func Grey(classify bool, n, rows, cols, chans int) bool {
	return classify && chans <= 1 && !Photos(classify, rows, cols, chans) &&
		rows >= GreyMinSide && cols >= GreyMinSide && n >= GreyMinImages
}

// GreyProbeSkip returns why the grey probe is skipped, global nodes kept,
// when its modelled need seconds exceed GreyProbeShare of the left
// seconds of the budget; "" when it runs.
func GreyProbeSkip(need, left float64) string {
	if !(need <= GreyProbeShare*left) {
		return fmt.Sprintf("skipped, global nodes kept: the probe's modelled %.1f s exceeds %.0f%% of the %.1f s left", need, 100*GreyProbeShare, left)
	}
	return ""
}

// GreyGlobal returns the nodes and block size of the grey probe's global
// fit on train images, for the global plan's block size: GreyProbeNodes
// nodes, at most the images (at least one), the block at most the nodes.
func GreyGlobal(train, block int) (nodes, blockSize int) {
	nodes = min(GreyProbeNodes, max(1, train))
	return nodes, min(max(block, 1), nodes)
}

// GreyProbe is what the grey probe compared: held of a sample of n images
// held out, train fitted; the local fit (its pooled outputs and ridge
// term) and the global one (its learner's title, preset and nodes), and
// their held-out accuracies.
type GreyProbe struct {
	Held, N, Train      int
	Outputs             int
	Ridge               float64
	Title, Preset       string
	Nodes               int
	AccLocal, AccGlobal float64
}

// Decide returns the probe's record and whether local nodes won: a higher
// held-out accuracy (ties go to global nodes).
func (g GreyProbe) Decide() (string, bool) {
	won := g.AccLocal > g.AccGlobal
	chose := "global"
	if won {
		chose = "local"
	}
	rec := fmt.Sprintf("on %d of %d sampled images held out (%d fitted): local nodes (%d filters of 5 x 5, avg+max pooling, %d pooled outputs, ridge %g) %.2f%%, global nodes (%s, %s preset, L = %d) %.2f%%: %s",
		g.Held, g.N, g.Train, GreyProbeFilters, g.Outputs, g.Ridge, 100*g.AccLocal, g.Title, g.Preset, g.Nodes, 100*g.AccGlobal, chose)
	return rec, won
}

// PhotoClock is the photo probe's clock of its fits: Allow seconds (a
// PhotoProbeShare of the Left seconds when it starts), PerWork seconds per
// modelled multiply-add (the rate times PhotoProbeWorkPace until today's
// candidate is timed, then that fit's), Spent the modelled seconds of the
// fits so far.
type PhotoClock struct {
	Allow, Left, PerWork, Spent float64
}

// NewPhotoClock returns the probe's clock for left seconds of the budget
// and a timed factor's rate.
func NewPhotoClock(left, rate float64) *PhotoClock {
	return &PhotoClock{Allow: PhotoProbeShare * left, Left: left, PerWork: rate * PhotoProbeWorkPace}
}

// Admit says whether a fit of work multiply-adds goes ahead elapsed
// seconds into the probe (its modelled seconds counted if so), and if not
// the note that says why the candidate label was skipped.
func (c *PhotoClock) Admit(label string, work, elapsed float64) (bool, string) {
	need := work * c.PerWork
	if max(c.Spent, elapsed)+need > c.Allow {
		return false, fmt.Sprintf("%s skipped (its probe, %.1f s modelled, would pass %.0f%% of the %.1f s left)", label, need, 100*PhotoProbeShare, c.Left)
	}
	c.Spent += need
	return true, ""
}

// Timed sets the pace from today's candidate's fit of work multiply-adds
// that took took seconds (> 0), elapsed seconds into the probe.
func (c *PhotoClock) Timed(work, took, elapsed float64) {
	c.PerWork = took / work
	c.Spent = elapsed
}

// Compares says whether the probe has anything to compare: today's
// candidate of work multiply-adds and another must fit in its share at
// the modelled pace.
func (c *PhotoClock) Compares(work float64) bool {
	return !(2*work*c.PerWork > c.Allow)
}

// PhotoRecord is the photo probe's record: held of a sample of sample
// images held out, train fitted, the candidates' results and notes, and
// the label of the candidate chosen ("" for today's plan kept).
func PhotoRecord(held, sample, train int, results, notes []string, chosen string) string {
	rec := fmt.Sprintf("on %d of %d sampled images held out (%d fitted), at the filters each plan affords: %s", held, sample, train, strings.Join(results, ", "))
	if len(notes) > 0 {
		rec += "; " + strings.Join(notes, "; ")
	}
	chose := "kept today's (the images as given, 5x5 filters)"
	if chosen != "" {
		chose = "chose " + chosen + " (more held-out images right by more than one standard error)"
	}
	return rec + ": " + chose
}

// PhotoResult is a candidate's line in the photo probe's record: right of
// n held-out images classified correctly by label's fit of filters.
func PhotoResult(label string, filters, right, n int) string {
	return fmt.Sprintf("%s, %d filters: %.2f%%", label, filters, 100*float64(right)/float64(n))
}
