package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainLocal2: scn train --local2 fits two layers of local nodes,
// inspect shows the second layer, eval and predict read the model, and
// impossible second layers are one-line errors that write nothing
// (exported, streamed, augmented: TestLocal2Everywhere).
func TestTrainLocal2(t *testing.T) {
	dir, _, _ := files(t)
	model := filepath.Join(dir, "two.scn")
	data := []string{"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz")}
	base := []string{"train", "-q", "--model", "2drvfl", "--local", "5x5", "--filters", "4", "--pool", "2"}
	out := ok(t, append(append(base, "--local2", "3x3", "--filters2", "6", "-o", model), data...)...)
	// 4 filters x 2 sides x 4 regions + 6 x 2 x 4.
	if !strings.Contains(out, "2DRVFL: 80 nodes") {
		t.Fatalf("train said:\n%s", out)
	}
	out = ok(t, "inspect", model)
	for _, want := range []string{"then 6 x 3x3 on max 2/2 pooled maps, both layers' outputs", "second layer: 6 filters of 3x3 (separable filters u v^T x w, 14 + bias each) on 8 pooled maps"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q:\n%s", want, out)
		}
	}
	if out := ok(t, "inspect", "--json", model); !strings.Contains(out, `"mid_pooling": "max"`) || !strings.Contains(out, `"held": 6`) {
		t.Errorf("inspect --json lacks the second layer:\n%s", out)
	}
	out = ok(t, "eval", model, "--idx-images", filepath.Join(dir, "test-images"), "--idx-labels", filepath.Join(dir, "test-labels"))
	if !strings.Contains(out, "accuracy") {
		t.Fatalf("eval said:\n%s", out)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "folder", "*", "*.png"))
	if out := ok(t, append([]string{"predict", model}, pngs[:2]...)...); strings.Count(out, ".png") != 2 {
		t.Fatalf("predict said:\n%s", out)
	}
	// Supervised second layer, full filters, average between the layers,
	// the second layer's outputs only.
	out = ok(t, append([]string{"train", "-q", "--model", "scn", "--local", "3x3", "--filters", "3", "--pool", "2",
		"--local2", "3x3", "--filters2", "4", "--mid-pooling", "avg", "--mid-pool", "3", "--mid-stride", "2", "--concat=false", "-o", filepath.Join(dir, "scn2.scn")}, data...)...)
	if !strings.Contains(out, "SCN: ") {
		t.Fatalf("supervised two-layer train said:\n%s", out)
	}
	// The ridge term chosen on held-out images.
	out = ok(t, append(append(base, "--local2", "3x3", "--filters2", "3", "--validation", "0.2", "--ridges", "1,100", "-o", filepath.Join(dir, "sel2.scn")), data...)...)
	if !strings.Contains(out, "ridge") {
		t.Fatalf("two-layer train with selection said:\n%s", out)
	}
	bad := filepath.Join(dir, "bad.scn")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--local2", "15x15"}, "larger than the first layer's pooled maps"},
		{[]string{"--local2", "3x3", "--mid-pool", "0"}, "--mid-pool"},
		{[]string{"--local2", "3x3", "--mid-pooling", "avg+max"}, "want max or avg"},
		{[]string{"--filters2", "3"}, "add --local2"},
		{[]string{"--local2", "3x3", "--stream", "--validation", "0.2"}, "without model selection"},
		{[]string{"--local2", "3x3", "--augment", "flip", "--stream"}, "--stream"},
		{[]string{"--local", "5x5,3x3", "--local2", "3x3"}, "want one"},
	} {
		args := append(append(append([]string{}, base...), append(c.args, "-o", bad)...), data...)
		if out := fails(t, args...); !strings.Contains(out, c.want) {
			t.Errorf("%v: %s, want %q", c.args, out, c.want)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Fatalf("%v: a model file was written", c.args)
		}
	}
}
