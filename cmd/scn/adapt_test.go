package main

import (
	"strings"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

// TestFitBlockHalvesToFit: a supervised block fit whose estimate exceeds
// the limit gets the largest halved block size that fits, with a note; one
// that fits keeps its block; one that cannot fit is left to checkFit.
func TestFitBlockHalvesToFit(t *testing.T) {
	set, _, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	tr := set.Shape()
	cfg := scn.Fast(scn.SCN)
	cfg.MaxNodes, cfg.BlockSize = 1000, 500
	half := cfg
	half.BlockSize = 250
	full := fitTotal(cfg, nil, tr, 0)
	need := fitTotal(half, nil, tr, 0)
	if need >= full {
		t.Fatalf("blocks of 250 need %d bytes, of 500 %d: the test needs the block to matter", need, full)
	}
	b := memCap{memLimit{bytes: (need + full) / 2, from: "test"}}
	got, note := b.fitBlock(cfg, nil, tr, keepFlags{})
	if got.BlockSize != 250 || !strings.Contains(note, "blocks of 250 nodes instead of 500") {
		t.Errorf("block %d, note %q", got.BlockSize, note)
	}
	if err := b.checkFit(got, nil, tr, 0); err != nil {
		t.Errorf("the chosen block does not pass checkFit: %v", err)
	}
	if got, note := (memCap{memLimit{bytes: 2 * full}}).fitBlock(cfg, nil, tr, keepFlags{}); got.BlockSize != 500 || note != "" {
		t.Errorf("a fit within the limit got block %d (%q)", got.BlockSize, note)
	}
	tiny := memCap{memLimit{bytes: 1 << 20, from: "test"}}
	if got, _ := tiny.fitBlock(cfg, nil, tr, keepFlags{}); got.BlockSize != 500 {
		t.Errorf("a fit that cannot fit got block %d", got.BlockSize)
	}
	if err := tiny.checkFit(cfg, nil, tr, 0); err == nil || !strings.Contains(err.Error(), "--block") {
		t.Errorf("refusal does not name --block: %v", err)
	}
}

// TestFitBlockLowersCandidates: a supervised block fit that does not fit
// even in blocks of 8 gets fewer candidates per node (halving, down to
// minCandidates), with a note naming both settings; --candidates (keep)
// leaves them alone, and so does a fit that fits.
func TestFitBlockLowersCandidates(t *testing.T) {
	set, _, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	tr := set.Shape()
	cfg := scn.Default(scn.SCN)
	cfg.MaxNodes, cfg.BlockSize, cfg.Candidates = 200, 16, 512
	want := cfg
	want.BlockSize, want.Candidates = 8, 256
	least := fitTotal(want, nil, tr, 0)
	low := want
	low.BlockSize, low.Candidates = 8, 512
	if more := fitTotal(low, nil, tr, 0); more <= least {
		t.Fatalf("512 candidates need %d bytes, 256 %d: the test needs candidates to matter", more, least)
	}
	b := memCap{memLimit{bytes: least, from: "test"}}
	got, note := b.fitBlock(cfg, nil, tr, keepFlags{})
	if got.BlockSize != 8 || got.Candidates != 256 || !strings.Contains(note, "blocks of 8 nodes instead of 16, 256 candidates per node instead of 512") || !strings.Contains(note, "--block and --candidates set them") {
		t.Errorf("block %d, %d candidates, note %q", got.BlockSize, got.Candidates, note)
	}
	if err := b.checkFit(got, nil, tr, 0); err != nil {
		t.Errorf("the chosen settings do not pass checkFit: %v", err)
	}
	if got, _ := b.fitBlock(cfg, nil, tr, keepFlags{candidates: true}); got.Candidates != 512 {
		t.Errorf("--candidates was lowered to %d", got.Candidates)
	}
	got, note = b.fitBlock(cfg, nil, tr, keepFlags{block: true})
	if got.BlockSize != 16 || got.Candidates >= 512 || !strings.Contains(note, "--candidates sets it") {
		t.Errorf("with --block: block %d, %d candidates, note %q", got.BlockSize, got.Candidates, note)
	}
	if s := smallestFit(cfg, keepFlags{}); s.BlockSize != 8 || s.Candidates != minCandidates {
		t.Errorf("smallest settings: block %d, %d candidates", s.BlockSize, s.Candidates)
	}
}

// TestPresetsOnMNISTUnchanged: on MNIST (60000 images of 28 x 28, 10
// classes) the fast and default presets fit in 8 GiB as they are: the
// adaptation leaves them alone.
func TestPresetsOnMNISTUnchanged(t *testing.T) {
	mnist := dataset.Shape{N: 60000, Rows: 28, Cols: 28, Channels: 1, Labels: true, Classes: 10}
	b := memCap{memLimit{bytes: 8 << 30, from: "test"}}
	for _, preset := range []string{"fast", "default"} {
		for _, k := range []scn.Kind{scn.SCN2D, scn.SCN, scn.RVFL2D, scn.RVFL} {
			cfg, err := scn.PresetConfig(preset, k)
			if err != nil {
				t.Fatal(err)
			}
			var sel *scn.Selection
			if preset == "default" {
				sel = &scn.Selection{Validation: 0.1}
			}
			got, note := b.fitBlock(cfg, sel, mnist, keepFlags{})
			if got.BlockSize != cfg.BlockSize || got.Candidates != cfg.Candidates || note != "" {
				t.Errorf("%s %s: block %d, %d candidates (%q)", preset, k, got.BlockSize, got.Candidates, note)
			}
		}
	}
}
