package budgetflow

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
// probe"). Today's photo plan (FitLocal) fits the presets' 5 x 5 filters
// at the size the images come in; ChoosePhotos compares it, on a sample
// of the training images with a stratified quarter held out, with the
// same local nodes on the images at other sizes (PhotoInput: the caller
// prepares them, scn train by resizing) and then with filters of
// localplan.PhotoProbeSizes at the size chosen. Each candidate is fitted
// with the filters that its share of the plan could afford:
// localplan.PhotoProbeBase filters for today's plan, and for another
// candidate localplan.PhotoProbeBase times the filters the plan affords
// it over those it affords today's (mostFilters at a timed Cholesky
// factor's rate), so that a larger image or filter pays for its cost in
// filters, as it would in the budget's fit. A candidate replaces the
// choice so far only when it classifies more of the same held-out images
// correctly by more than one standard error of the paired difference
// (wins - losses > sqrt(wins + losses)): today's plan is kept where it
// wins or ties. A candidate whose smallest plan (localplan.FilterStep
// filters) does not fit the memory bound (Budget.MaxBytes) is skipped,
// and so are the candidates whose modelled probe fit would take the probe
// past localplan.PhotoProbeShare of the time left (the clock is checked
// after every probe fit too). The probe is skipped, today's plan kept and
// nothing recorded, on fewer than localplan.PhotoProbeMinImages images or
// when the classes are too small to hold a quarter out: a budget's model
// is then byte for byte what it was before the probe. The choice and the
// probe's figures are recorded in the plan (budget.Plan.Probe, shown by
// scn inspect and the plan line) and the filter size in the model's
// configuration, so scn.Replay refits it without probing.

// Input is what the probes read of one preparation of the training images
// (scn.PhotoInput's problem, or one of Budget.ProbeInputs'): its label,
// shape, values per image and targets, whether it is a classification
// problem of photos, and its problem's own check.
type Input struct {
	Label  string
	Shape  Shape
	Dim    int
	T      []float64
	Photos bool
	Err    error
}

// PhotoChoice is what the probe of a photo budget chose (scn's
// Budget.ChoosePhotos); scn.Budget.Photo passes it to Budget.Fit.
type PhotoChoice struct {
	// Input is the index of the input chosen (0: the first, today's).
	Input int
	// Size is the filter side chosen.
	Size int
	// Record says what the probe compared and chose, or why it skipped
	// candidates; "" when it did not run (today's plan, nothing recorded).
	Record string
}

// Prober is what the photo probe asks of the root package over its
// configurations C.
type Prober[C any] interface {
	Configs[C]
	// Candidate returns the presets' photo configuration (the default
	// preset's at the budget's seed, scn.Config.ForPhotos) for input i's
	// images, false when local nodes do not apply.
	Candidate(i int) (C, bool)
	// Holdout splits the images idx of the first input, stratified, with
	// share of them held out, drawn from seed.
	Holdout(idx []int, share float64, seed uint64) (train, held []int, err error)
	// Classifier returns a fit of a configuration, without model selection, on
	// the training images train of the sample idx of input i, which
	// returns the classes it gives the sample's held images and their
	// true classes (the sample is taken once, before the fit is timed).
	Classifier(i int, idx, train, held []int) func(ctx context.Context, c C) (pred, want []int, err error)
}

// candidate is one fit the probe compares.
type candidate[C any] struct {
	input, size int
	label       string
	cfg         C       // its local configuration at localplan.PhotoProbeBase filters' share
	filters     int     // the filters of its probe fit
	work        float64 // modelled multiply-adds of its probe fit
}

// ChoosePhotos runs the probe of a photo budget (see above) on ins, the
// training images prepared in different ways (the first is the way today's
// plan fits them), and returns what it chose (scn.Budget.ChoosePhotos).
func ChoosePhotos[C any](ctx context.Context, b Budget, ins []Input, j Prober[C]) (PhotoChoice, error) {
	none := PhotoChoice{Size: localplan.DefaultSize}
	if len(ins) == 0 {
		return none, fmt.Errorf("%w: no photo inputs to probe", ErrBudget)
	}
	if !(b.Duration > 0) {
		return none, fmt.Errorf("%w: duration %v, want > 0", ErrBudget, b.Duration)
	}
	p0 := ins[0]
	for i, in := range ins {
		if in.Err != nil {
			return none, fmt.Errorf("photo input %d (%s): %w", i, in.Label, in.Err)
		}
		if !in.Photos {
			return none, fmt.Errorf("%w: photo input %d (%s) is not a classification problem of photos", ErrBudget, i, in.Label)
		}
		if in.Shape.N != p0.Shape.N || in.Shape.M != p0.Shape.M || in.Shape.Chans != p0.Shape.Chans || !slices.Equal(in.T, p0.T) {
			return none, fmt.Errorf("%w: photo input %d (%s) differs from the first in images, planes or targets", ErrBudget, i, in.Label)
		}
	}
	if b.Start.IsZero() {
		b.Start = b.now()
	}
	n := p0.Shape.N
	if n < localplan.PhotoProbeMinImages {
		return none, nil
	}
	m := min(n, localplan.PhotoProbeSample)
	idx := rand.New(rand.NewPCG(b.Seed, 0xf070)).Perm(n)[:m]
	sort.Ints(idx)
	train, held, err := j.Holdout(idx, localplan.PhotoProbeHeld, b.Seed)
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
	cand := func(i, k int) (*candidate[C], string) {
		s := ins[i].Shape
		rows, cols, chans := s.Rows, s.Cols, max(s.Chans, 1)
		cfg, ok := j.Candidate(i)
		if !ok {
			return nil, "local nodes do not apply"
		}
		g := j.Info(cfg).Local
		g.Sizes = []int{k}
		if err := g.ForImages(rows, cols, chans); err != nil {
			return nil, "filters too large"
		}
		full := Shape{N: n, Rows: rows, Cols: cols, Chans: chans, M: s.M}
		if b.MaxBytes > 0 {
			// MaxBytes is what is left beside the first input's images: an
			// input of larger images holds the difference too.
			extra := max(0, 4*int64(n)*int64(ins[i].Dim-p0.Dim))
			if j.Bytes(j.Filters(cfg, localplan.FilterStep, true), full)+extra > b.MaxBytes {
				return nil, "does not fit the memory bound"
			}
		}
		f := mostFilters(j, cfg, rate*localplan.PhotoProbeWorkPace, rate, planLeft, full, 0, 0, false, b.MaxBytes)
		pc := &candidate[C]{input: i, size: k, label: fmt.Sprintf("%s %dx%d", ins[i].Label, k, k), cfg: cfg}
		if baseFilters == 0 {
			baseFilters = f
		}
		pc.filters = localplan.ProbeFilters(f, baseFilters)
		pc.cfg = j.Filters(pc.cfg, pc.filters, false)
		return pc, ""
	}
	var notes []string
	var results []string
	// fit fits the candidate on the sample's training part and returns the
	// held-out images it classifies correctly (nil: skipped, noted).
	fit := func(pc *candidate[C]) ([]bool, error) {
		classify := j.Classifier(pc.input, idx, train, held)
		s := ins[pc.input].Shape
		rows, cols, chans := s.Rows, s.Cols, max(s.Chans, 1)
		pc.work = localplan.Cost(j.Info(pc.cfg).Local, pc.filters, len(train), rows, cols, chans)
		if ok, note := clock.Admit(pc.label, pc.work, b.now().Sub(start).Seconds()); !ok {
			notes = append(notes, note)
			return nil, nil
		}
		t0 := b.now()
		pred, want, err := classify(ctx, pc.cfg)
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
		s := ins[0].Shape
		w := localplan.Cost(j.Info(best.cfg).Local, best.filters, len(train), s.Rows, s.Cols, max(s.Chans, 1))
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
