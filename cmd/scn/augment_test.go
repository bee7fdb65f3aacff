package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainAugment: scn train --augment fits local nodes with augmented
// copies, recorded in the model (inspect shows it, text and JSON), the
// same file for the same seed, and --dry-run says it; bad settings and
// combinations are one-line errors that write nothing.
func TestTrainAugment(t *testing.T) {
	dir, _, _ := files(t)
	data := []string{"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz")}
	train := func(out string, extra ...string) []string {
		return append(append([]string{"train", "-q", "--model", "2drvfl", "--local", "5x5", "--filters", "4", "--pool", "2", "-o", out}, data...), extra...)
	}
	model := filepath.Join(dir, "aug.scn")
	out := ok(t, train(model, "--augment", "flip,shift=2,copies=2")...)
	if !strings.Contains(out, "saved") {
		t.Fatalf("train said:\n%s", out)
	}
	out = ok(t, "inspect", model)
	if !strings.Contains(out, "augmentation") || !strings.Contains(out, "flip,shift=2,copies=2") || !strings.Contains(out, "4 rows per image") {
		t.Errorf("inspect lacks the augmentation:\n%s", out)
	}
	if out := ok(t, "inspect", "--json", model); !strings.Contains(out, `"rows_per_image": 4`) {
		t.Errorf("inspect --json lacks the augmentation:\n%s", out)
	}
	again := filepath.Join(dir, "aug2.scn")
	ok(t, train(again, "--augment", "flip,shift=2,copies=2")...)
	a, _ := os.ReadFile(model)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Error("two augmented fits with the same seed gave different files")
	}
	plain := filepath.Join(dir, "plain.scn")
	ok(t, train(plain)...)
	if c, _ := os.ReadFile(plain); bytes.Equal(a, c) || bytes.Contains(c, []byte("augment")) {
		t.Error("the fit without --augment is the augmented one, or mentions augmentation")
	}
	if out := ok(t, train(filepath.Join(dir, "dry.scn"), "--augment", "flip", "--dry-run")...); !strings.Contains(out, "augment     flip") {
		t.Errorf("--dry-run lacks the augmentation:\n%s", out)
	}
	// Selection with augmentation.
	if out := ok(t, train(filepath.Join(dir, "sel.scn"), "--augment", "shift=1", "--validation", "0.2", "--ridges", "1,100")...); !strings.Contains(out, "ridge") {
		t.Errorf("selection said:\n%s", out)
	}
	bad := filepath.Join(dir, "bad.scn")
	for _, c := range []struct {
		args []string
		want string
	}{
		{train(bad, "--augment", "bogus"), "unknown word"},
		{train(bad, "--augment", "shift=2,copies=0"), "0 copies"},
		{train(bad, "--augment", "copies=2"), "without a shift"},
		{train(bad, "--augment", "shift=28"), "not less than the image's side"},
		{train(bad, "--augment", "flip", "--stream"), "--stream"},
		{append([]string{"train", "-q", "--model", "2dscn", "-o", bad, "--augment", "flip"}, data...), "for local nodes"},
		{append([]string{"train", "-q", "-o", bad, "--augment", "flip", "--budget", "5s"}, data...), "--budget"},
	} {
		if out := fails(t, c.args...); !strings.Contains(out, c.want) {
			t.Errorf("%v: %s, want %q", c.args, out, c.want)
		}
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("a refused fit wrote a model")
	}
}
