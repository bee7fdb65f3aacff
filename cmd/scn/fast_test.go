package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPresetFast: --preset fast trains a block model with the preset's
// settings (recorded in the file as preset "fast"); a block flag that
// departs from it makes the model custom; bad block flags are usage errors.
func TestPresetFast(t *testing.T) {
	dir := t.TempDir()
	fast := filepath.Join(dir, "fast.scn")
	ok(t, "train", "--model", "2dscn", "--preset", "fast", "--nodes", "60", "-q", "-o", fast)
	info := inspectJSON(t, fast)
	if info["preset"] != "fast" || info["activation"] != "sigmoid" || info["ridge"] != 1.0 {
		t.Errorf("fast model: preset %v, activation %v, ridge %v", info["preset"], info["activation"], info["ridge"])
	}
	if out := ok(t, "eval", fast); !strings.Contains(out, "accuracy") {
		t.Errorf("eval of a fast model: %s", out)
	}
	custom := filepath.Join(dir, "custom.scn")
	ok(t, "train", "--model", "2drvfl", "--preset", "fast", "--nodes", "60", "--block", "30", "--field", "3-9", "-q", "-o", custom)
	if info := inspectJSON(t, custom); info["preset"] != "custom" {
		t.Errorf("fast with --block 30 --field 3-9: preset %v, want custom", info["preset"])
	}
	paperBlock := filepath.Join(dir, "paper-block.scn")
	ok(t, "train", "--model", "scn", "--nodes", "20", "--block", "10", "--ridge", "0.1", "-q", "-o", paperBlock)
	if info := inspectJSON(t, paperBlock); info["preset"] != "custom" {
		t.Errorf("paper with --block 10: preset %v, want custom", info["preset"])
	}
	for _, args := range [][]string{
		{"--field", "9-3"}, {"--field", "x"}, {"--field", "0-5"}, {"--block", "-2"},
		{"--model", "2drvfl", "--preset", "fast", "--candidates", "1000000"},
		{"--model", "scn", "--pairs"},
	} {
		out, code := failsCode(t, append([]string{"train", "-q", "--nodes", "10"}, args...)...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, code, exitUsage, out)
		}
	}
}
