package budget

import (
	"time"

	"github.com/scn2d/scn/internal/timing"
)

// Clock is a budget's clock: Duration counted from Start, read by Now.
type Clock struct {
	Duration time.Duration
	Start    time.Time
	Now      func() time.Time
}

// Left returns the seconds of the budget left at now.
func (c Clock) Left(now time.Time) float64 {
	return (c.Duration - now.Sub(c.Start)).Seconds()
}

// Fit is a budgeted fit under way: its clock, its record (the plan and
// the checkpoints so far) and whether the clock stopped it. A fit block
// by block is stopped at a checkpoint when the next block and the finish
// at the pace measured so far no longer fit (timing.Watch); a staged fit
// is sized stage by stage (timing.Stages).
type Fit struct {
	Clock
	Record  *Record
	ByClock bool // the clock stopped the fit

	staged bool
	watch  *timing.Watch
	stages *timing.Stages
}

// NewFit starts the record and the clock of the fit of plan pl on train
// images (held held out, m outputs, images of d values) begun at
// fitStart; staged says that the fit is staged (Stage sizes its stages)
// rather than watched at each checkpoint.
func NewFit(c Clock, pl Plan, train, held, m, d int, fitStart time.Time, staged bool) *Fit {
	f := &Fit{Clock: c, Record: &Record{Budget: c.Duration, Plan: pl}, staged: staged}
	f.watch = &timing.Watch{Run: pl.Run(train, held, m, d, fitStart)}
	if staged {
		f.stages = &timing.Stages{Run: pl.Run(train, held, m, d, fitStart), Score: pl.Rates.Score, Train: train, Nodes: pl.Nodes}
	}
	return f
}

// Checkpoint records the checkpoint after l nodes reached at now, with
// its held-out accuracy and RMSE if scored, and reports whether the
// clock stops the fit (never for a staged fit: its stages decide).
func (f *Fit) Checkpoint(l int, now time.Time, accuracy, rmse float64, scored bool) bool {
	cp := Checkpoint{Nodes: l, Elapsed: now.Sub(f.Start)}
	if scored {
		cp.Accuracy, cp.RMSE = accuracy, rmse
	}
	f.Record.Checkpoints = append(f.Record.Checkpoints, cp)
	if f.staged {
		return false // the stages decide
	}
	// The next block and the finish at the pace measured so far.
	if f.watch.Stop(l, now, f.Left(now)) {
		f.ByClock = true
		return true
	}
	return false
}

// Stage returns a staged fit's next stage size after done nodes
// (timing.Stages: the first stage a quarter of the planned L, each later
// one what the pace measured so far lets fill the time left), and 0,
// which stops the fit and records that the clock stopped it, when not
// one block fits.
func (f *Fit) Stage(done int) int {
	now := f.Now()
	n, spent := f.stages.Next(done, now, f.Left(now))
	if spent {
		f.ByClock = true // a staged fit asks only below the plan's cap
	}
	return n
}

// End completes the record of a fit of fitNodes nodes whose own stop was
// stop, returned at now: stopped by "budget" (the clock), "plan" (grown
// to the plan's cap) or stop.
func (f *Fit) End(fitNodes int, stop string, now time.Time) *Record {
	r := f.Record
	r.FitNodes = fitNodes
	switch {
	case f.ByClock:
		r.Stopped = "budget"
	case fitNodes >= r.Plan.MaxNodes:
		r.Stopped = "plan"
	default:
		r.Stopped = stop
	}
	r.Elapsed = now.Sub(f.Start)
	return r
}
