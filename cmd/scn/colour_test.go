package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scn2d/scn/dataset"
)

// hueFolder writes a folder of colour PNGs: n built-in digits tinted with
// one of 3 hues (the class), and returns it with one of its files.
func hueFolder(t *testing.T, n int) (dir, file string) {
	t.Helper()
	tr, _, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i * 7
	}
	s, err := dataset.HueSet(tr.Subset(idx), 3, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "hue")
	if err := dataset.WritePNGFolder(dir, s); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.png"))
	return dir, files[0]
}

// TestTrainColourFolderGrey trains on a folder of colour images read as
// grey (--grey), end to end, and predicts a colour file with the grey
// model (converted as the model records). Reading a grey folder with and
// without --grey gives the same model file, byte for byte.
func TestTrainColourFolderGrey(t *testing.T) {
	dir, file := hueFolder(t, 150)
	model := filepath.Join(t.TempDir(), "grey.scn")
	ok(t, "train", "--model", "rvfl", "--preset", "paper", "--nodes", "20", "-q", "--folder", dir, "--grey", "-o", model)
	info := inspectJSON(t, model)
	if info["samples"] != 150.0 || info["rows"] != 28.0 {
		t.Errorf("model: %v samples, %v rows", info["samples"], info["rows"])
	}
	if prep, ok := info["preprocessing"].(map[string]any); ok && prep["channels"] != nil {
		t.Errorf("a grey model records channels: %v", prep)
	}
	out := ok(t, "predict", model, file)
	if !strings.Contains(out, file) || !strings.Contains(out, "hue") {
		t.Errorf("predict of a colour file with a grey model:\n%s", out)
	}
	ok(t, "eval", model, "--folder", dir)

	gdir, _, _ := files(t)
	a, b := filepath.Join(gdir, "a.scn"), filepath.Join(gdir, "b.scn")
	ok(t, "train", "--model", "rvfl", "--preset", "paper", "--nodes", "10", "-q", "--folder", filepath.Join(gdir, "folder"), "-o", a)
	ok(t, "train", "--model", "rvfl", "--preset", "paper", "--nodes", "10", "-q", "--folder", filepath.Join(gdir, "folder"), "--grey", "-o", b)
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if len(ba) == 0 || !bytes.Equal(ba, bb) {
		t.Error("a grey folder read with --grey gives another model file")
	}
}

// TestDeriveHue writes the hue set and its PNG folder; read with --grey
// it trains (the colour fit waits for the learners' colour support).
func TestDeriveHue(t *testing.T) {
	dir := t.TempDir()
	out, pngs := filepath.Join(dir, "hue"), filepath.Join(dir, "png")
	said := ok(t, "derive", "hue", "-o", out, "--png", pngs, "--hues", "4", "--seed", "2")
	if !strings.Contains(said, "3000 images of 28 x 28 x 3 planes") || !strings.Contains(said, "scn train --folder") {
		t.Errorf("derive hue said:\n%s", said)
	}
	d, err := dataset.ReadDerived(out)
	if err != nil {
		t.Fatal(err)
	}
	if p := d.Part("test"); p.Channels != 3 || p.Len() != 1000 || len(p.Classes) != 4 {
		t.Errorf("test part: %d images of %d planes, classes %v", p.Len(), p.Chans(), p.Classes)
	}
	if m := d.Manifest; m.Params["hues"] != "4" || m.Seed != 2 || !strings.Contains(strings.Join(m.Sources, " "), "MNIST") {
		t.Errorf("manifest: %+v", m)
	}
	if files, _ := filepath.Glob(filepath.Join(pngs, "test", "hue090", "*.png")); len(files) == 0 {
		t.Error("no PNG files for hue090")
	}
	model := filepath.Join(dir, "g.scn")
	ok(t, "train", "--model", "rvfl", "--preset", "paper", "--nodes", "10", "-q", "--derived", out, "--grey", "-o", model)
	ok(t, "eval", model, "--derived", out)
}

// TestColourFlagRefusals checks the usage errors of the new flags and what
// is said of images of mixed sizes.
func TestColourFlagRefusals(t *testing.T) {
	out, code := failsCode(t, "train", "--fit", "crop", "-o", filepath.Join(t.TempDir(), "m.scn"))
	if code != 2 || !strings.Contains(out, "--resize") {
		t.Errorf("--fit without --resize: %d %s", code, out)
	}
	out, code = failsCode(t, "train", "--resize", "8x8", "--fit", "zoom", "-o", filepath.Join(t.TempDir(), "m.scn"))
	if code != 2 || !strings.Contains(out, "pad, crop or stretch") {
		t.Errorf("--fit zoom: %d %s", code, out)
	}
	out, code = failsCode(t, "train", "--channels-first", "-o", filepath.Join(t.TempDir(), "m.scn"))
	if code != 2 || !strings.Contains(out, "NumPy") {
		t.Errorf("--channels-first alone: %d %s", code, out)
	}
	dir := t.TempDir()
	gdir, train, _ := files(t)
	_ = gdir
	writePNG(t, filepath.Join(dir, "a", "1.png"), train.Image(0), 28, 28)
	writePNG(t, filepath.Join(dir, "b", "1.png"), train.Image(1)[:14*28], 14, 28)
	// Mixed sizes: read at a size chosen from them, said (autosize.go).
	out = ok(t, "train", "--model", "rvfl", "--preset", "paper", "--nodes", "5", "--folder", dir, "-o", filepath.Join(t.TempDir(), "m.scn"))
	if !strings.Contains(out, "--resize") || !strings.Contains(out, "images of 2 sizes (14 to 28 rows, 28 to 28 columns): resizing them all to 21 x 28") {
		t.Errorf("mixed sizes: %s", out)
	}
	model := filepath.Join(t.TempDir(), "m.scn")
	ok(t, "train", "--model", "rvfl", "--preset", "paper", "--nodes", "5", "-q", "--folder", dir, "--resize", "16x16", "--fit", "crop", "-o", model)
	if prep, _ := inspectJSON(t, model)["preprocessing"].(map[string]any); prep["fit"] != "crop" {
		t.Errorf("--fit crop not recorded: %v", prep)
	}
	if out := ok(t, "inspect", model); !strings.Contains(out, "centre cropped") {
		t.Errorf("inspect does not show the fit:\n%s", out)
	}
}

// TestColourFitUsesColour: on the hue set (classes that differ in hue
// only, equal grey levels) the default 2DSCN fit read as colour tells the
// hues apart on the test images (>= 95%), and read with --grey it is near
// chance: the colour is really used. The model records its channels.
func TestColourFitUsesColour(t *testing.T) {
	dir := t.TempDir()
	hue := filepath.Join(dir, "hue")
	ok(t, "derive", "hue", "-o", hue, "--hues", "3", "--seed", "1")
	colour, grey := filepath.Join(dir, "colour.scn"), filepath.Join(dir, "grey.scn")
	ok(t, "train", "--model", "2dscn", "--nodes", "200", "-q", "--derived", hue, "-o", colour)
	info := inspectJSON(t, colour)
	if prep, _ := info["preprocessing"].(map[string]any); prep["channels"] != 3.0 {
		t.Errorf("a colour model records %v", info["preprocessing"])
	}
	acc := func(model string) float64 {
		out := ok(t, "eval", model, "--derived", hue)
		var a float64
		for _, line := range strings.Split(out, "\n") {
			if _, err := fmt.Sscanf(line, "accuracy %f%%", &a); err == nil {
				return a
			}
		}
		t.Fatalf("no accuracy in:\n%s", out)
		return 0
	}
	if a := acc(colour); a < 95 {
		t.Errorf("default 2DSCN on the hue set, colour: %.2f%% test accuracy, want >= 95%%", a)
	}
	ok(t, "train", "--model", "2dscn", "--nodes", "200", "-q", "--derived", hue, "--grey", "-o", grey)
	if a := acc(grey); a > 45 {
		t.Errorf("default 2DSCN on the hue set read as grey: %.2f%% test accuracy, want near chance (33%%)", a)
	}
}
