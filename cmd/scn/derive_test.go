package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/scn2d/scn/dataset"
)

// fakeData writes a data folder in the layout of ../shared/data from the
// built-in set (mnist/ with the four IDX files) and small synthetic faces
// (orl_faces/s1 ... s4, ten 24 x 20 PGM files each), so that derive runs
// without the real data.
func fakeData(t *testing.T) string {
	t.Helper()
	train, test, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mnist := filepath.Join(dir, "mnist")
	os.MkdirAll(mnist, 0o755)
	if err := dataset.WriteIDX(filepath.Join(mnist, "train-images-idx3-ubyte.gz"), filepath.Join(mnist, "train-labels-idx1-ubyte.gz"), train); err != nil {
		t.Fatal(err)
	}
	if err := dataset.WriteIDX(filepath.Join(mnist, "t10k-images-idx3-ubyte.gz"), filepath.Join(mnist, "t10k-labels-idx1-ubyte.gz"), test); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	const rows, cols = 24, 20
	for s := 1; s <= 4; s++ {
		face := make([]byte, rows*cols)
		for i := range face {
			face[i] = byte(r.IntN(256))
		}
		sub := filepath.Join(dir, "orl_faces", fmt.Sprintf("s%d", s))
		os.MkdirAll(sub, 0o755)
		for i := 1; i <= 10; i++ {
			img := append([]byte(fmt.Sprintf("P5\n%d %d\n255\n", cols, rows)), face...)
			for j := len(img) - len(face); j < len(img); j++ {
				img[j] = byte(min(255, max(0, int(img[j])+r.IntN(41)-20)))
			}
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("%d.pgm", i)), img, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// sameFiles fails the test unless folders a and b hold the same files
// with the same bytes.
func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(a, "*"))
	others, _ := filepath.Glob(filepath.Join(b, "*"))
	if len(names) != len(others) || len(names) == 0 {
		t.Fatalf("%s holds %d files, %s %d", a, len(names), b, len(others))
	}
	for _, n := range names {
		x, _ := os.ReadFile(n)
		y, err := os.ReadFile(filepath.Join(b, filepath.Base(n)))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between %s and %s (%v)", filepath.Base(n), a, b, err)
		}
	}
}

// rmse reads "RMSE x" from eval's output.
func rmse(t *testing.T, out string) float64 {
	t.Helper()
	m := regexp.MustCompile(`RMSE (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no RMSE in:\n%s", out)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// accuracy reads "accuracy x%" from eval's output, as a fraction.
func accuracy(t *testing.T, out string) float64 {
	t.Helper()
	m := regexp.MustCompile(`accuracy (\S+)%`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no accuracy in:\n%s", out)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v / 100
}

func TestDeriveRotatedAndTrainOnIt(t *testing.T) {
	data := fakeData(t)
	out := t.TempDir()
	p := func(dir, n string) string { return filepath.Join(out, dir, n) }
	said := ok(t, "derive", "rotated", "--data", data, "--train", "300", "--test", "100", "--seed", "3", "-o", p("r1", ""))
	for _, want := range []string{"rotated-mnist, seed 3", "train 300 images of 28 x 28", "test  100 images", "train-targets-idx1-double.gz", "scn train --derived"} {
		if !strings.Contains(said, want) {
			t.Errorf("derive said no %q:\n%s", want, said)
		}
	}
	// Reproducible from the seed, and the seed matters.
	ok(t, "derive", "rotated", "--data", data, "--train", "300", "--test", "100", "--seed", "3", "-o", p("r2", ""))
	sameFiles(t, p("r1", ""), p("r2", ""))
	ok(t, "derive", "rotated", "--data", filepath.Join(data, "mnist"), "--train", "300", "--test", "100", "--seed", "4", "-o", p("r3", ""))
	a, _ := os.ReadFile(p("r1", "train-targets-idx1-double.gz"))
	b, _ := os.ReadFile(p("r3", "train-targets-idx1-double.gz"))
	if bytes.Equal(a, b) {
		t.Error("seeds 3 and 4 gave the same angles")
	}
	d, err := dataset.ReadDerived(p("r1", ""))
	if err != nil {
		t.Fatal(err)
	}
	tr, te := d.Part("train"), d.Part("test")
	if tr.Len() != 300 || te.Len() != 100 || tr.TargetDim != 1 || tr.Labels == nil || len(tr.Origin) != 300 {
		t.Fatalf("derived set: %d + %d images, target dim %d", tr.Len(), te.Len(), tr.TargetDim)
	}
	for _, a := range append(tr.Targets, te.Targets...) {
		if a < -45 || a > 45 {
			t.Fatalf("angle %v outside [-45, 45]", a)
		}
	}

	// The float64 target files are what --idx-targets reads; --derived
	// reads the same set.
	model := p("", "angle.scn")
	said = ok(t, "train", "--model", "2drvfl", "--nodes", "60", "-q", "--validation", "0", "--idx-images", p("r1", "train-images-idx3-ubyte.gz"),
		"--idx-targets", p("r1", "train-targets-idx1-double.gz"), "-o", model)
	if !strings.Contains(said, "2DRVFL: 60 nodes") || strings.Contains(said, "note") {
		t.Fatalf("train said:\n%s", said)
	}
	viaFiles := ok(t, "eval", model, "--idx-images", p("r1", "test-images-idx3-ubyte.gz"), "--idx-targets", p("r1", "test-targets-idx1-double.gz"))
	viaDerived := ok(t, "eval", model, "--derived", p("r1", ""))
	if viaFiles != viaDerived || !strings.Contains(viaDerived, "on 100 images") || !(rmse(t, viaDerived) < 45) {
		t.Errorf("eval on the IDX files:\n%s\neval --derived:\n%s", viaFiles, viaDerived)
	}
	again := p("", "again.scn")
	ok(t, "train", "--model", "2drvfl", "--nodes", "60", "-q", "--derived", p("r1", ""), "-o", again)
	if info := inspectJSON(t, again); info["samples"] != 300.0 || info["outputs"] != 1.0 ||
		!strings.Contains(fmt.Sprint(info["meta"]), "rotated-mnist, seed 3") {
		t.Errorf("model trained on --derived: %v", info)
	}
	said = ok(t, "compare", "--derived", p("r1", ""), "--models", "2drvfl", "--trials", "1", "--nodes", "10", "-q")
	if !strings.Contains(said, "train part") || !strings.Contains(said, "test part") || !strings.Contains(said, "2DRVFL") {
		t.Errorf("compare --derived said:\n%s", said)
	}

	// Writing another set over it leaves no file of the old one.
	ok(t, "derive", "faces", "--data", data, "-o", p("r3", ""))
	if _, err := os.Stat(p("r3", "train-targets-idx1-double.gz")); err == nil {
		t.Error("the rotated set's targets are still there after writing the faces set over it")
	}
	if _, err := dataset.ReadDerived(p("r3", "")); err != nil {
		t.Error(err)
	}
}

func TestDeriveFacesAndOccluded(t *testing.T) {
	data := fakeData(t)
	out := t.TempDir()
	faces, occ := filepath.Join(out, "faces"), filepath.Join(out, "occ")
	ok(t, "derive", "faces", "--data", data, "--seed", "2", "-o", faces)
	said := ok(t, "derive", "occluded", "--data", filepath.Join(data, "orl_faces"), "--seed", "2", "--images", "6", "--block", "8", "-o", occ)
	if !strings.Contains(said, "6 training images occluded") {
		t.Errorf("derive occluded said:\n%s", said)
	}
	f, err := dataset.ReadDerived(faces)
	if err != nil {
		t.Fatal(err)
	}
	o, err := dataset.ReadDerived(occ)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(o.Manifest.Occlusions); n != 6 || o.Manifest.Occlusions[0].Size != 8 {
		t.Fatalf("manifest lists %d occlusions: %v", n, o.Manifest.Occlusions)
	}
	// The same split: the same test images, and training images that
	// differ only where the manifest puts a block.
	ft, ot := f.Part("train"), o.Part("train")
	if ft.Len() != 20 || !bytes.Equal(f32bytes(f.Part("test").Pix), f32bytes(o.Part("test").Pix)) || fmt.Sprint(ft.Origin) != fmt.Sprint(ot.Origin) {
		t.Fatal("faces and occluded sets of one seed have different splits")
	}
	blocked := map[int]bool{}
	for _, b := range o.Manifest.Occlusions {
		blocked[b.Image] = true
	}
	for i := 0; i < ft.Len(); i++ {
		if same := bytes.Equal(f32bytes(ft.Image(i)), f32bytes(ot.Image(i))); same == blocked[i] {
			t.Errorf("training image %d: unchanged %v, occluded %v", i, same, blocked[i])
		}
	}
	if !strings.Contains(strings.Join(o.Manifest.Sources, "\n"), dataset.OccluderSource) {
		t.Error("the manifest does not name the occluder")
	}
	readme, _ := os.ReadFile(filepath.Join(occ, "README.md"))
	if !strings.Contains(string(readme), "BSD") || !strings.Contains(string(readme), "Olivetti") {
		t.Errorf("README lacks the terms:\n%s", readme)
	}

	model := filepath.Join(out, "faces.scn")
	ok(t, "train", "--model", "2dscn", "--nodes", "15", "-q", "--derived", occ, "-o", model)
	said = ok(t, "eval", model, "--derived", occ)
	if !strings.Contains(said, "on 20 images") || accuracy(t, said) < 0.5 {
		t.Errorf("eval --derived of the occluded faces:\n%s", said)
	}
	// Class names come with --derived; the IDX label file works too.
	if info := inspectJSON(t, model); fmt.Sprint(info["classes"]) != "[s1 s2 s3 s4]" {
		t.Errorf("classes %v", info["classes"])
	}
	ok(t, "train", "--model", "2drvfl", "--nodes", "15", "-q", "--idx-images", filepath.Join(occ, "train-images-idx3-ubyte.gz"),
		"--idx-labels", filepath.Join(occ, "train-labels-idx1-ubyte.gz"), "-o", model)
}

func f32bytes(v []float32) []byte { return []byte(fmt.Sprint(v)) }

func TestDeriveBadInput(t *testing.T) {
	data := fakeData(t)
	out := t.TempDir()
	cases := []struct {
		code int
		args []string
	}{
		{exitUsage, []string{"derive"}},
		{exitUsage, []string{"derive", "mnist"}},
		{exitUsage, []string{"derive", "rotated", "extra"}},
		{exitUsage, []string{"derive", "rotated", "--data", data, "--train", "0", "-o", out}},
		{exitUsage, []string{"derive", "faces", "--data", data, "--per-subject", "0", "-o", out}},
		{exitUsage, []string{"derive", "occluded", "--data", data, "--block", "0", "-o", out}},
		{exitUsage, []string{"derive", "occluded", "--data", data, "--images", "-1", "-o", out}},
		{exitUsage, []string{"derive", "faces", "--images", "3"}}, // faces has no occlusion
		{exitError, []string{"derive", "rotated", "--data", filepath.Join(out, "missing"), "-o", out}},
		{exitError, []string{"derive", "faces", "--data", filepath.Join(data, "mnist"), "-o", out}},
		{exitError, []string{"derive", "rotated", "--data", data, "--train", "3001", "-o", out}},
		{exitError, []string{"derive", "faces", "--data", data, "--per-subject", "11", "-o", out}},
		{exitError, []string{"derive", "occluded", "--data", data, "--images", "21", "-o", out}},
		{exitError, []string{"derive", "occluded", "--data", data, "--block", "21", "-o", out}},
		{exitError, []string{"train", "--derived", filepath.Join(out, "missing"), "-q"}},
		{exitUsage, []string{"train", "--derived", out, "--csv", "x.csv", "-q"}},
		{exitUsage, []string{"compare", "--test-derived", out, "-q"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			said, code := failsCode(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d: %s", code, c.code, said)
			}
			t.Log(said)
		})
	}
}

// realData locates ../shared/data beside the repository (or $SCN_DATA),
// skipping the test when it lacks what the test needs.
func realData(t *testing.T, need ...string) string {
	t.Helper()
	dir := os.Getenv("SCN_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "data")
	}
	for _, n := range need {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Skipf("integration test: %s is absent (set SCN_DATA to the data folder)", filepath.Join(dir, n))
		}
	}
	return dir
}

// TestDeriveRealData derives the paper's sets with their default sizes
// from the real MNIST and ORL files and learns from them.
func TestDeriveRealData(t *testing.T) {
	data := realData(t, "mnist", "orl_faces")
	out := t.TempDir()
	rot, occ := filepath.Join(out, "rot"), filepath.Join(out, "occ")
	said := ok(t, "derive", "rotated", "--data", data, "-o", rot)
	if !strings.Contains(said, "train 5000 images of 28 x 28") || !strings.Contains(said, "test  5000 images of 28 x 28") {
		t.Fatalf("derive rotated said:\n%s", said)
	}
	man, _ := os.ReadFile(filepath.Join(rot, "manifest.json"))
	if !strings.Contains(string(man), "LeCun") || strings.Contains(string(man), data) {
		t.Errorf("manifest: want MNIST's authors and no local path:\n%s", man)
	}
	model := filepath.Join(out, "angle.scn")
	ok(t, "train", "--model", "2drvfl", "--nodes", "200", "-q", "--idx-images", filepath.Join(rot, "train-images-idx3-ubyte.gz"),
		"--idx-targets", filepath.Join(rot, "train-targets-idx1-double.gz"), "-o", model)
	// Predicting 0 for every angle uniform in [-45, 45] gives RMSE 26.
	if e := rmse(t, ok(t, "eval", model, "--derived", rot)); !(e < 20) {
		t.Errorf("test RMSE %.3g degrees on the rotated digits", e)
	}

	said = ok(t, "derive", "occluded", "--data", data, "-o", occ)
	if !strings.Contains(said, "train 200 images of 112 x 92") || !strings.Contains(said, "50 training images occluded") {
		t.Fatalf("derive occluded said:\n%s", said)
	}
	d, err := dataset.ReadDerived(occ)
	if err != nil {
		t.Fatal(err)
	}
	if o := d.Manifest.Occlusions; len(o) != 50 || o[0].Size != 40 {
		t.Errorf("occlusions: %v", o)
	}
	model = filepath.Join(out, "faces.scn")
	ok(t, "train", "--model", "2dscn", "--nodes", "100", "-q", "--derived", occ, "-o", model)
	// Chance is 2.5%.
	if a := accuracy(t, ok(t, "eval", model, "--derived", occ)); !(a > 0.2) {
		t.Errorf("test accuracy %.3f on the occluded faces", a)
	}
}
