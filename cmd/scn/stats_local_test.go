package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn"
)

// TestStatsLocal: scn train --local --stats-out writes the statistics of a
// local model, and scn update with new images gives the model the solve of
// the old and new images' statistics (stats build, merge, solve) to 1e-9,
// with the merged statistics byte for byte; an augmented fit's statistics
// hold its copies (their solve is the saved model); statistics of global
// nodes are refused for a local model, writing nothing.
func TestStatsLocal(t *testing.T) {
	dir, _, _ := files(t)
	data := []string{"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz")}
	newData := []string{"--idx-images", filepath.Join(dir, "test-images"), "--idx-labels", filepath.Join(dir, "test-labels")}
	at := func(name string) string { return filepath.Join(dir, name) }
	// Float64 Gram products: the fit's sums are those of the statistics
	// to rounding (the fast preset's bfloat16 or float32 products round
	// them, docs/stats.md).
	local := []string{"train", "-q", "--model", "2drvfl", "--local", "5x5,3x3", "--filters", "6", "--pool", "2", "--bf16-gram=false", "--float32-gram=false"}
	out := ok(t, append(append(slices.Clone(local), "-o", at("m.scn"), "--stats-out", at("s1.scnstats")), data...)...)
	if !strings.Contains(out, "statistics of 300 images: saved") {
		t.Fatalf("train --stats-out said:\n%s", out)
	}
	st, err := scn.LoadStats(at("s1.scnstats"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Recipe.Local == nil || st.Factor == nil || st.N != 300 {
		t.Fatalf("statistics of a local model: local %v, factor %v, N %d", st.Recipe.Local != nil, st.Factor != nil, st.N)
	}
	// Their solve is the saved model.
	ok(t, "solve", at("s1.scnstats"), "-o", at("solved.scn"))
	if d := betaDiff(t, at("m.scn"), at("solved.scn")); !(d <= 1e-9) {
		t.Errorf("solve of train --stats-out differs from the saved model by %.3g", d)
	}
	// An update with new images is the solve of both sets' statistics.
	ok(t, append([]string{"update", at("m.scn"), "--stats", at("s1.scnstats"), "-o", at("up.scn"), "--stats-out", at("up.scnstats")}, newData...)...)
	ok(t, append([]string{"stats", "build", "--recipe", at("m.scn"), "-o", at("s2.scnstats")}, newData...)...)
	ok(t, "stats", "merge", at("s1.scnstats"), at("s2.scnstats"), "-o", at("s3.scnstats"))
	ok(t, "solve", at("s3.scnstats"), "-o", at("both.scn"))
	x, y := loadBoth(t, at("both.scn"), at("up.scn"))
	if d := relBetaDiff(x, y); !(d <= 1e-9) || y.Local == nil || !slices.Equal(x.Local.Banks[1].Params, y.Local.Banks[1].Params) || y.Summary.Samples != 400 {
		t.Errorf("update differs from the solve of old and new statistics (beta by %.3g, samples %d)", d, y.Summary.Samples)
	}
	if !bytes.Equal(readFile(t, at("up.scnstats")), readFile(t, at("s3.scnstats"))) {
		t.Error("update --stats-out differs from stats merge")
	}
	if out := ok(t, append([]string{"eval", at("up.scn")}, newData...)...); !strings.Contains(out, "accuracy") {
		t.Errorf("eval of the updated model said:\n%s", out)
	}
	// Augmented: the statistics hold the copies the fit solved.
	out = ok(t, append(append(slices.Clone(local), "-o", at("aug.scn"), "--augment", "flip,shift=2", "--stats-out", at("aug.scnstats")), data...)...)
	if !strings.Contains(out, "statistics of 300 images and their 600 augmented copies") {
		t.Fatalf("train --augment --stats-out said:\n%s", out)
	}
	ok(t, "solve", at("aug.scnstats"), "-o", at("augsolved.scn"))
	if d := betaDiff(t, at("aug.scn"), at("augsolved.scn")); !(d <= 1e-9) {
		t.Errorf("solve of augmented statistics differs from the saved model by %.3g", d)
	}
	ok(t, append([]string{"update", at("aug.scn"), "--stats", at("aug.scnstats"), "-o", at("augup.scn")}, newData...)...)
	if m, err := scn.Load(at("augup.scn")); err != nil || m.Summary.Samples != 400 {
		t.Errorf("augmented update: %v", err)
	}
	// Statistics of global nodes (or of other filters) for a local model.
	ok(t, append([]string{"train", "-q", "--model", "2drvfl", "--nodes", "20", "-o", at("g.scn"), "--stats-out", at("g.scnstats")}, data...)...)
	for _, c := range []struct{ model, stats, want string }{
		{"m.scn", "g.scnstats", "local (convolutional) nodes and of global nodes"},
		{"g.scn", "s1.scnstats", "local (convolutional) nodes and of global nodes"},
		{"m.scn", "aug.scnstats", "augmentation"},
	} {
		msg := fails(t, append([]string{"update", at(c.model), "--stats", at(c.stats), "-o", at("bad.scn"), "--stats-out", at("bad.scnstats")}, newData...)...)
		if !strings.Contains(msg, c.want) {
			t.Errorf("update %s --stats %s: %s, want %q", c.model, c.stats, msg, c.want)
		}
		for _, f := range []string{"bad.scn", "bad.scnstats"} {
			if _, err := os.Stat(at(f)); err == nil {
				t.Fatalf("a refused update wrote %s", f)
			}
		}
	}
	if msg := fails(t, append([]string{"update", at("m.scn"), "--stats", at("s1.scnstats"), "--grow", "2", "-o", at("bad.scn"), "--old-idx-images", filepath.Join(dir, "train-images.gz"), "--old-idx-labels", filepath.Join(dir, "train-labels.gz")}, newData...)...); !strings.Contains(msg, "--grow") {
		t.Errorf("update --grow of a local model: %s", msg)
	}
}

// TestStreamLocal: scn train --local --stream fits random filters from
// the images read shard by shard: the model of the fit in memory (the same
// filters and output weights); supervised local nodes are refused with the
// reason.
func TestStreamLocal(t *testing.T) {
	dir, _, _ := files(t)
	data := []string{"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz")}
	at := func(name string) string { return filepath.Join(dir, name) }
	local := []string{"train", "--model", "2drvfl", "--local", "5x5,3x3", "--filters", "6", "--pool", "2"}
	ok(t, append(append(slices.Clone(local), "-q", "-o", at("mem.scn")), data...)...)
	out := ok(t, append(append(slices.Clone(local), "--stream", "-o", at("str.scn")), data...)...)
	if !strings.Contains(out, "streaming 300 images") || !strings.Contains(out, "3 passes over the data") {
		t.Errorf("train --local --stream said:\n%s", out)
	}
	x, y := loadBoth(t, at("mem.scn"), at("str.scn"))
	if d := relBetaDiff(x, y); !(d <= 1e-9) || y.Local == nil || !slices.Equal(x.Local.Banks[0].Params, y.Local.Banks[0].Params) || !slices.Equal(x.Local.Mean, y.Local.Mean) {
		t.Errorf("the streamed local model differs from the fit in memory (beta by %.3g)", d)
	}
	if out := ok(t, append(append(slices.Clone(local), "--stream", "--dry-run"), data...)...); !strings.Contains(out, "streamed: 3 passes") {
		t.Errorf("--dry-run said:\n%s", out)
	}
	msg := fails(t, append([]string{"train", "--model", "2dscn", "--local", "5x5", "--filters", "4", "--stream", "-o", at("bad.scn")}, data...)...)
	if !strings.Contains(msg, "--stream") || !strings.Contains(msg, "residual") {
		t.Errorf("supervised local --stream: %s", msg)
	}
	if _, err := os.Stat(at("bad.scn")); err == nil {
		t.Error("a refused streamed fit wrote a model")
	}
}
