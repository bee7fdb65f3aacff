package scn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/scn2d/scn/internal/localplan"
	"github.com/scn2d/scn/internal/timing"
)

// The probe of a time budget on photos (issue 31, item 5: "the planner
// chooses local nodes, filter sizes and image size when they win on its
// probe"). Today's photo plan (budget_local.go) fits the presets' 5 x 5
// filters at the size the images come in; ChoosePhotos compares it, on a
// sample of the training images with a stratified quarter held out, with
// the same local nodes on the images at other sizes (PhotoInput: the
// caller prepares them, scn train by resizing) and then with filters of
// localplan.PhotoProbeSizes at the size chosen. Each candidate is fitted with the
// filters that its share of the plan could afford: localplan.PhotoProbeBase filters
// for today's plan, and for another candidate localplan.PhotoProbeBase times the
// filters the plan affords it over those it affords today's (budgetFilters
// at a timed Cholesky factor's rate), so that a larger image or filter
// pays for its cost in filters, as it would in the budget's fit. A
// candidate replaces the choice so far only when it classifies more of the
// same held-out images correctly by more than one standard error of the
// paired difference (wins - losses > sqrt(wins + losses)): today's plan is
// kept where it wins or ties. A candidate whose smallest plan
// (localplan.FilterStep filters) does not fit the memory bound (Budget.MaxBytes)
// is skipped, and so are the candidates whose modelled probe fit would take
// the probe past localplan.PhotoProbeShare of the time left (the clock is checked
// after every probe fit too). The probe is skipped, today's plan kept and
// nothing recorded, on fewer than localplan.PhotoProbeMinImages images or when the
// classes are too small to hold a quarter out: a budget's model is then
// byte for byte what it was before the probe. The choice and the probe's
// figures are recorded in the plan (BudgetPlan.Probe, shown by scn inspect
// and the plan line) and the filter size in the model's configuration, so
// Replay refits it without probing.

// PhotoInput is one preparation of a photo budget's training images that
// ChoosePhotos compares: the problem (the same images, in the same order,
// as every other input's; only their size differs) and how to name it in
// the record (e.g. "48 x 64").
type PhotoInput struct {
	Problem Problem
	Label   string
}

// PhotoChoice is what the probe of a photo budget chose (ChoosePhotos);
// Budget.Photo passes it to Budget.Fit.
type PhotoChoice struct {
	// Input is the index of the input chosen (0: the first, today's).
	Input int
	// Size is the filter side chosen.
	Size int
	// Record says what the probe compared and chose, or why it skipped
	// candidates; "" when it did not run (today's plan, nothing recorded).
	Record string
}

// photoCandidate is one fit the probe compares.
type photoCandidate struct {
	input, size int
	label       string
	cfg         Config // its local configuration at localplan.PhotoProbeBase filters' share
	filters     int    // the filters of its probe fit
	train, held Problem
	work        float64 // modelled multiply-adds of its probe fit
}

// ChoosePhotos runs the probe of a photo budget (see above) on ins, the
// training images prepared in different ways (the first is the way today's
// plan fits them), and returns what it chose. ins must hold the same
// number of images with the same targets; every input must be photos
// (PhotoImages) of a classification problem.
func (b Budget) ChoosePhotos(ctx context.Context, ins []PhotoInput) (PhotoChoice, error) {
	none := PhotoChoice{Size: localplan.DefaultSize}
	if len(ins) == 0 {
		return none, fmt.Errorf("%w: no photo inputs to probe", ErrBudget)
	}
	if !(b.Duration > 0) {
		return none, fmt.Errorf("%w: duration %v, want > 0", ErrBudget, b.Duration)
	}
	p0 := ins[0].Problem
	for i, in := range ins {
		p := in.Problem
		if err := p.check(); err != nil {
			return none, fmt.Errorf("photo input %d (%s): %w", i, in.Label, err)
		}
		if !budgetPhotos(p) {
			return none, fmt.Errorf("%w: photo input %d (%s) is not a classification problem of photos", ErrBudget, i, in.Label)
		}
		if p.X.Len() != p0.X.Len() || p.M != p0.M || p.X.Chans() != p0.X.Chans() || !slices.Equal(p.T, p0.T) {
			return none, fmt.Errorf("%w: photo input %d (%s) differs from the first in images, planes or targets", ErrBudget, i, in.Label)
		}
	}
	if b.Start.IsZero() {
		b.Start = b.now()
	}
	n := p0.X.Len()
	if n < localplan.PhotoProbeMinImages {
		return none, nil
	}
	m := min(n, localplan.PhotoProbeSample)
	idx := rand.New(rand.NewPCG(b.Seed, 0xf070)).Perm(n)[:m]
	sort.Ints(idx)
	train, held, err := splitHoldout(p0.subset(idx), localplan.PhotoProbeHeld, b.Seed)
	if err != nil {
		return none, nil
	}
	rate := 0.0
	if b.Rates != nil {
		rate = b.Rates.Chol
	} else {
		rate = timing.CholSeconds(1024)
	}
	if !(rate > 0) || math.IsInf(rate, 0) {
		return none, fmt.Errorf("%w: the photo probe's rate %v s per multiply-add is not usable", ErrBudget, rate)
	}
	start := b.now()
	left := (b.Duration - start.Sub(b.Start)).Seconds()
	clock := localplan.NewPhotoClock(left, rate)
	planLeft := left * localplan.BudgetShare
	// cand returns the candidate of input i and filter side k, or why it
	// is skipped.
	var baseFilters int
	cand := func(i, k int) (*photoCandidate, string) {
		p := ins[i].Problem
		rows, cols, chans := p.X.Rows, p.X.Cols, max(p.X.Chans(), 1)
		base := Default(SCN2D)
		base.Seed = b.Seed
		cfg, ok := base.ForPhotos(n, rows, cols, chans)
		if !ok {
			return nil, "local nodes do not apply"
		}
		cfg.Local.Sizes = []int{k}
		if err := cfg.Local.ForImages(rows, cols, chans); err != nil {
			return nil, "filters too large"
		}
		if b.MaxBytes > 0 {
			c := cfg
			c.Local = cfg.Local.Clone()
			c.Local.Filters = localplan.FilterStep
			c.MaxNodes = c.Local.Outputs()
			// MaxBytes is what is left beside the first input's images: an
			// input of larger images holds the difference too.
			extra := max(0, 4*int64(n)*int64(p.X.Dim()-p0.X.Dim()))
			if c.EstimateBytesC(n, rows, cols, chans, p.M)+extra > b.MaxBytes {
				return nil, "does not fit the memory bound"
			}
		}
		f := budgetFilters(cfg, rate*localplan.PhotoProbeWorkPace, rate, planLeft, n, rows, cols, chans, p.M, 0, 0, false, b.MaxBytes)
		pc := &photoCandidate{input: i, size: k, label: fmt.Sprintf("%s %dx%d", ins[i].Label, k, k), cfg: cfg}
		if baseFilters == 0 {
			baseFilters = f
		}
		pc.filters = localplan.ProbeFilters(f, baseFilters)
		pc.cfg.Local.Filters = pc.filters
		pc.cfg.MaxNodes = pc.cfg.Local.Outputs()
		return pc, ""
	}
	var notes []string
	var results []string
	// fit fits the candidate on the sample's training part and returns the
	// held-out images it classifies correctly (nil: skipped, noted).
	fit := func(pc *photoCandidate) ([]bool, error) {
		sub := ins[pc.input].Problem.subset(idx)
		pc.train, pc.held = sub.subset(train), sub.subset(held)
		rows, cols, chans := sub.X.Rows, sub.X.Cols, max(sub.X.Chans(), 1)
		pc.work = localplan.Cost(pc.cfg.Local, pc.filters, len(train), rows, cols, chans)
		if ok, note := clock.Admit(pc.label, pc.work, b.now().Sub(start).Seconds()); !ok {
			notes = append(notes, note)
			return nil, nil
		}
		t0 := b.now()
		mod, err := pc.cfg.Fit(ctx, pc.train, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: photo probe of %s: %v", ErrBudget, pc.label, err)
		}
		pred, err := mod.Classify(pc.held.X)
		if err != nil {
			return nil, fmt.Errorf("%w: photo probe of %s: %v", ErrBudget, pc.label, err)
		}
		if pc.input == 0 && pc.size == localplan.DefaultSize && pc.work > 0 {
			// The pace of the fits: this fit's (its fixed costs, the
			// whitening and set-up, included).
			if t := b.now().Sub(t0).Seconds(); t > 0 {
				clock.Timed(pc.work, t, b.now().Sub(start).Seconds())
			}
		}
		want := ArgMax(pc.held.T, pc.held.M)
		ok := make([]bool, len(want))
		right := 0
		for i := range want {
			ok[i] = pred[i] == want[i]
			if ok[i] {
				right++
			}
		}
		results = append(results, localplan.PhotoResult(pc.label, pc.filters, right, len(want)))
		return ok, nil
	}
	best, _ := cand(0, localplan.DefaultSize)
	if best == nil {
		return none, nil // today's plan refuses these images itself
	}
	{
		// Nothing to compare unless today's candidate and another fit in
		// the probe's share (at the modelled pace): skipped, nothing
		// recorded.
		sub := ins[0].Problem
		w := localplan.Cost(best.cfg.Local, best.filters, len(train), sub.X.Rows, sub.X.Cols, max(sub.X.Chans(), 1))
		if !clock.Compares(w) {
			return none, nil
		}
	}
	bestOK, err := fit(best)
	if err != nil || bestOK == nil {
		if err == nil {
			return none, nil // no time for even today's candidate: nothing to compare
		}
		return none, err
	}
	try := func(i, k int) error {
		pc, why := cand(i, k)
		if pc == nil {
			notes = append(notes, fmt.Sprintf("%s %dx%d skipped (%s)", ins[i].Label, k, k, why))
			return nil
		}
		ok, err := fit(pc)
		if err != nil || ok == nil {
			return err
		}
		if localplan.PairedWin(ok, bestOK) {
			best, bestOK = pc, ok
		}
		return nil
	}
	for i := 1; i < len(ins); i++ {
		if err := try(i, localplan.DefaultSize); err != nil {
			return none, err
		}
	}
	in := best.input
	for _, k := range localplan.PhotoProbeSizes {
		if err := try(in, k); err != nil {
			return none, err
		}
	}
	chosen := ""
	if best.input != 0 || best.size != localplan.DefaultSize {
		chosen = best.label
	}
	return PhotoChoice{Input: best.input, Size: best.size, Record: localplan.PhotoRecord(len(held), m, len(train), results, notes, chosen)}, nil
}
