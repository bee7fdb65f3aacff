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
	tr, _, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	cfg := scn.Fast(scn.SCN)
	cfg.MaxNodes, cfg.BlockSize = 1000, 500
	half := cfg
	half.BlockSize = 250
	full, _ := fitTotal(cfg, nil, tr, nil)
	need, _ := fitTotal(half, nil, tr, nil)
	if need >= full {
		t.Fatalf("blocks of 250 need %d bytes, of 500 %d: the test needs the block to matter", need, full)
	}
	b := budget{memLimit{bytes: (need + full) / 2, from: "test"}}
	got, note := b.fitBlock(cfg, nil, tr)
	if got.BlockSize != 250 || !strings.Contains(note, "blocks of 250 nodes instead of 500") {
		t.Errorf("block %d, note %q", got.BlockSize, note)
	}
	if err := b.checkFit(got, nil, tr, nil); err != nil {
		t.Errorf("the chosen block does not pass checkFit: %v", err)
	}
	if got, note := (budget{memLimit{bytes: 2 * full}}).fitBlock(cfg, nil, tr); got.BlockSize != 500 || note != "" {
		t.Errorf("a fit within the limit got block %d (%q)", got.BlockSize, note)
	}
	tiny := budget{memLimit{bytes: 1 << 20, from: "test"}}
	if got, _ := tiny.fitBlock(cfg, nil, tr); got.BlockSize != 500 {
		t.Errorf("a fit that cannot fit got block %d", got.BlockSize)
	}
	if err := tiny.checkFit(cfg, nil, tr, nil); err == nil || !strings.Contains(err.Error(), "--block") {
		t.Errorf("refusal does not name --block: %v", err)
	}
}
