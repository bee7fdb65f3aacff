package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var statsPlan = regexp.MustCompile(`statistics +\S+ \S+ in all, (\d+) bytes`)

// TestStatsOutMemoryLimit: --max-memory bounds --stats-out's pass after
// the fit (G and its factor beside the images), not only the fit: a limit
// the fit fits in but the statistics do not is refused before the fit,
// naming --stats-factor=false, with nothing written; the plan (--dry-run)
// shows the pass's estimate, less without the factor; with
// --stats-factor=false under the same limit the model and statistics are
// written.
func TestStatsOutMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	data := memShape{1000, 28, 28, 1}.write(t, dir)
	model, stats := filepath.Join(dir, "m.scn"), filepath.Join(dir, "m.scnstats")
	base := append([]string{"train", "-q", "--model", "2drvfl", "--nodes", "3000", "--validation", "0", "-o", model, "--stats-out", stats}, data...)
	plan := func(extra ...string) int64 {
		out := ok(t, append(append(base, "--dry-run"), extra...)...)
		m := statsPlan.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no statistics estimate in the plan:\n%s", out)
		}
		v, _ := strconv.ParseInt(m[1], 10, 64)
		return v
	}
	with, without := plan(), plan("--stats-factor=false")
	if !(without < with) {
		t.Fatalf("statistics estimated at %d bytes with the factor, %d without", with, without)
	}
	fit := planBytes.FindStringSubmatch(ok(t, append(base, "--dry-run")...))
	fitBytes, _ := strconv.ParseInt(fit[1], 10, 64)
	if !(fitBytes < without) {
		t.Fatalf("the fit's estimate %d is not below the statistics' %d: choose a case where the statistics decide", fitBytes, without)
	}
	limit := strconv.FormatInt((without+with)/2, 10)
	out := fails(t, append(base, "--max-memory", limit)...)
	if !strings.Contains(out, "--stats-out") || !strings.Contains(out, "--stats-factor=false") {
		t.Errorf("refusal does not name --stats-out and --stats-factor=false: %s", out)
	}
	for _, f := range []string{model, stats} {
		if _, err := os.Stat(f); err == nil {
			t.Fatalf("%s written by a refused run", f)
		}
	}
	ok(t, append(base, "--max-memory", limit, "--stats-factor=false")...)
	for _, f := range []string{model, stats} {
		if _, err := os.Stat(f); err != nil {
			t.Fatal(err)
		}
	}
}
