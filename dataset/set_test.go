package dataset

import (
	"errors"
	"testing"

	"github.com/scn2d/scn"
)

// TestSetViews checks the learners' views of a Set: Images shares the
// pixels, and Problem is a classification of the labels, or a regression
// on the targets when there are targets (the labels then only describe the
// images, as the digits of E1's rotated digits do).
func TestSetViews(t *testing.T) {
	s := &Set{Rows: 2, Cols: 3, Pix: make([]float32, 4*6), Labels: []int{0, 1, 1, 0}, Classes: []string{"a", "b"}}
	if x := s.Images(); x.Rows != 2 || x.Cols != 3 || x.Len() != 4 || &x.Pix[0] != &s.Pix[0] {
		t.Errorf("Images: %+v", x)
	}
	p, err := s.Problem()
	if err != nil || s.IsRegression() || p.M != 2 || len(p.Classes) != 2 || p.T[1*2+1] != 1 {
		t.Errorf("classification: %v, %+v", err, p)
	}
	s.Targets, s.TargetDim = []float64{10, -10, 5, 0}, 1
	p, err = s.Problem()
	if err != nil || !s.IsRegression() || p.M != 1 || p.Classes != nil || p.T[1] != -10 {
		t.Errorf("regression: %v, %+v", err, p)
	}
	// Bad sets give scn's data errors, not panics.
	s.Targets = []float64{1, 2}
	if _, err := s.Problem(); !errors.Is(err, scn.ErrData) {
		t.Errorf("short targets: %v", err)
	}
	s.Targets, s.Labels = nil, []int{0, 5, 1, 0}
	if _, err := s.Problem(); !errors.Is(err, scn.ErrData) {
		t.Errorf("label outside the classes: %v", err)
	}
	// Subset composes with the views.
	s.Labels = []int{0, 1, 1, 0}
	if sub := s.Subset([]int{2, 0}); sub.Images().Len() != 2 || sub.Labels[0] != 1 || sub.Origin[0] != 2 {
		t.Errorf("subset: %+v", sub)
	}
}

// TestPreprocessIsTheModelsRecord checks that Preprocess and
// scn.PreprocessRecord convert both ways and that RecordedPreprocess checks
// what a model holds.
func TestPreprocessIsTheModelsRecord(t *testing.T) {
	p := Preprocess{Invert: "auto", ResizeRows: 20, ResizeCols: 20, MNIST: true, Deskew: true}
	m := &scn.Model{Preprocessing: scn.PreprocessRecord(p)}
	got, err := RecordedPreprocess(m)
	p.Channels = 1 // a record without channels means grey
	if err != nil || got != p {
		t.Errorf("RecordedPreprocess = %+v, %v", got, err)
	}
	if got, err := RecordedPreprocess(&scn.Model{}); err != nil || got != (Preprocess{Channels: 1}) {
		t.Errorf("no record: %+v, %v", got, err)
	}
	for _, bad := range []scn.PreprocessRecord{{Invert: "maybe"}, {ResizeRows: 3}, {ResizeRows: 1 << 20, ResizeCols: 1 << 20}} {
		if _, err := RecordedPreprocess(&scn.Model{Preprocessing: bad}); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestPreprocessString(t *testing.T) {
	for p, want := range map[Preprocess]string{
		{}:                               "none (images used as read)",
		{Invert: "no"}:                   "none (images used as read)",
		{Invert: "yes"}:                  "invert",
		{MNIST: true}:                    "invert dark ink on light (auto), MNIST convention (20 x 20 box, centre of mass, 28 x 28)",
		{MNIST: true, Invert: "no"}:      "MNIST convention (20 x 20 box, centre of mass, 28 x 28)",
		{ResizeRows: 14, ResizeCols: 12}: "resize to 14 x 12",
		{Invert: "auto", ResizeRows: 2, ResizeCols: 2}: "invert dark ink on light (auto), resize to 2 x 2",
		{Deskew: true, Channels: 3}:                    "deskew, colour (red, green, blue)",
	} {
		if got := p.String(); got != want {
			t.Errorf("%+v: %q, want %q", scn.PreprocessRecord(p), got, want)
		}
	}
}
