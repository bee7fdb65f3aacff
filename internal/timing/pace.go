package timing

import "time"

// Run is a budgeted fit under way as its clock sees it: the time model
// of the plan and the clock's start.
type Run struct {
	Fit      func(l int) float64 // the modelled seconds of a fit of l nodes
	Finish   func(l int) float64 // the modelled seconds of the finish after l nodes
	Block    int                 // nodes per block
	MaxNodes int                 // the plan's cap
	Safety   float64             // the share of the time left that may be planned
	Start    time.Time           // when the fit began
}

// Watch is a budgeted fit's clock when it is fitted block by block: at
// each checkpoint it measures the pace (the seconds spent against the
// time model's) and stops the fit when the next block and the finish at
// that pace would not fit in the time left.
type Watch struct {
	Run

	started   bool
	prevNodes int
	prevTime  time.Time
}

// Stop reports, at the checkpoint after l nodes at time now with left
// seconds of the budget left, whether the fit must stop: below the cap,
// the next block (at the pace measured so far, or the last block's, if
// slower: a supervised fit's blocks grow dearer near N, as admissible
// candidates get rare) and the finish need more than the safe share of
// left. A fit faster than the model is mostly the probe's smaller
// products running less efficiently: the finish, timed apart in the
// probe, is not scaled down with it; a slower one means a busy machine,
// which slows the finish as much.
func (w *Watch) Stop(l int, now time.Time, left float64) bool {
	if !w.started {
		w.started, w.prevTime = true, w.Start
	}
	spent := now.Sub(w.Start).Seconds()
	model := w.Fit(l)
	pace := 1.0
	if model > 0 && spent > 0 {
		pace = spent / model
	}
	if last := model - w.Fit(w.prevNodes); last > 0 && w.prevNodes > 0 {
		pace = max(pace, now.Sub(w.prevTime).Seconds()/last)
	}
	w.prevNodes, w.prevTime = l, now
	next := min(l+w.Block, w.MaxNodes)
	need := pace*(w.Fit(next)-model) + max(pace, 1)*w.Finish(next)
	return l < w.MaxNodes && need > left*w.Safety
}

// StageShare is the share of the time left that a later stage of a
// staged fit may fill, and StageFirst the share of the planned L that the
// first stage fits: a stage cannot be stopped once its pass has begun, so
// each is sized on the pace measured so far and leaves room for that pace
// to be wrong (the probe's rates to begin with).
const (
	StageShare = 0.9
	StageFirst = 4
)

// Stages sizes the stages of a staged (one-pass) fit of random nodes on
// Train images within a budget.
type Stages struct {
	Run
	Score float64 // seconds per image and node
	Train int     // training images
	Nodes int     // the planned L

	started bool
	prevL   int
	prevT   time.Time
	pace    float64
}

// cost is the modelled seconds of a stage after l nodes that adds n: its
// Gram products and scoring, and the earlier nodes' outputs computed
// again.
func (s *Stages) cost(l, n int) float64 {
	return s.Fit(l+n) - s.Fit(l) + float64(s.Train)*float64(l)*s.Score
}

// Next returns the nodes of the stage after done nodes, at time now with
// left seconds of the budget left: the first stage a quarter of the
// planned L (whole blocks, at least one); each later one the most nodes
// (whole blocks) whose pass, at the pace measured on the stages so far,
// fills StageShare of the time left after the finish (all of it for a
// last block); and 0 with clock true when not one block fits.
func (s *Stages) Next(done int, now time.Time, left float64) (n int, clock bool) {
	if !s.started {
		s.started, s.prevT, s.pace = true, s.Start, 1
	}
	block := s.Block
	if done == 0 {
		s.prevT = now
		return max(block, s.Nodes/StageFirst/block*block), false
	}
	if c := s.cost(s.prevL, done-s.prevL); c > 0 {
		s.pace = now.Sub(s.prevT).Seconds() / c
	}
	s.prevL, s.prevT = done, now
	left = left*s.Safety - max(s.pace, 1)*s.Finish(done+block)
	if s.pace*s.cost(done, block) > left {
		return 0, true
	}
	n = block
	for n+block <= s.MaxNodes-done && s.pace*s.cost(done, n+block) <= StageShare*left {
		n += block
	}
	return n, false
}
