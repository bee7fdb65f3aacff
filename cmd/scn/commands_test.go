package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scn2d/scn/dataset"
)

// regressionFiles writes IDX images and float targets of rotated digits
// (the E1 task) and a few of the test images as PNG files.
func regressionFiles(t *testing.T) (dir string, test *dataset.Set) {
	t.Helper()
	tr, te, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	train, test, err := dataset.RotatedDigits(tr, te, 400, 100, 7)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	for _, f := range []struct {
		name string
		s    *dataset.Set
	}{{"train", train}, {"test", test}} {
		if err := dataset.WriteIDX(filepath.Join(dir, f.name+"-images"), filepath.Join(dir, f.name+"-labels"), f.s); err != nil {
			t.Fatal(err)
		}
		if err := dataset.WriteIDXTargets(filepath.Join(dir, f.name+"-angles"), f.s); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 3; i++ {
		writePNG(t, filepath.Join(dir, "png", fmt.Sprintf("r%d.png", i)), test.Image(i), test.Rows, test.Cols)
	}
	return dir, test
}

func TestRegressionTrainEvalPredictCompare(t *testing.T) {
	dir, _ := regressionFiles(t)
	p := func(n string) string { return filepath.Join(dir, n) }
	model := p("angle.scn")
	out := ok(t, "train", "--model", "2drvfl", "--nodes", "150", "-q", "--validation", "0",
		"--idx-images", p("train-images"), "--idx-targets", p("train-angles"), "-o", model)
	if !strings.Contains(out, "2DRVFL: 150 nodes") {
		t.Fatalf("train said:\n%s", out)
	}
	out = ok(t, "inspect", model)
	if !strings.Contains(out, "1 outputs") || strings.Contains(out, "classes") {
		t.Errorf("inspect of a regression model:\n%s", out)
	}
	// eval: RMSE and PPA at the thresholds asked for.
	out = ok(t, "eval", model, "--idx-images", p("test-images"), "--idx-targets", p("test-angles"), "--ppa", "5,15,45")
	for _, want := range []string{"RMSE", "PPA(5)", "PPA(15)", "PPA(45)"} {
		if !strings.Contains(out, want) {
			t.Errorf("eval lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "PPA(25)") {
		t.Errorf("eval shows a threshold not asked for:\n%s", out)
	}
	out = ok(t, "eval", model, "--idx-images", p("test-images"), "--idx-targets", p("test-angles"), "--ppa", "5,15,45", "--json")
	var ev evaluation
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out)
	}
	if ev.RMSE == nil || !(*ev.RMSE > 0 && *ev.RMSE < 45) || ev.Accuracy != nil || ev.Images != 100 {
		t.Errorf("eval --json: %+v", ev)
	}
	// PPA grows with the threshold; every angle is within 45 of a
	// prediction that is any good.
	if !(ev.PPA["5"] <= ev.PPA["15"] && ev.PPA["15"] <= ev.PPA["45"]) || ev.PPA["45"] < 0.8 {
		t.Errorf("PPA not increasing with the threshold: %v", ev.PPA)
	}
	// predict on PNG files: one real output per image.
	pngs, _ := filepath.Glob(p("png/*.png"))
	out = ok(t, append([]string{"predict", model}, pngs...)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(pngs) {
		t.Fatalf("predict said:\n%s", out)
	}
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if v, err := strconv.ParseFloat(f[len(f)-1], 64); err != nil || v < -90 || v > 90 {
			t.Errorf("predict line %q: not an angle", l)
		}
	}
	// A classification data set for a regression model is refused.
	fails(t, "eval", model, "--idx-images", p("test-images"), "--idx-labels", p("test-labels"))
	// compare on a regression pair: RMSE and PPA columns for every learner.
	out = ok(t, "compare", "--trials", "2", "--nodes", "30", "-q",
		"--idx-images", p("train-images"), "--idx-targets", p("train-angles"),
		"--test-idx-images", p("test-images"), "--test-idx-targets", p("test-angles"))
	for _, want := range []string{"test RMSE", "test PPA15 (%)", "test PPA25 (%)", "fit time (s)", "bytes", "2DSCN", "SCN", "2DRVFL", "RVFL"} {
		if !strings.Contains(out, want) {
			t.Errorf("regression compare lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "acc") {
		t.Errorf("regression compare shows accuracy:\n%s", out)
	}
}

func TestEvalConfusionMatrix(t *testing.T) {
	dir, _, test := files(t)
	model := filepath.Join(dir, "m.scn")
	ok(t, "train", "--model", "rvfl", "--nodes", "60", "-q",
		"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz"), "-o", model)
	out := ok(t, "eval", model, "--idx-images", filepath.Join(dir, "test-images"), "--idx-labels", filepath.Join(dir, "test-labels"), "--json")
	var ev evaluation
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatal(err)
	}
	if len(ev.Confusion) != 10 || len(ev.Classes) != 10 {
		t.Fatalf("confusion matrix %d x ?, classes %v", len(ev.Confusion), ev.Classes)
	}
	total, diag := 0, 0
	for i, row := range ev.Confusion {
		truth := 0
		for j, v := range row {
			total += v
			truth += v
			if i == j {
				diag += v
			}
		}
		// Row sums are the class counts of the test set.
		if want := test.ClassCounts()[i]; truth != want {
			t.Errorf("row %d sums to %d, the test set has %d images of class %s", i, truth, want, ev.Classes[i])
		}
		if truth > 0 && ev.PerClass[ev.Classes[i]] != float64(row[i])/float64(truth) {
			t.Errorf("per-class accuracy of %s: %v", ev.Classes[i], ev.PerClass[ev.Classes[i]])
		}
	}
	if total != test.Len() || *ev.Accuracy != float64(diag)/float64(total) {
		t.Errorf("confusion total %d (want %d), accuracy %v vs diagonal %d", total, test.Len(), *ev.Accuracy, diag)
	}
	// The text form shows the same matrix.
	out = ok(t, "eval", model, "--idx-images", filepath.Join(dir, "test-images"), "--idx-labels", filepath.Join(dir, "test-labels"))
	if !strings.Contains(out, "confusion matrix (rows: true class, columns: predicted)") || !strings.Contains(out, "per class:") {
		t.Fatalf("eval said:\n%s", out)
	}
	// Predict on PNG files prints the class and its top scores (a
	// calibrated model, as model selection makes by default: its top
	// probabilities, to 4 decimals).
	pngs, _ := filepath.Glob(filepath.Join(dir, "folder", "*", "*.png"))
	out = ok(t, "predict", "--top", "2", model, pngs[0])
	f := strings.Split(strings.TrimSpace(out), "\t")
	if len(f) != 4 || !regexp.MustCompile(`^\d=-?\d+\.\d{3,4}$`).MatchString(f[2]) || !strings.HasPrefix(f[2], f[1]+"=") {
		t.Errorf("predict --top 2 said %q", out)
	}
}

// inspectJSON runs inspect --json on a model.
func inspectJSON(t *testing.T, model string) map[string]any {
	t.Helper()
	var info map[string]any
	if err := json.Unmarshal([]byte(ok(t, "inspect", "--json", model)), &info); err != nil {
		t.Fatal(err)
	}
	return info
}

func TestPresetRecordsDepartures(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		flags  []string
		preset string
	}{
		{nil, "paper"},
		{[]string{"--nodes", "7", "--seed", "9"}, "paper"}, // L_max and the seed are per run
		{[]string{"--candidates", "5", "--activation", "sigmoid", "--ridge", "0"}, "paper"},
		{[]string{"--candidates", "3"}, "custom"},
		{[]string{"--tolerance", "0.05"}, "custom"},
		{[]string{"--activation", "tanh"}, "custom"},
		{[]string{"--ridge", "0.01"}, "custom"},
		{[]string{"--scales", "1,5"}, "custom"},
		{[]string{"--ratios", "0.9,0.99"}, "custom"},
		{[]string{"--scales", "1,5,15,30,50,100,150,200,250"}, "paper"},
	}
	for i, c := range cases {
		model := filepath.Join(dir, fmt.Sprintf("m%d.scn", i))
		args := append([]string{"train", "--model", "scn", "--nodes", "5", "-q", "--preset", "paper", "-o", model}, c.flags...)
		ok(t, args...)
		info := inspectJSON(t, model)
		if info["preset"] != c.preset {
			t.Errorf("%v: preset %v, want %s", c.flags, info["preset"], c.preset)
		}
		out := ok(t, "inspect", model)
		if !strings.Contains(out, "preset  "+c.preset+",") && !strings.Contains(out, "preset      "+c.preset+",") {
			if !regexp.MustCompile(`preset\s+` + c.preset + `,`).MatchString(out) {
				t.Errorf("%v: inspect does not say preset %s:\n%s", c.flags, c.preset, out)
			}
		}
	}
	// The recorded values are the ones asked for.
	info := inspectJSON(t, filepath.Join(dir, "m6.scn"))
	if info["ridge"] != 0.01 || info["activation"] != "sigmoid" {
		t.Errorf("ridge model: %v %v", info["ridge"], info["activation"])
	}
	info = inspectJSON(t, filepath.Join(dir, "m5.scn"))
	if info["activation"] != "tanh" {
		t.Errorf("tanh model records %v", info["activation"])
	}
}

func TestTrainFromFolderAndCSV(t *testing.T) {
	dir, train, test := files(t)
	// A CSV file: label, then 0-255 pixels, with a header line.
	var b strings.Builder
	b.WriteString("label")
	for i := 0; i < 784; i++ {
		fmt.Fprintf(&b, ",p%d", i)
	}
	b.WriteString("\n")
	for i := 0; i < 200; i++ {
		b.WriteString(strconv.Itoa(train.Labels[i]))
		for _, v := range train.Image(i) {
			fmt.Fprintf(&b, ",%d", int(v*255+0.5))
		}
		b.WriteString("\n")
	}
	csvPath := filepath.Join(dir, "train.csv")
	os.WriteFile(csvPath, []byte(b.String()), 0o644)
	model := filepath.Join(dir, "csv.scn")
	out := ok(t, "train", "--model", "2dscn", "--nodes", "30", "-q", "--grow=false", "--csv", csvPath, "-o", model)
	if !strings.Contains(out, "2DSCN: ") || !strings.Contains(out, "of 30 fitted nodes") {
		t.Fatalf("train --csv said:\n%s", out)
	}
	if info := inspectJSON(t, model); info["samples"] != 200.0 || info["rows"] != 28.0 {
		t.Errorf("csv model: %v samples, %v rows", info["samples"], info["rows"])
	}
	// A folder of class subfolders, with preprocessing that is recorded and
	// applied again by eval and predict: resize to 14 x 14.
	model = filepath.Join(dir, "folder.scn")
	ok(t, "train", "--model", "2dscn", "--nodes", "20", "-q", "--folder", filepath.Join(dir, "folder"), "--resize", "14x14", "-o", model)
	info := inspectJSON(t, model)
	if prep, _ := info["preprocessing"].(map[string]any); info["rows"] != 14.0 || info["cols"] != 14.0 || prep["resize_rows"] != 14.0 || prep["resize_cols"] != 14.0 {
		t.Errorf("folder model: %v x %v, preprocessing %v", info["rows"], info["cols"], info["preprocessing"])
	}
	if out := ok(t, "inspect", model); !strings.Contains(out, "resize to 14 x 14") {
		t.Errorf("inspect does not show the preprocessing:\n%s", out)
	}
	out = ok(t, "eval", model, "--idx-images", filepath.Join(dir, "test-images"), "--idx-labels", filepath.Join(dir, "test-labels"))
	if !strings.Contains(out, fmt.Sprintf("on %d images", test.Len())) {
		t.Errorf("eval of a 14 x 14 model on 28 x 28 files:\n%s", out)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "folder", "*", "*.png"))
	ok(t, "predict", model, pngs[0])
}

func TestBenchTakesOnlyTheFlagsItHonours(t *testing.T) {
	for _, flag := range []string{"--ridge", "--candidates", "--tolerance", "--activation", "--scales", "--ratios", "--preset"} {
		out, code := run(t, "bench", flag, "1")
		if code != exitUsage || !strings.Contains(out, "unknown flag: "+flag) {
			t.Errorf("bench %s 1: exit %d\n%s", flag, code, out)
		}
	}
	out := ok(t, "bench", "--help")
	for _, want := range []string{"--model", "--nodes", "--seed"} {
		if !strings.Contains(out, want) {
			t.Errorf("bench --help lacks %s", want)
		}
	}
	out = ok(t, "bench", "--model", "rvfl", "--nodes", "10", "--n", "200", "--ref-nodes", "0")
	if !strings.Contains(out, "N=200, 28x28, L=10") {
		t.Errorf("bench said:\n%s", out)
	}
}

// interrupt starts the binary, sends it SIGINT after the delay, and
// returns its output and exit status.
func interrupt(t *testing.T, delay time.Duration, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(delay)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	return out.String(), exitCode(t, err)
}

func TestCtrlC(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.scn")
	// Without --save-partial: a one-line message, status 130, no file. (The
	// paper preset adds one node at a time: a fit of 3000 nodes takes
	// minutes, where the default preset's blocks may end before the signal.)
	out, code := interrupt(t, 1500*time.Millisecond, "train", "--model", "scn", "--preset", "paper", "--nodes", "3000", "-q", "-o", model)
	if code != exitInterrupted || strings.TrimSpace(out) != "scn: interrupted; nothing saved (--save-partial keeps the nodes built so far)" {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(model); err == nil {
		t.Error("an interrupted train without --save-partial wrote a model")
	}
	// With --save-partial: the nodes so far are saved and usable. (On a
	// loaded machine the first signal may come before the first node:
	// then nothing is saved; try again with a longer delay.)
	for _, delay := range []time.Duration{1500 * time.Millisecond, 5 * time.Second, 15 * time.Second} {
		out, code = interrupt(t, delay, "train", "--model", "scn", "--preset", "paper", "--nodes", "3000", "-q", "--save-partial", "-o", model)
		if code != exitInterrupted || strings.TrimSpace(out) != "scn: interrupted; no node was built, nothing saved" {
			break
		}
		t.Logf("interrupted after %v before the first node", delay)
	}
	// Interrupted all the same: status 130, the message says what was saved.
	if code != exitInterrupted || !strings.Contains(out, "(cancelled)") || !strings.Contains(out, "scn: interrupted; saved the ") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	info := inspectJSON(t, model)
	if info["stop"] != "cancelled" || !(info["nodes"].(float64) >= 1 && info["nodes"].(float64) < 3000) {
		t.Errorf("partial model: stop %v, %v nodes", info["stop"], info["nodes"])
	}
	ok(t, "eval", model)
	// compare stops too.
	out, code = interrupt(t, 1500*time.Millisecond, "compare", "--nodes", "3000", "--trials", "1", "-q")
	if code != exitInterrupted || strings.TrimSpace(out) == "" || !strings.HasSuffix(strings.TrimSpace(out), "scn: interrupted") {
		t.Errorf("compare: exit %d:\n%s", code, out)
	}
}

// TestBadInputExitStatus checks the exit status of each kind of bad flag,
// argument and file: 2 for a bad command line, 1 for an error.
func TestBadInputExitStatus(t *testing.T) {
	dir, _, _ := files(t)
	p := func(n string) string { return filepath.Join(dir, n) }
	model := p("m.scn")
	ok(t, "train", "--nodes", "10", "-q", "--idx-images", p("train-images.gz"), "--idx-labels", p("train-labels.gz"), "-o", model)
	notImage := p("notimage.png")
	os.WriteFile(notImage, []byte("this is text"), 0o644)
	small := p("small.png")
	writePNG(t, small, make([]float32, 10*12), 10, 12)
	badCSV := p("bad.csv")
	os.WriteFile(badCSV, []byte("1,0.5,0.5\n2,x,0.1\n"), 0o644)
	cases := []struct {
		code int
		args []string
	}{
		{exitUsage, []string{"train", "--activation", "softmax", "-q"}},
		{exitUsage, []string{"train", "--preset", "slow", "-q"}},
		{exitUsage, []string{"train", "--preset", "paper", "--validation", "0.2", "-q"}},
		{exitUsage, []string{"train", "--validation", "1", "-q"}},
		{exitUsage, []string{"train", "--validation", "0", "--patience", "3", "-q"}},
		{exitUsage, []string{"train", "--ridges", "1,-1", "-q"}},
		{exitUsage, []string{"train", "--candidates", "-1", "-q"}},
		{exitUsage, []string{"train", "--candidates", "65536", "-q"}}, // x blocks of 100
		{exitUsage, []string{"train", "--differences", "--standardize=false", "-q"}},
		{exitUsage, []string{"train", "--tolerance", "-1", "-q"}},
		{exitUsage, []string{"train", "--ridge", "-1", "-q"}},
		{exitUsage, []string{"train", "--invert", "maybe", "-q"}},
		{exitUsage, []string{"train", "--scales", "1,,5", "-q"}},
		{exitUsage, []string{"train", "--nodes", "x"}},
		{exitUsage, []string{"train", "extra-arg"}},
		{exitUsage, []string{"train", "--idx-images", p("train-images.gz"), "-q"}},
		{exitUsage, []string{"train", "--idx-labels", p("train-labels.gz"), "-q"}},
		{exitUsage, []string{"train", "--idx-images", p("train-images.gz"), "--csv", badCSV, "-q"}},
		{exitError, []string{"train", "--csv", badCSV, "-q"}},
		{exitError, []string{"train", "--csv", p("missing.csv"), "-q"}},
		{exitError, []string{"train", "--folder", p("missing"), "-q"}},
		{exitError, []string{"train", "-q", "-o", p("no/such/dir/m.scn"), "--nodes", "3"}},
		{exitError, []string{"train", "--idx-images", p("train-labels.gz"), "--idx-labels", p("train-labels.gz"), "-q"}},
		{exitError, []string{"eval", p("missing.scn")}},
		{exitUsage, []string{"eval", model, "--ppa", "a,b"}},
		{exitError, []string{"eval", model, "--idx-images", p("test-images"), "--idx-targets", p("test-labels")}},
		{exitError, []string{"predict", model, p("missing.png")}},
		{exitError, []string{"predict", model, notImage}},
		{exitError, []string{"predict", model, small}},
		{exitUsage, []string{"predict", model}},
		{exitUsage, []string{"compare", "--models", "2dscn,cnn"}},
		{exitUsage, []string{"compare", "--models", ""}},
		{exitUsage, []string{"compare", "--trials", "0"}},
		{exitUsage, []string{"compare", "--trials", "-2"}},
		{exitError, []string{"compare", "--idx-images", p("train-images.gz"), "--idx-labels", p("train-labels.gz"),
			"--test-idx-images", p("missing"), "--test-idx-labels", p("test-labels")}},
		{exitUsage, []string{"experiment"}},
		{exitUsage, []string{"experiment", "e1", "--trials", "-1", "--data", dir, "-q"}},
		{exitUsage, []string{"experiment", "e99", "e1", "--data", dir, "-q"}},
		{exitError, []string{"experiment", "faces", "--data", p("missing"), "--out", p("out"), "-q"}},
		{exitError, []string{"experiment", "faces", "--data", dir, "--out", p("out"), "-q"}},
		{exitUsage, []string{"train", "--folder", p("folder"), "--idx-labels", p("train-labels.gz"), "-q"}},
		{exitUsage, []string{"train", "--rows", "28", "-q"}},
		{exitUsage, []string{"eval", model, "--idx-images", p("test-images"), "--idx-labels", p("test-labels"), "--cols", "28"}},
		{exitUsage, []string{"compare", "--model", "rvfl"}}, // the learners are --models
		{exitUsage, []string{"compare", "--test-idx-labels", p("test-labels")}},
		{exitUsage, []string{"nonsense-command"}},
		{exitUsage, []string{"version", "extra"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out, code := failsCode(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d: %s", code, c.code, out)
			}
			t.Log(out)
		})
	}
}

// TestSmallSetsSelectByFolds: with no selection flags, a small training set
// (300 images here) is selected by 5-fold cross-validation; --validation or
// --folds given explicitly are kept.
func TestSmallSetsSelectByFolds(t *testing.T) {
	dir, _, _ := files(t)
	data := []string{"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz")}
	model := filepath.Join(dir, "m.scn")
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{nil, "on 5-fold cross-validation over 300 images"},
		{[]string{"--validation", "0.2"}, "held-out images"}, // about 60, stratified
		{[]string{"--folds", "3"}, "on 3-fold cross-validation over 300 images"},
	} {
		args := append(append([]string{"train", "--model", "2drvfl", "--nodes", "60", "-q", "-o", model}, data...), c.flags...)
		if out := ok(t, args...); !strings.Contains(out, c.want) {
			t.Errorf("train %v said:\n%s\nwant %q", c.flags, out, c.want)
		}
	}
	// The folder's smallest class has 2 images: as many folds as that
	// (5 folds would need 5 per class).
	out := ok(t, "train", "--model", "2drvfl", "--nodes", "20", "-q", "-o", model, "--folder", filepath.Join(dir, "folder"))
	if !strings.Contains(out, "on 2-fold cross-validation") {
		t.Errorf("train --folder said:\n%s\nwant 2 folds (a class has 2 images)", out)
	}
}
