package localplan

import (
	"strings"
	"testing"
)

// TestGreyDecide: local nodes win only with a higher accuracy (ties go
// to global nodes), and the record says which.
func TestGreyDecide(t *testing.T) {
	g := GreyProbe{Held: 750, N: 3000, Train: 2250, Outputs: 1152, Ridge: 10, Title: "2DRVFL", Preset: "default", Nodes: 2000, AccLocal: 0.9, AccGlobal: 0.9}
	if rec, won := g.Decide(); won || !strings.HasSuffix(rec, ": global") || !strings.HasPrefix(rec, "on 750 of 3000 sampled images held out (2250 fitted)") {
		t.Errorf("a tie: %v %q", won, rec)
	}
	g.AccLocal = 0.91
	if rec, won := g.Decide(); !won || !strings.HasSuffix(rec, ": local") {
		t.Errorf("local ahead: %v %q", won, rec)
	}
	if s := GreyProbeSkip(1.5, 10); s != "" {
		t.Errorf("1.5 s of 10 s skipped: %q", s)
	}
	if s := GreyProbeSkip(1.6, 10); !strings.HasPrefix(s, "skipped, global nodes kept") {
		t.Errorf("1.6 s of 10 s: %q", s)
	}
	if nodes, block := GreyGlobal(100, 256); nodes != 100 || block != 100 {
		t.Errorf("GreyGlobal(100, 256) = %d, %d", nodes, block)
	}
	if nodes, block := GreyGlobal(9000, 0); nodes != GreyProbeNodes || block != 1 {
		t.Errorf("GreyGlobal(9000, 0) = %d, %d", nodes, block)
	}
}

// TestGreyPhotos: which problems a budget plans local nodes on, and which
// it probes.
func TestGreyPhotos(t *testing.T) {
	if !Photos(true, 8, 8, 3) || Photos(false, 64, 64, 3) || Photos(true, 28, 28, 1) {
		t.Error("Photos")
	}
	if !Grey(true, 1000, 28, 28, 1) || Grey(true, 1000, 64, 64, 1) || Grey(true, GreyMinImages-1, 28, 28, 1) ||
		Grey(true, 1000, GreyMinSide-1, 28, 1) || Grey(false, 1000, 28, 28, 1) || Grey(true, 1000, 28, 28, 3) {
		t.Error("Grey")
	}
}

// TestPhotoClock: the probe's clock admits fits within its share, counts
// their modelled seconds, and takes the timed fit's pace.
func TestPhotoClock(t *testing.T) {
	c := NewPhotoClock(100, 1e-9) // 20 s allowed at 2e-9 s per multiply-add
	if !c.Compares(5e9) || c.Compares(5.1e9) {
		t.Error("Compares")
	}
	if ok, _ := c.Admit("a", 5e9, 0); !ok || c.Spent != 10 {
		t.Errorf("first fit: %v, spent %g", ok, c.Spent)
	}
	c.Timed(5e9, 5, 6)
	if c.PerWork != 1e-9 || c.Spent != 6 {
		t.Errorf("timed: %g per work, spent %g", c.PerWork, c.Spent)
	}
	if ok, note := c.Admit("b 7x7", 1.5e10, 7); ok || !strings.HasPrefix(note, "b 7x7 skipped (its probe, 15.0 s modelled, would pass 20% of the 100.0 s left)") {
		t.Errorf("past the share: %v %q", ok, note)
	}
	rec := PhotoRecord(250, 1000, 750, []string{PhotoResult("a 5x5", 64, 200, 250)}, []string{"b skipped"}, "")
	if want := "on 250 of 1000 sampled images held out (750 fitted), at the filters each plan affords: a 5x5, 64 filters: 80.00%; b skipped: kept today's (the images as given, 5x5 filters)"; rec != want {
		t.Errorf("record %q, want %q", rec, want)
	}
	if rec := PhotoRecord(1, 2, 1, nil, nil, "c 3x3"); !strings.HasSuffix(rec, ": chose c 3x3 (more held-out images right by more than one standard error)") {
		t.Errorf("record %q", rec)
	}
}
