package main

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scn2d/scn/dataset"
)

// End-to-end tests: the scn binary is built once and run on small real
// files made from the built-in data set.

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "scn-e2e")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "scn")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs the binary and returns its output and exit status.
func run(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), exitCode(t, err)
}

// ok runs the binary and fails the test unless it succeeds.
func ok(t *testing.T, args ...string) string {
	t.Helper()
	out, code := run(t, args...)
	if code != 0 {
		t.Fatalf("scn %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// fails runs the binary and checks it fails with a one-line scn: error.
func fails(t *testing.T, args ...string) string {
	t.Helper()
	out, _ := failsCode(t, args...)
	return out
}

// failsCode is fails that also returns the exit status.
func failsCode(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, code := run(t, args...)
	if code == 0 {
		t.Fatalf("scn %s succeeded:\n%s", strings.Join(args, " "), out)
	}
	if !strings.HasPrefix(out, "scn: ") || strings.Count(strings.TrimSpace(out), "\n") > 0 ||
		strings.Contains(out, "panic") || strings.Contains(out, "goroutine") {
		t.Fatalf("scn %s: want a one-line error, got:\n%s", strings.Join(args, " "), out)
	}
	return out, code
}

// files writes a small IDX pair and a PNG class folder from the built-in set.
func files(t *testing.T) (dir string, train, test *dataset.Set) {
	t.Helper()
	tr, te, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	pick := func(s *dataset.Set, n int) *dataset.Set {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i * (s.Len() / n)
		}
		return s.Subset(idx)
	}
	train, test = pick(tr, 300), pick(te, 100)
	dir = t.TempDir()
	if err := dataset.WriteIDX(filepath.Join(dir, "train-images.gz"), filepath.Join(dir, "train-labels.gz"), train); err != nil {
		t.Fatal(err)
	}
	if err := dataset.WriteIDX(filepath.Join(dir, "test-images"), filepath.Join(dir, "test-labels"), test); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		class := test.Classes[test.Labels[i]]
		writePNG(t, filepath.Join(dir, "folder", class, strings.Repeat("0", 3)+string(rune('a'+i%26))+class+".png"), test.Image(i), test.Rows, test.Cols)
	}
	return dir, train, test
}

func writePNG(t *testing.T, path string, pix []float32, rows, cols int) {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, cols, rows))
	for i, v := range pix {
		img.Pix[i] = uint8(v*255 + 0.5)
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

func TestTrainInspectEvalPredict(t *testing.T) {
	dir, _, _ := files(t)
	model := filepath.Join(dir, "m.scn")
	out := ok(t, "train", "--model", "2dscn", "--nodes", "40", "--seed", "3", "--quiet", "--preset", "paper",
		"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz"), "-o", model)
	if !strings.Contains(out, "2DSCN: 40 nodes") || !strings.Contains(out, "saved") {
		t.Fatalf("train said:\n%s", out)
	}
	out = ok(t, "inspect", model)
	for _, want := range []string{"2DSCN: 28 x 28 input, 10 outputs, 40 nodes", "seed 3", "preprocess"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q:\n%s", want, out)
		}
	}
	out = ok(t, "eval", model, "--idx-images", filepath.Join(dir, "test-images"), "--idx-labels", filepath.Join(dir, "test-labels"))
	if !strings.Contains(out, "accuracy") || !strings.Contains(out, "confusion matrix") {
		t.Fatalf("eval said:\n%s", out)
	}
	out = ok(t, "eval", model, "--folder", filepath.Join(dir, "folder"), "--json")
	if !strings.Contains(out, `"accuracy"`) {
		t.Fatalf("eval --json said:\n%s", out)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "folder", "*", "*.png"))
	out = ok(t, append([]string{"predict", model}, pngs[:3]...)...)
	if strings.Count(out, ".png") != 3 {
		t.Fatalf("predict said:\n%s", out)
	}
	// The same seed gives the same file.
	again := filepath.Join(dir, "again.scn")
	ok(t, "train", "--model", "2dscn", "--nodes", "40", "--seed", "3", "-q", "--preset", "paper",
		"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz"), "-o", again)
	a, _ := os.ReadFile(model)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Error("two trainings with the same seed gave different files")
	}
}

func TestCompareAndVersion(t *testing.T) {
	dir, _, _ := files(t)
	out := ok(t, "compare", "--trials", "1", "--nodes", "20", "-q",
		"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz"),
		"--test-idx-images", filepath.Join(dir, "test-images"), "--test-idx-labels", filepath.Join(dir, "test-labels"))
	for _, k := range []string{"2DSCN", "SCN", "2DRVFL", "RVFL"} {
		if !strings.Contains(out, k) {
			t.Errorf("compare table lacks %s:\n%s", k, out)
		}
	}
	if out := ok(t, "version"); !strings.Contains(out, "linear algebra") {
		t.Errorf("version said %q", out)
	}
}

func TestBadInputGivesOneLineErrors(t *testing.T) {
	dir, _, _ := files(t)
	imgs, labels := filepath.Join(dir, "train-images.gz"), filepath.Join(dir, "train-labels.gz")
	corrupt := filepath.Join(dir, "corrupt.scn")
	os.WriteFile(corrupt, []byte("2DSCNMDL garbage"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	cases := [][]string{
		{"train", "--model", "cnn", "-q"},
		{"train", "--nodes", "0", "-q"},
		{"train", "--scales", "1,x", "-q"},
		{"train", "--ratios", "0.9,1.5", "-q"},
		{"train", "--idx-images", filepath.Join(dir, "missing"), "--idx-labels", labels, "-q"},
		{"train", "--idx-images", imgs, "--idx-labels", filepath.Join(dir, "test-labels"), "-q"},
		{"train", "--folder", empty, "-q"},
		{"train", "--resize", "big", "-q"},
		{"train", "--nonsense"},
		{"inspect", corrupt},
		{"inspect", filepath.Join(dir, "missing.scn")},
		{"eval", corrupt},
		{"predict", corrupt, "x.png"},
		{"inspect"},
		{"experiment", "e99", "--data", dir},
		{"compare", "--idx-images", imgs, "--idx-labels", labels},
	}
	for _, c := range cases {
		t.Run(strings.Join(c, " "), func(t *testing.T) { t.Log(fails(t, c...)) })
	}
}

// exitCode is the exit status a finished run of the binary reported (0 on
// success); any failure to run it at all ends the test.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}
