package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainBudgetAndReplay: a budgeted fit on the built-in set records its
// plan (inspect shows it), --replay gives the same file, and the flags a
// budget sets itself are refused with it.
func TestTrainBudgetAndReplay(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "b.scn")
	out := ok(t, "train", "--budget", "4s", "-q", "-o", m)
	if !strings.Contains(out, "budget fitted") {
		t.Errorf("train --budget said:\n%s", out)
	}
	info := inspectJSON(t, m)
	b, _ := info["budget"].(map[string]any)
	if b == nil || b["FitNodes"].(float64) < 1 {
		t.Fatalf("inspect --json: budget %v", info["budget"])
	}
	if text := ok(t, "inspect", m); !strings.Contains(text, "checkpoints") {
		t.Errorf("inspect lacks the checkpoints:\n%s", text)
	}
	again := filepath.Join(dir, "again.scn")
	if out := ok(t, "train", "--replay", m, "-q", "-o", again); !strings.Contains(out, "replayed the plan of") {
		t.Errorf("train --replay said:\n%s", out)
	}
	x, _ := os.ReadFile(m)
	y, _ := os.ReadFile(again)
	if !bytes.Equal(x, y) {
		t.Error("the replayed model differs from the budgeted one")
	}
	for _, args := range [][]string{
		{"train", "--budget", "4s", "--model", "rvfl", "-o", m},
		{"train", "--budget", "4s", "--nodes", "100", "-o", m},
		{"train", "--budget", "0s", "-o", m},
		{"train", "--budget", "-5s", "-o", m},
		{"train", "--budget", "4s", "--replay", m, "-o", m},
	} {
		if _, code := failsCode(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
	// A model fitted without a budget has no plan to replay.
	plain := filepath.Join(dir, "plain.scn")
	ok(t, "train", "--model", "2drvfl", "--preset", "paper", "--nodes", "20", "-q", "-o", plain)
	if msg := fails(t, "train", "--replay", plain, "-o", again); !strings.Contains(msg, "not fitted with --budget") {
		t.Errorf("replay of a plain model: %s", msg)
	}
}
