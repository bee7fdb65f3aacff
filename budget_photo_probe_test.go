package scn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/scn2d/scn/internal/localplan"
)

// photoProbeProblem is a colour classification problem with enough images
// for the photo probe (localplan.PhotoProbeMinImages).
func photoProbeProblem(t testing.TB) Problem {
	t.Helper()
	c, _ := hueProblem(t, localplan.PhotoProbeMinImages+40, 31)
	return c
}

// photoProbeBudget is a budget on a fake clock with fixed rates of d
// seconds: the probe's at a second per 1e9 multiply-adds (Rates.Chol),
// the plan's filters and Gram sums a hundred times dearer, so that the
// plan stays small.
func photoProbeBudget(d float64) (Budget, *fakeClock) {
	clk := newFakeClock()
	return Budget{Duration: time.Duration(d * float64(time.Second)), Now: clk.now, Rates: &Rates{Score: 1e-7, Chol: 1e-9}, Seed: 5}, clk
}

// TestPhotoProbeRecordedAndReplayed: a photo budget's probe runs on a set
// of enough images and its outcome is in the plan (BudgetPlan.Probe) and
// the model's filters; a choice of another filter size (Budget.Photo) is
// fitted, recorded, read back and replayed to the same bytes; below
// localplan.PhotoProbeMinImages nothing is probed or recorded (today's plan).
func TestPhotoProbeRecordedAndReplayed(t *testing.T) {
	p := photoProbeProblem(t)
	b, _ := photoProbeBudget(20)
	b.PhotoProbe = true
	m, err := b.Fit(context.Background(), p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := m.Budget.Plan.Probe
	if !strings.Contains(rec, "sampled images held out") || !strings.Contains(rec, "5x5") {
		t.Fatalf("probe record %q", rec)
	}
	// The same probe again (its fits and split are drawn from the seed).
	if again, err := b.ChoosePhotos(context.Background(), []PhotoInput{{Problem: p, Label: fmt.Sprintf("%d x %d", p.X.Rows, p.X.Cols)}}); err != nil || again.Record != rec {
		t.Fatalf("the probe again: %+v, %v; first %q", again, err, rec)
	}
	k := m.Config.Local.Sizes[0]
	if kept := strings.Contains(rec, "kept today's"); kept != (k == localplan.DefaultSize) {
		t.Fatalf("record %q, filters of %d", rec, k)
	}
	sameReplay(t, p, m)

	for _, size := range []int{3} {
		b, _ := photoProbeBudget(20)
		b.Photo = &PhotoChoice{Size: size, Record: "test: chose " + strings.Repeat("x", size)}
		var pl BudgetPlan
		m, err := b.Fit(context.Background(), p, nil, func(x BudgetPlan) { pl = x })
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Config.Local.Sizes; len(got) != 1 || got[0] != size || pl.Probe != b.Photo.Record || !strings.Contains(pl.Why, fmt.Sprintf("filters of %d x %d", size, size)) {
			t.Fatalf("size %d: filters %v, probe %q, why %q", size, got, pl.Probe, pl.Why)
		}
		back := sameReplay(t, p, m)
		if back.Budget.Plan.Probe != b.Photo.Record || back.Config.Local.Sizes[0] != size {
			t.Fatalf("read back: probe %q, sizes %v", back.Budget.Plan.Probe, back.Config.Local.Sizes)
		}
	}

	// Without PhotoProbe (the default), today's plan: nothing probed or
	// recorded.
	b.PhotoProbe = false
	if m, err := b.Fit(context.Background(), p, nil, nil); err != nil || m.Budget.Plan.Probe != "" || m.Config.Local.Sizes[0] != localplan.DefaultSize {
		t.Fatalf("no probe asked: %v, %+v", err, m.Budget.Plan)
	}

	small := goldenColour(t, 60)
	b, _ = photoProbeBudget(60)
	c, err := b.ChoosePhotos(context.Background(), []PhotoInput{{Problem: small, Label: "12 x 10"}})
	if err != nil || c != (PhotoChoice{Size: localplan.DefaultSize}) {
		t.Fatalf("60 images: %+v, %v; want today's plan, nothing recorded", c, err)
	}
}

// TestPhotoProbeShareBounded: the probe fits only the candidates whose
// modelled time keeps it within localplan.PhotoProbeShare of the time left; with
// too little time for two fits it does not run at all.
func TestPhotoProbeShareBounded(t *testing.T) {
	p := photoProbeProblem(t)
	in := []PhotoInput{{Problem: p, Label: "12 x 10"}}
	b, _ := photoProbeBudget(1)
	// The modelled time of today's candidate's fit at these rates.
	m := min(p.X.Len(), localplan.PhotoProbeSample)
	cfg, _ := Default(SCN2D).ForPhotos(p.X.Len(), p.X.Rows, p.X.Cols, p.X.Chans())
	train := m - int(float64(m)*localplan.PhotoProbeHeld+0.5)
	base := localplan.Cost(cfg.Local, localplan.PhotoProbeBase, train, p.X.Rows, p.X.Cols, p.X.Chans()) * b.Rates.Chol * localplan.PhotoProbeWorkPace
	fits := func(d float64) (PhotoChoice, int) {
		t.Helper()
		b.Duration = time.Duration(d * float64(time.Second))
		c, err := b.ChoosePhotos(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		return c, strings.Count(c.Record, "%")
	}
	// Time for today's candidate and the cheaper 3 x 3 one, not the 7 x 7.
	c, n := fits(2.3 * base / localplan.PhotoProbeShare)
	if n < 3 || !strings.Contains(c.Record, "7x7 skipped") { // two fits, plus "20%"
		t.Fatalf("share for two fits: %d fits in %q", n-1, c.Record)
	}
	if c, _ := fits(1.9 * base / localplan.PhotoProbeShare); c.Record != "" {
		t.Fatalf("share for less than two fits: probed %q", c.Record)
	}
	if c, _ := fits(100 * base / localplan.PhotoProbeShare); strings.Contains(c.Record, "skipped") {
		t.Fatalf("ample share: %q", c.Record)
	}
}

// TestPhotoProbeMemory: a candidate whose smallest plan does not fit the
// memory bound is skipped and said so; the others are probed.
func TestPhotoProbeMemory(t *testing.T) {
	p := photoProbeProblem(t)
	big := p
	big.X = Images{Rows: 2 * p.X.Rows, Cols: 2 * p.X.Cols, Channels: p.X.Channels}
	// Each image enlarged twice (nearest pixel), planes kept.
	d, c := p.X.Rows*p.X.Cols, p.X.Chans()
	for i := 0; i < p.X.Len(); i++ {
		img := p.X.Image(i)
		for k := 0; k < c; k++ {
			for r := 0; r < big.X.Rows; r++ {
				for q := 0; q < big.X.Cols; q++ {
					big.X.Pix = append(big.X.Pix, img[k*d+(r/2)*p.X.Cols+q/2])
				}
			}
		}
	}
	est := func(q Problem) int64 {
		cfg, _ := Default(SCN2D).ForPhotos(q.X.Len(), q.X.Rows, q.X.Cols, q.X.Chans())
		cfg.Local.Filters = localplan.FilterStep
		cfg.MaxNodes = cfg.Local.Outputs()
		return cfg.EstimateBytesC(q.X.Len(), q.X.Rows, q.X.Cols, q.X.Chans(), q.M) + 4*int64(len(q.X.Pix)-len(p.X.Pix))
	}
	small, large := est(p), est(big)
	if small >= large {
		t.Fatalf("estimates %d and %d", small, large)
	}
	b, _ := photoProbeBudget(20)
	b.MaxBytes = (small + large) / 2
	ch, err := b.ChoosePhotos(context.Background(), []PhotoInput{{Problem: p, Label: "small"}, {Problem: big, Label: "large"}})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Input != 0 || !strings.Contains(ch.Record, "large 5x5 skipped (does not fit the memory bound)") || !strings.Contains(ch.Record, "small 3x3") {
		t.Fatalf("choice %+v", ch)
	}
}

// TestPhotoProbeBadInputs: inputs that are not the same images as photos
// of a classification are refused with ErrBudget (or the problem's own
// error), never a panic.
func TestPhotoProbeBadInputs(t *testing.T) {
	p := photoProbeProblem(t)
	b, _ := photoProbeBudget(60)
	ctx := context.Background()
	fewer := p.subset([]int{0, 1, 2})
	relabel := p
	relabel.T = append([]float64(nil), p.T...)
	relabel.T[0], relabel.T[1] = relabel.T[1], relabel.T[0]
	_, grey := hueProblem(t, localplan.PhotoProbeMinImages, 31)
	reg := p
	reg.Classes = nil
	broken := p
	broken.X.Pix = broken.X.Pix[:len(broken.X.Pix)-1]
	for name, ins := range map[string][]PhotoInput{
		"none":          nil,
		"fewer images":  {{Problem: p}, {Problem: fewer}},
		"other targets": {{Problem: p}, {Problem: relabel}},
		"grey small":    {{Problem: grey}},
		"regression":    {{Problem: reg}},
		"broken":        {{Problem: broken}},
	} {
		if _, err := b.ChoosePhotos(ctx, ins); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := b.ChoosePhotos(ctx, []PhotoInput{{Problem: p}, {Problem: fewer}}); !errors.Is(err, ErrBudget) {
		t.Errorf("fewer images: %v, want ErrBudget", err)
	}
	zero := b
	zero.Duration = 0
	if _, err := zero.ChoosePhotos(ctx, []PhotoInput{{Problem: p}}); !errors.Is(err, ErrBudget) {
		t.Errorf("no duration: %v", err)
	}
	bad := b
	bad.Photo = &PhotoChoice{Size: 0}
	if _, err := bad.Fit(ctx, p, nil, nil); !errors.Is(err, ErrBudget) {
		t.Errorf("filter size 0: %v", err)
	}
	bad.Photo = &PhotoChoice{Size: 99}
	if _, err := bad.Fit(ctx, p, nil, nil); !errors.Is(err, ErrBudget) {
		t.Errorf("filter size larger than the images: %v", err)
	}
}
