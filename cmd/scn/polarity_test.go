package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestDarkInkNote trains on dark digits on a light background: without
// --invert, train says so in one line and records that nothing was
// inverted; --invert no silences it; --invert auto and --mnist-normalize
// (whose default is auto) invert them and the model records how many.
func TestDarkInkNote(t *testing.T) {
	dir, _, test := files(t)
	dark := filepath.Join(dir, "dark")
	for i := 0; i < 30; i++ {
		img := append([]float32(nil), test.Image(i)...)
		for j, v := range img {
			img[j] = 1 - v
		}
		class := test.Classes[test.Labels[i]]
		writePNG(t, filepath.Join(dark, class, fmt.Sprintf("%02d.png", i)), img, test.Rows, test.Cols)
	}
	model := filepath.Join(dir, "dark.scn")
	train := func(extra ...string) (string, map[string]any) {
		t.Helper()
		out := ok(t, append([]string{"train", "--model", "2drvfl", "--nodes", "10", "-q", "--validation", "0", "--folder", dark, "-o", model}, extra...)...)
		return out, inspectJSON(t, model)
	}
	meta := func(info map[string]any, k string) string {
		m, _ := info["meta"].(map[string]any)
		return fmt.Sprint(m[k])
	}
	out, info := train()
	if strings.Count(out, "scn: note: 30 of 30 training images look like dark ink on a light background") != 1 || !strings.Contains(out, "--invert auto") {
		t.Errorf("no note on dark ink:\n%s", out)
	}
	if got := meta(info, metaInverted); got != "0 of 30" {
		t.Errorf("inverted_images %q", got)
	}
	for _, flags := range [][]string{{"--invert", "no"}, {"--invert", "auto"}, {"--invert", "yes"}, {"--mnist-normalize"}} {
		out, info = train(flags...)
		if strings.Contains(out, "note") {
			t.Errorf("%v: a note:\n%s", flags, out)
		}
		want := "30 of 30"
		if flags[len(flags)-1] == "no" {
			want = "0 of 30"
		}
		if got := meta(info, metaInverted); got != want {
			t.Errorf("%v: inverted_images %q, want %q", flags, got, want)
		}
	}
	// The model trained with --mnist-normalize records no invert flag, and
	// eval reads that as auto with the MNIST convention, as train did.
	if got := meta(info, metaPreprocess); got != `{"mnist":true}` {
		t.Errorf("preprocess %s", got)
	}
	out = ok(t, "eval", model, "--folder", dark)
	if !strings.Contains(out, "on 30 images") {
		t.Errorf("eval:\n%s", out)
	}
	// Bright ink (the built-in set): no note.
	if out := ok(t, "train", "--model", "2drvfl", "--nodes", "10", "-q", "-o", model); strings.Contains(out, "note") {
		t.Errorf("a note on MNIST:\n%s", out)
	}
	if got := meta(inspectJSON(t, model), metaInverted); got != "0 of 3000" {
		t.Errorf("built-in set: inverted_images %q", got)
	}
}
