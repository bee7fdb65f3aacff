package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn"
)

// TestLocal2Everywhere: a two-layer model of local nodes goes where a
// one-layer one goes: scn export writes its ONNX graph and npz arrays;
// --stream fits the model of the fit in memory (the same filters of both
// layers, output weights to 1e-9) in four passes; --augment fits and
// records the copies; --stats-out writes statistics that solve to the
// model and scn update takes them. A supervised second layer is not
// streamed (the reason given, nothing written).
func TestLocal2Everywhere(t *testing.T) {
	dir, _, _ := files(t)
	data := []string{"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz")}
	newData := []string{"--idx-images", filepath.Join(dir, "test-images"), "--idx-labels", filepath.Join(dir, "test-labels")}
	at := func(name string) string { return filepath.Join(dir, "l2x-"+name) }
	two := []string{"train", "--model", "2drvfl", "--local", "5x5", "--filters", "4", "--pool", "2", "--local2", "3x3", "--filters2", "6",
		"--bf16-gram=false", "--float32-gram=false"}
	ok(t, append(append(slices.Clone(two), "-q", "-o", at("mem.scn"), "--stats-out", at("mem.scnstats")), data...)...)
	// Export.
	for _, f := range []string{"two.onnx", "two.npz"} {
		if out := ok(t, "export", at("mem.scn"), "-o", at(f)); !strings.Contains(out, "wrote") {
			t.Errorf("export -o %s said:\n%s", f, out)
		}
		if st, err := os.Stat(at(f)); err != nil || st.Size() < 1000 {
			t.Errorf("export -o %s: %v", f, err)
		}
	}
	// Streamed.
	out := ok(t, append(append(slices.Clone(two), "--stream", "-o", at("str.scn")), data...)...)
	if !strings.Contains(out, "streaming 300 images") || !strings.Contains(out, "4 passes over the data (the planes' moments, the second layer's planes' moments,") {
		t.Errorf("train --local2 --stream said:\n%s", out)
	}
	x, y := loadBoth(t, at("mem.scn"), at("str.scn"))
	if d := relBetaDiff(x, y); !(d <= 1e-9) || y.Local == nil || y.Local.Second == nil || !slices.Equal(x.Local.Banks[0].Params, y.Local.Banks[0].Params) ||
		!slices.Equal(x.Local.Second.Params, y.Local.Second.Params) || !slices.Equal(x.Local.Mean, y.Local.Mean) {
		t.Errorf("the streamed two-layer model differs from the fit in memory (beta by %.3g)", d)
	}
	if out := ok(t, append(append(slices.Clone(two), "--stream", "--dry-run"), data...)...); !strings.Contains(out, "streamed: 4 passes") {
		t.Errorf("--dry-run said:\n%s", out)
	}
	msg := fails(t, append([]string{"train", "--model", "2dscn", "--local", "5x5", "--filters", "4", "--local2", "3x3", "--filters2", "3", "--stream", "-o", at("bad.scn")}, data...)...)
	if !strings.Contains(msg, "residual") {
		t.Errorf("supervised --local2 --stream: %s", msg)
	}
	if _, err := os.Stat(at("bad.scn")); err == nil {
		t.Error("a refused streamed fit wrote a model")
	}
	// Augmented.
	out = ok(t, append(append(slices.Clone(two), "-o", at("aug.scn"), "--augment", "flip", "--stats-out", at("aug.scnstats")), data...)...)
	if !strings.Contains(out, "statistics of 300 images and their 300 augmented copies") {
		t.Errorf("train --local2 --augment said:\n%s", out)
	}
	if out := ok(t, "inspect", at("aug.scn")); !strings.Contains(out, "flip") || !strings.Contains(out, "second layer") {
		t.Errorf("inspect of an augmented two-layer model:\n%s", out)
	}
	ok(t, "solve", at("aug.scnstats"), "-o", at("augsolved.scn"))
	if d := betaDiff(t, at("aug.scn"), at("augsolved.scn")); !(d <= 1e-9) {
		t.Errorf("solve of augmented two-layer statistics differs from the saved model by %.3g", d)
	}
	// Statistics and update.
	ok(t, "solve", at("mem.scnstats"), "-o", at("solved.scn"))
	if d := betaDiff(t, at("mem.scn"), at("solved.scn")); !(d <= 1e-9) {
		t.Errorf("solve of two-layer statistics differs from the saved model by %.3g", d)
	}
	ok(t, append([]string{"update", at("mem.scn"), "--stats", at("mem.scnstats"), "-o", at("up.scn")}, newData...)...)
	up, err := scn.Load(at("up.scn"))
	if err != nil || up.Summary.Samples != 400 || up.Local.Second == nil || !slices.Equal(up.Local.Second.Params, x.Local.Second.Params) {
		t.Errorf("update of a two-layer model: %v", err)
	}
	if out := ok(t, append([]string{"eval", at("up.scn")}, newData...)...); !strings.Contains(out, "accuracy") {
		t.Errorf("eval of the updated two-layer model said:\n%s", out)
	}
}
