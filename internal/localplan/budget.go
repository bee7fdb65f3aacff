package localplan

import (
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/localnet"
)

// The plan of a time budget's local nodes (scn's budget_local.go).
const (
	// BudgetShare is the share of the time left after the probe that
	// the planned fit and ridge choice may fill: the rest absorbs the
	// model's error (the machine's load varies) and writing the model. (At
	// 0.7 a 60 s budget on natural-images ended after 27 s: the model
	// overstates a large fit, whose products run faster than the probe's.)
	BudgetShare = 0.85
	// MaxFilters bounds a budget's filters (L = 18432 pooled outputs).
	MaxFilters = 1024
	// ChoiceShare is the share of the time left after the fit that the
	// ridge choice may fill, at the pace the fit ran; otherwise it is left
	// out (the fit's own weights).
	ChoiceShare = 0.9
	// FitStop is the share of the budget past which the fit draws no
	// further block of filters.
	FitStop = 0.9
	// FilterStep is the step of a plan's filters.
	FilterStep = 16
)

// Seconds is the modelled time of a local fit of f filters of l on n
// images of rows x cols x chans: rate seconds per multiply-add of the
// filters and the Gram sums (Cost without its factor), chol seconds per
// unit of the factor's L^3 / 3. The factor, grown block by block as the
// filters come, is timed apart (timing.CholSeconds): on 245 photos of 64 x
// 64, L = 4320, the probe's slope (factors of a few hundred) left it out
// and predicted 7.1 s for a fit of 17.7 s; grown alone it took 6.3 s where
// timing.CholSeconds(1024) predicted 7.0 s.
func Seconds(l *localnet.Geometry, f, n, rows, cols, chans int, rate, chol float64) float64 {
	outs := float64(f * l.PerFilter())
	fac := outs * outs * outs / 3
	return (Cost(l, f, n, rows, cols, chans)-fac)*rate + fac*chol
}

// ProbeRates returns the rate (seconds per multiply-add) and the fixed
// seconds of a fit from two probe fits of ts seconds and cs multiply-adds
// (the second of three times the first's filters on the same images): the
// rate is the slope between them, free of the fixed costs of a fit (on
// natural-images the one small probe alone overstated a large fit's time
// ten times), at least a quarter of the larger's average (the probes'
// noise); the fixed seconds, the first probe's time less its work at the
// rate, at most its time.
func ProbeRates(ts, cs [2]float64) (rate, fixed float64) {
	rate = (ts[1] - ts[0]) / (cs[1] - cs[0])
	if lo := ts[1] / cs[1] / 4; !(rate > lo) {
		rate = lo // the probes' noise: at least a quarter of the larger's average
	}
	// (Scaled to every image, on the ground that part of it goes with
	// the images, it made the plans of 10 s on natural-images at load
	// 11 four times smaller than the time allowed: the clock, which
	// stops the fit between blocks of filters, guards the rest.)
	fixed = min(ts[0], max(0, ts[0]-rate*cs[0]))
	return rate, fixed
}

// Usable reports whether a plan's rates are usable: rate positive, chol
// and fixed not negative, fixed finite.
func Usable(rate, chol, fixed float64) bool {
	return !(!(rate > 0) || !(chol >= 0) || !(fixed >= 0) || math.IsInf(fixed, 0))
}

// MostFilters returns the most filters of l (a multiple of FilterStep, at
// least FilterStep, at most MaxFilters and 64 pooled outputs per image)
// whose modelled time (Seconds, and with choose the ridge choice's
// localnet.ChoiceWork over held images and ridges terms) fits in sec
// seconds and whose estimated memory fits in maxBytes (0: no bound):
// fitBytes(f) is a fit's of f filters (called only with a bound).
func MostFilters(l *localnet.Geometry, rate, chol, sec float64, n, rows, cols, chans, m, held, ridges int, choose bool, maxBytes int64, fitBytes func(f int) int64) int {
	best := FilterStep
	for f := FilterStep; f <= MaxFilters; f += FilterStep {
		c := l.Clone()
		c.Filters = f
		outs := c.Outputs()
		t := Seconds(c, f, n, rows, cols, chans, rate, chol)
		var bytes int64
		if maxBytes > 0 {
			bytes = fitBytes(f)
		}
		if choose {
			// The dual solves come once the fit's L x L sums are freed.
			t += localnet.ChoiceWork(n, held, outs, m, ridges) * chol
			bytes += localnet.ChoiceBytes(n, held, outs, m, ridges)
		}
		if outs > 64*n || t > sec || (maxBytes > 0 && bytes > maxBytes) {
			break
		}
		best = f
	}
	return best
}

// ChoiceSeconds is the modelled time of a ridge choice's first terms
// terms of ridges and the refit on n images of l pooled outputs, held of
// them held out, m outputs: localnet.ChoiceSteps the cheaper way at chol
// seconds per multiply-add. (The primal way's held-out product runs at
// least at the factor's rate with the grey kernel: on Fashion-MNIST at
// L = 3456 the whole choice of five terms took about 3 s where this model
// says 6.)
func ChoiceSeconds(n, held, l, m, ridges, terms int, chol float64) float64 {
	pre, step, final := localnet.ChoiceSteps(n, held, l, m, localnet.Dual(n, held, l, m, ridges))
	return (pre + float64(terms)*step + final) * chol
}

// Plan is a budget's local fit as its clock sees it: the geometry (its
// Filters the most the fit may draw), the images (N of Rows x Cols x
// Chans, M outputs), the rates (Rate per multiply-add of the filters and
// Gram sums, Chol per unit of the factor and of the ridge choice, Fixed
// seconds), the ridge choice's Held images and Ridges terms (Choose: a
// choice at all), and Grow: the fit may grow past its plan.
type Plan struct {
	Local                   *localnet.Geometry
	N, Rows, Cols, Chans, M int
	Rate, Chol, Fixed       float64
	Held, Ridges            int
	Choose, Grow            bool
}

// Seconds is the plan's modelled time of a fit of f filters: its fixed
// seconds and Seconds.
func (p Plan) Seconds(f int) float64 {
	return p.Fixed + Seconds(p.Local, f, p.N, p.Rows, p.Cols, p.Chans, p.Rate, p.Chol)
}

// ChoiceGoes says whether the ridge choice goes ahead after a fit of
// fitted filters that took spent seconds, with left seconds of the budget
// left: at the pace the fit ran against its model (if slower), its first
// term and the refit (for a growing fit, the whole choice) must fit in
// ChoiceShare of the time left.
func (p Plan) ChoiceGoes(fitted int, spent, left float64) bool {
	pace := 1.0
	if fp := p.Seconds(fitted); fp > 0 {
		pace = max(pace, spent/fp)
	}
	l := fitted * p.Local.PerFilter()
	pre, step, final := localnet.ChoiceSteps(p.N, p.Held, l, p.M, localnet.Dual(p.N, p.Held, l, p.M, p.Ridges))
	need := pace * (pre + step + final) * p.Chol
	if p.Grow {
		need = pace * ChoiceSeconds(p.N, p.Held, l, p.M, p.Ridges, 1, p.Chol)
	}
	return need <= left*ChoiceShare
}

// MoreRidges says whether a further ridge term (next multiply-adds) goes
// ahead after done multiply-adds of the choice in spent seconds, with left
// seconds of the budget left: at the pace the choice ran so far it must
// fit in ChoiceShare of the time left.
func (p Plan) MoreRidges(spent, done, next, left float64) bool {
	pace := spent / (done * p.Chol)
	return pace*next*p.Chol <= left*ChoiceShare
}

// NextBlock is the modelled seconds of the next block of filters after
// done filters in spent seconds, the last block (since prevF filters) in
// last seconds: at the pace of the last block, or of the fit so far if
// slower.
func NextBlock(done, prevF int, spent, last float64) float64 {
	next := spent / float64(done) * localnet.RandomBlock
	if l := last / float64(done-prevF) * localnet.RandomBlock; l > next {
		next = l
	}
	return next
}

// GrowReserveTerms is how many ridge terms of the grid a growing local
// fit on grey images leaves the time for (the further terms are scored if
// the clock allows): on Fashion-MNIST at 128 filters the held-out
// accuracy moved by 0.03 points between ridge 1 and 100, where each term
// costs a factor of L^3 / 3 that buys more as filters.
const GrowReserveTerms = 2

// Stops says whether the fit stops after done filters, spent seconds into
// the fit, elapsed seconds into a budget of duration seconds, the next
// block taking next seconds: when the next block would end past FitStop
// of the budget; a growing fit when the next block and then the ridge
// choice on the filters fitted by then, its first GrowReserveTerms terms
// and the refit (ChoiceSeconds, at the pace the fit has run against its
// model if slower: the machine's load slows both), would.
func (p Plan) Stops(done int, spent, next, elapsed, duration float64) bool {
	if !p.Grow {
		return elapsed+next > duration*FitStop
	}
	pace := 1.0
	if fp := p.Seconds(done); fp > 0 && spent > 0 {
		pace = max(pace, spent/fp)
	}
	after := 0.0
	if p.Choose {
		l := min(done+localnet.RandomBlock, p.Local.Filters) * p.Local.PerFilter()
		after = pace * ChoiceSeconds(p.N, p.Held, l, p.M, p.Ridges, min(p.Ridges, GrowReserveTerms), p.Chol)
	}
	return elapsed+next+after > duration*FitStop
}

// Describe returns the modelled seconds of the plan's fit of f filters (l
// pooled outputs) and its ridge choice, and the plan's Why: what, the
// filters (of size x size)
// and how the ridge term is chosen (fitRidge without a choice), the rate
// measured, and the filters a growing fit may reach (most).
func (p Plan) Describe(what string, f, l, most, size int, fitRidge float64) (why string, predicted float64) {
	predicted = p.Fixed + Seconds(p.Local, f, p.N, p.Rows, p.Cols, p.Chans, p.Rate, p.Chol)
	how := fmt.Sprintf("ridge %g (too few images per class to hold any out)", fitRidge)
	if p.Choose {
		ch := localnet.ChoiceWork(p.N, p.Held, l, p.M, p.Ridges) * p.Chol
		way := "primal"
		if localnet.Dual(p.N, p.Held, l, p.M, p.Ridges) {
			way = "dual"
		}
		how = fmt.Sprintf("the ridge term chosen on %d held-out images (%s solves, %.1f s of the prediction)", p.Held, way, ch)
		predicted += ch
	}
	why = fmt.Sprintf("%s, %d filters of %d x %d and %s fit the time left (%.3g s per 1e9 multiply-adds measured)",
		what, f, size, size, how, p.Rate*1e9)
	if most > f {
		why += fmt.Sprintf("; the fit may grow to %d filters while the clock allows", most)
	}
	return why, predicted
}

// Stopped says how a budget's local fit ended: "budget" when the clock
// stopped the fit (nodes fitted below the planned, or for a growing fit
// below maxNodes) or left no time for the ridge choice (validate: the plan
// chooses; chose: it ran) or for all its ridges terms (scored of them
// scored); "plan" otherwise.
func Stopped(nodes, planned, maxNodes int, grow, validate, chose bool, scored, ridges int) string {
	if nodes < planned || (grow && nodes < maxNodes) || (validate && (!chose || scored < ridges)) {
		return "budget"
	}
	return "plan"
}

// AtBlock returns the filters of a fit after l pooled outputs of per
// outputs a filter, and whether the clock is asked there: at the end of a
// block of localnet.RandomBlock filters, before the last of filters.
func AtBlock(l, per, filters int) (int, bool) {
	f := l / per
	return f, l%per == 0 && f%localnet.RandomBlock == 0 && f < filters
}

// Replayed says how a budget's local fit is replayed from its record:
// whether the ridge choice runs once the fit is done (stopped: how the
// budget's fit ended; selected: it chose the ridge term; a budget whose
// clock left out the choice kept the fit's own weights) and how many of
// its ridges terms are scored (curve of them when it chose: a clock that
// cut the grid short scored its first terms).
func Replayed(stopped string, selected bool, curve, ridges int) (choose bool, scored int) {
	scored = ridges
	if selected {
		scored = curve
	}
	return stopped != "budget" || selected, scored
}
