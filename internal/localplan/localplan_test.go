package localplan

import (
	"math"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/localnet"
)

// TestPairedWin: a win needs more wins than losses by more than the
// square root of the discordant pairs.
func TestPairedWin(t *testing.T) {
	mk := func(wins, losses, ties int) (a, b []bool) {
		for range wins {
			a, b = append(a, true), append(b, false)
		}
		for range losses {
			a, b = append(a, false), append(b, true)
		}
		for range ties {
			a, b = append(a, true), append(b, true)
		}
		return a, b
	}
	for _, c := range []struct {
		wins, losses int
		want         bool
	}{{0, 0, false}, {1, 0, false}, {2, 0, true}, {3, 1, false}, {4, 1, true}, {5, 5, false}, {1, 3, false}, {9, 4, true}, {6, 3, false}} {
		a, b := mk(c.wins, c.losses, 7)
		if got := PairedWin(a, b); got != c.want {
			t.Errorf("%d wins, %d losses: %v, want %v", c.wins, c.losses, got, c.want)
		}
		if c.want && PairedWin(b, a) {
			t.Errorf("%d wins, %d losses: both directions win", c.wins, c.losses)
		}
	}
}

// TestProbeFilters: the base's share is PhotoProbeBase, scaled and
// bounded.
func TestProbeFilters(t *testing.T) {
	for _, c := range []struct{ f, base, want int }{{100, 100, PhotoProbeBase}, {50, 100, 32}, {1, 100, FilterStep}, {1000, 10, PhotoProbeMost}, {150, 100, 96}} {
		if got := ProbeFilters(c.f, c.base); got != c.want {
			t.Errorf("ProbeFilters(%d, %d) = %d, want %d", c.f, c.base, got, c.want)
		}
	}
}

// TestProbeRates: the slope between two probes and the fixed seconds
// left over; the slope at least a quarter of the larger's average.
func TestProbeRates(t *testing.T) {
	rate, fixed := ProbeRates([2]float64{3, 7}, [2]float64{1e9, 3e9})
	if rate != 2e-9 || fixed != 1 {
		t.Errorf("rate %g, fixed %g, want 2e-9 and 1", rate, fixed)
	}
	// A second probe no slower than the first: the floor.
	rate, fixed = ProbeRates([2]float64{4, 4}, [2]float64{1e9, 3e9})
	if want := 4.0 / 3e9 / 4; rate != want || fixed != 4-want*1e9 {
		t.Errorf("rate %g, fixed %g, want %g and %g", rate, fixed, want, 4-want*1e9)
	}
	if !Usable(1e-9, 0, 0) || Usable(0, 1, 1) || Usable(1e-9, -1, 0) || Usable(1e-9, 1, math.Inf(1)) || Usable(math.NaN(), 1, 1) {
		t.Error("Usable")
	}
}

// TestFilters: the presets' photo filters fall with the work and are
// bounded by 64 pooled outputs per image (the root's TestPhotoFilters
// pins the same figures through scn.PhotoFilters).
func TestFilters(t *testing.T) {
	for _, c := range []struct{ n, rows, cols, chans, want int }{
		{5522, 30, 30, 3, 128}, {245, 64, 64, 3, 256}, {1e6, 224, 224, 3, 32}, {3, 30, 30, 3, 64 * 3 / 18}, {1, 30, 30, 3, 3},
	} {
		if got := Filters(c.n, c.rows, c.cols, c.chans); got != c.want {
			t.Errorf("Filters(%d, %d, %d, %d) = %d, want %d", c.n, c.rows, c.cols, c.chans, got, c.want)
		}
	}
	if !PhotoImages(41, 41, 1) || PhotoImages(40, 40, 1) || !PhotoImages(8, 8, 3) {
		t.Error("PhotoImages")
	}
}

// TestMostFilters: more time or memory never buys fewer filters; the
// memory bound is asked only when there is one.
func TestMostFilters(t *testing.T) {
	l := localnet.Default()
	asked := false
	bytes := func(f int) int64 { asked = true; return int64(f) << 20 }
	prev := 0
	for _, sec := range []float64{0.1, 1, 10, 100} {
		f := MostFilters(l, 1e-9, 1e-10, sec, 5000, 32, 32, 3, 10, 500, 4, true, 0, bytes)
		if f < prev || f%FilterStep != 0 || f < FilterStep || f > MaxFilters {
			t.Errorf("%g s: %d filters after %d", sec, f, prev)
		}
		if f > FilterStep && Seconds(l, f, 5000, 32, 32, 3, 1e-9, 1e-10) > sec {
			t.Errorf("%g s: %d filters take longer", sec, f)
		}
		prev = f
	}
	if asked {
		t.Error("memory asked without a bound")
	}
	if f := MostFilters(l, 1e-9, 1e-10, 100, 5000, 32, 32, 3, 10, 0, 0, false, 100<<20, bytes); f != 96 {
		t.Errorf("under 100 MiB at 1 MiB per filter: %d filters, want 96", f)
	}
}

// TestStops: a fit that does not grow stops when the next block passes
// FitStop of the budget; a growing one leaves the time for the choice.
func TestStops(t *testing.T) {
	p := Plan{Local: localnet.Default(), N: 1000, Rows: 32, Cols: 32, Chans: 3, M: 10, Rate: 1e-9, Chol: 1e-9, Held: 100, Ridges: 4, Choose: true}
	p.Local.Filters = 256
	if p.Stops(32, 5, 1, 80, 100) || !p.Stops(32, 5, 1, 89.5, 100) {
		t.Error("a fit that does not grow")
	}
	p.Grow = true
	after := ChoiceSeconds(p.N, p.Held, 64*p.Local.PerFilter(), p.M, p.Ridges, GrowReserveTerms, p.Chol)
	if p.Stops(32, 0, 1, 89-after-0.01, 100) || !p.Stops(32, 0, 1, 89-after+0.01, 100) {
		t.Errorf("a growing fit: the choice's %g s", after)
	}
	if got := NextBlock(64, 32, 2, 1.5); got != 1.5 {
		t.Errorf("NextBlock %g, want the last block's 1.5", got)
	}
}

// TestDescribe: the plan's prediction is the fit's modelled seconds and,
// with a choice, the choice's; its Why says so.
func TestDescribe(t *testing.T) {
	p := Plan{Local: localnet.Default(), N: 2000, Rows: 32, Cols: 32, Chans: 3, M: 10, Rate: 2e-9, Chol: 1e-9, Fixed: 0.5, Held: 200, Ridges: 4}
	l := 64 * p.Local.PerFilter()
	why, sec := p.Describe("photos", 64, l, 64, 5, 100)
	if sec != p.Seconds(64) || !strings.Contains(why, "64 filters of 5 x 5 and ridge 100 (too few") || strings.Contains(why, "grow") {
		t.Errorf("no choice: %g s, %q", sec, why)
	}
	p.Choose = true
	why, sec = p.Describe("photos", 64, l, 128, 5, 100)
	if want := p.Seconds(64) + localnet.ChoiceWork(p.N, p.Held, l, p.M, p.Ridges)*p.Chol; sec != want || !strings.Contains(why, "chosen on 200 held-out images") || !strings.HasSuffix(why, "grow to 128 filters while the clock allows") {
		t.Errorf("a choice: %g s (want %g), %q", sec, want, why)
	}
	for _, c := range []struct {
		nodes, planned, most  int
		grow, validate, chose bool
		scored                int
		want                  string
	}{
		{100, 100, 100, false, true, true, 4, "plan"},
		{99, 100, 100, false, true, true, 4, "budget"},
		{100, 100, 200, true, false, false, 0, "budget"},
		{200, 100, 200, true, false, false, 0, "plan"},
		{100, 100, 100, false, true, false, 0, "budget"},
		{100, 100, 100, false, true, true, 3, "budget"},
	} {
		if got := Stopped(c.nodes, c.planned, c.most, c.grow, c.validate, c.chose, c.scored, 4); got != c.want {
			t.Errorf("%+v: %s", c, got)
		}
	}
}

// TestAtBlockReplayed: the clock is asked at the end of each block of
// filters but the last; a replay chooses as the budget did.
func TestAtBlockReplayed(t *testing.T) {
	per := 18
	for _, c := range []struct {
		l, f int
		at   bool
	}{{32 * 18, 32, true}, {32*18 + 1, 32, false}, {16 * 18, 16, false}, {64 * 18, 64, true}, {96 * 18, 96, false}} {
		if f, at := AtBlock(c.l, per, 96); f != c.f || at != c.at {
			t.Errorf("AtBlock(%d): %d %v, want %d %v", c.l, f, at, c.f, c.at)
		}
	}
	for _, c := range []struct {
		stopped  string
		selected bool
		choose   bool
		scored   int
	}{{"plan", true, true, 3}, {"budget", true, true, 3}, {"budget", false, false, 4}, {"plan", false, true, 4}} {
		if choose, scored := Replayed(c.stopped, c.selected, 3, 4); choose != c.choose || scored != c.scored {
			t.Errorf("%+v: %v %d", c, choose, scored)
		}
	}
}

// TestRateProbeSample: every image of a small set, RateProbeImages evenly
// spaced of a large one.
func TestRateProbeSample(t *testing.T) {
	if idx := RateProbeSample(3); len(idx) != 3 || idx[0] != 0 || idx[2] != 2 {
		t.Errorf("%v", idx)
	}
	idx := RateProbeSample(10 * RateProbeImages)
	if len(idx) != RateProbeImages || idx[1] != 10 || idx[len(idx)-1] != 10*(RateProbeImages-1) {
		t.Errorf("%d images, %d %d", len(idx), idx[1], idx[len(idx)-1])
	}
}
