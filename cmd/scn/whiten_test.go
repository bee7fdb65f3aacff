package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainWhiten: scn train --local --whiten records the whitening, which
// inspect shows, eval and predict use, and the same seed gives the same
// file; --stream gives the model of the fit in memory (the same
// whitening, the same accuracy); a bad eps, --whiten-eps without --whiten
// and --whiten without --local are one-line errors that write nothing.
func TestTrainWhiten(t *testing.T) {
	dir, _, _ := files(t)
	data := []string{"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz")}
	train := func(out string, extra ...string) []string {
		return append(append([]string{"train", "-q", "--model", "2drvfl", "--local", "5x5", "--filters", "8", "--pool", "2x2", "-o", out}, data...), extra...)
	}
	model := filepath.Join(dir, "whiten.scn")
	ok(t, train(model, "--whiten")...)
	out := ok(t, "inspect", model)
	for _, want := range []string{"two-sided, standardised, whitened (eps 0.1)", "whitening matrix of 5x5 (25 x 25)"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q:\n%s", want, out)
		}
	}
	if out := ok(t, "inspect", "--json", model); !strings.Contains(out, `"whiten": true`) || !strings.Contains(out, `"whiten_eps": 0.1`) {
		t.Errorf("inspect --json lacks the whitening:\n%s", out)
	}
	if out := ok(t, "eval", model, "--idx-images", filepath.Join(dir, "test-images"), "--idx-labels", filepath.Join(dir, "test-labels")); !strings.Contains(out, "accuracy") {
		t.Fatalf("eval said:\n%s", out)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "folder", "*", "*.png"))
	if out := ok(t, append([]string{"predict", model}, pngs[:2]...)...); strings.Count(out, ".png") != 2 {
		t.Fatalf("predict said:\n%s", out)
	}
	again := filepath.Join(dir, "whiten2.scn")
	ok(t, train(again, "--whiten", "--whiten-eps", "0.1")...)
	a, _ := os.ReadFile(model)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Error("two whitened fits with the same seed gave different files")
	}
	streamed := filepath.Join(dir, "whiten-stream.scn")
	ok(t, train(streamed, "--whiten", "--stream")...)
	if out := ok(t, "inspect", streamed); !strings.Contains(out, "whitening matrix of 5x5 (25 x 25)") {
		t.Errorf("inspect of the streamed fit lacks the whitening:\n%s", out)
	}
	evalLine := func(m string) string {
		out := ok(t, "eval", m, "--idx-images", filepath.Join(dir, "test-images"), "--idx-labels", filepath.Join(dir, "test-labels"))
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "accuracy") {
				return l
			}
		}
		t.Fatalf("eval said:\n%s", out)
		return ""
	}
	if a, b := evalLine(model), evalLine(streamed); a != b {
		t.Errorf("streamed whitened fit: %q, in memory %q", b, a)
	}
	bad := filepath.Join(dir, "bad.scn")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--whiten", "--whiten-eps", "0"}, "--whiten-eps"},
		{[]string{"--whiten", "--whiten-eps", "NaN"}, "--whiten-eps"},
		{[]string{"--whiten-eps", "0.5"}, "add --whiten"},
		{[]string{"--local", "29x29", "--whiten"}, "larger than the images"},
	} {
		args := train(bad, c.args...)
		if out := fails(t, args...); !strings.Contains(out, c.want) {
			t.Errorf("%v: %s, want %q", c.args, out, c.want)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Fatalf("%v wrote a model", c.args)
		}
	}
	args := append([]string{"train", "-q", "--model", "2drvfl", "--whiten", "-o", bad}, data...)
	if out := fails(t, args...); !strings.Contains(out, "add --local") {
		t.Errorf("--whiten without --local: %s", out)
	}
}
