package dataset

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/scn2d/scn"
)

// TestChooseDeskew: with room for a deskewed copy, the budget's probe
// prefers the built-in digits deskewed (by more than its margin), and the
// choice is the whole set deskewed (the bits Prepare gives), its
// preprocessing with Deskew, and the deskewed probe's rates; the same
// seed gives the same accuracies. Without room it keeps the set as read
// and does not probe.
func TestChooseDeskew(t *testing.T) {
	train, _, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	b := scn.Budget{Duration: 3 * time.Second, Start: time.Now(), Seed: 1}
	p := Preprocess{Invert: "no"}
	c, err := ChooseDeskew(context.Background(), b, train, p)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Prepare(train, Preprocess{Deskew: true})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case !c.Deskew() || c.NoRoom || c.Prep != (Preprocess{Invert: "no", Deskew: true}):
		t.Fatalf("the built-in digits were not deskewed: %+v", c)
	case !slices.Equal(c.Set.Pix, want.Pix) || !slices.Equal(c.Set.Labels, train.Labels):
		t.Error("the chosen set is not the set deskewed")
	case c.Rates == nil || *c.Rates != c.Deskewed.Rates:
		t.Errorf("rates %v, the deskewed probe's %v", c.Rates, c.Deskewed.Rates)
	case c.Margin != DeskewMargin(c.AsRead) || !(c.Deskewed.Accuracy-c.AsRead.Accuracy > c.Margin) || c.AsRead.Held < 1:
		t.Errorf("as read %+v, deskewed %+v, margin %g", c.AsRead, c.Deskewed, c.Margin)
	}
	again, err := ChooseDeskew(context.Background(), b, train, p)
	if err != nil || again.AsRead.Accuracy != c.AsRead.Accuracy || again.Deskewed.Accuracy != c.Deskewed.Accuracy {
		t.Errorf("the same seed probed %+v, then %+v (%v)", c, again, err)
	}
	b.MaxBytes = train.Shape().Bytes() - 1
	c, err = ChooseDeskew(context.Background(), b, train, p)
	if err != nil || !c.NoRoom || c.Deskew() || c.Set != train || c.Prep != p || c.Rates != nil || c.AsRead != (scn.Probe{}) {
		t.Errorf("without room for a copy: %+v, %v", c, err)
	}
}

// TestDeskewMargin: one standard error of an accuracy on the held-out
// images.
func TestDeskewMargin(t *testing.T) {
	if got := DeskewMargin(scn.Probe{Accuracy: 0.9, Held: 100}); math.Abs(got-0.03) > 1e-15 {
		t.Errorf("margin %g, want 0.03", got)
	}
	if got := DeskewMargin(scn.Probe{Accuracy: 0.5}); got != 0.5 {
		t.Errorf("no held-out images: margin %g, want 0.5", got)
	}
}
