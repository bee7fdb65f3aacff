package main

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCalibrateCommands: train --calibrate (5-fold selection on the small
// set, and the fast preset's hold-out), then predict gives probabilities
// and "unsure" under --reject-below, eval the probability scores and an
// HTML report with SVG, inspect the map; --class-weight balanced is
// recorded.
func TestCalibrateCommands(t *testing.T) {
	dir, _, _ := files(t)
	data := []string{"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz")}
	test := []string{"--idx-images", filepath.Join(dir, "test-images"), "--idx-labels", filepath.Join(dir, "test-labels")}
	model := filepath.Join(dir, "c.scn")
	out := ok(t, append([]string{"train", "--calibrate", "--nodes", "60", "-q", "-o", model}, data...)...)
	if !strings.Contains(out, "calibration: ") || !strings.Contains(out, "on 300 held-out images") {
		t.Fatalf("train --calibrate said:\n%s", out)
	}
	fast := filepath.Join(dir, "f.scn")
	out = ok(t, append([]string{"train", "--calibrate", "--preset", "fast", "--nodes", "100", "--class-weight", "balanced", "-q", "-o", fast}, data...)...)
	if !strings.Contains(out, "held-out images") || !strings.Contains(out, "class weights: 0 ") {
		t.Fatalf("train --preset fast --calibrate said:\n%s", out)
	}
	out = ok(t, "inspect", fast)
	if !strings.Contains(out, "calibration") || !strings.Contains(out, "class weights") {
		t.Errorf("inspect said:\n%s", out)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "folder", "*", "*.png"))
	out = ok(t, "predict", model, pngs[0], pngs[1])
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Split(line, "\t"); len(f) != 5 || !strings.Contains(f[2], "=0.") && !strings.Contains(f[2], "=1.") {
			t.Fatalf("predict line %q: want path, class and three class=probability", line)
		}
	}
	out = ok(t, "predict", "--reject-below", "1", model, pngs[0])
	if f := strings.Split(out, "\t"); len(f) < 2 || f[1] != "unsure" {
		t.Errorf("predict --reject-below 1 said %q", out)
	}
	html := filepath.Join(dir, "r.html")
	out = ok(t, append([]string{"eval", model, "--report", html}, test...)...)
	for _, want := range []string{"calibrated probabilities: log-loss", "ECE noise: a calibrated model", "plain softmax of the raw scores", "ECE", "balanced accuracy", "macro-F1", "accuracy / coverage", "reliability"} {
		if !strings.Contains(out, want) {
			t.Errorf("eval lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(html)
	if err != nil || strings.Count(string(b), "<svg") < 2 || !strings.Contains(string(b), "Reliability diagram") {
		t.Errorf("eval --report: %v, %d SVG figures", err, strings.Count(string(b), "<svg"))
	}
	out = ok(t, append([]string{"eval", model, "--json"}, test...)...)
	for _, want := range []string{`"calibrated"`, `"ece"`, `"ece_noise"`, `"reject_curve"`, `"balanced_accuracy"`, `"recall"`} {
		if !strings.Contains(out, want) {
			t.Errorf("eval --json lacks %s", want)
		}
	}

	// Bad input: one-line errors.
	wf := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := filepath.Join(dir, "p.scn")
	ok(t, append([]string{"train", "--preset", "paper", "--nodes", "20", "-q", "-o", plain}, data...)...)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"train", "--coverage", "1.5", "-o", filepath.Join(dir, "x.scn")}, data...), "--coverage"},
		{append([]string{"train", "--coverage", "0", "-o", filepath.Join(dir, "x.scn")}, data...), "--coverage"},
		{append([]string{"train", "--coverage", "0.9", "-q", "-o", filepath.Join(dir, "x.scn")}, data...), "regression"},
		{append([]string{"train", "--class-weight", wf("w1", "0 2\nseven 3\n"), "-q", "-o", filepath.Join(dir, "x.scn")}, data...), "not one of"},
		{append([]string{"train", "--class-weight", wf("w2", "0 -2\n"), "-q", "-o", filepath.Join(dir, "x.scn")}, data...), "weight"},
		{append([]string{"train", "--class-weight", wf("w3", "0 NaN\n"), "-q", "-o", filepath.Join(dir, "x.scn")}, data...), "weight"},
		{append([]string{"train", "--class-weight", filepath.Join(dir, "none"), "-q", "-o", filepath.Join(dir, "x.scn")}, data...), "--class-weight"},
		{[]string{"predict", "--reject-below", "2", model, pngs[0]}, "--reject-below"},
		{[]string{"predict", "--reject-below", "-0.1", model, pngs[0]}, "--reject-below"},
		{[]string{"predict", "--reject-below", "0.5", plain, pngs[0]}, "--calibrate"},
		{[]string{"serve", "--reject-below", "1.5", model}, "--reject-below"},
	} {
		if out := fails(t, tc.args...); !strings.Contains(out, tc.want) {
			t.Errorf("scn %s: %q lacks %q", strings.Join(tc.args, " "), out, tc.want)
		}
	}
	// An uncalibrated model: eval says so, inspect too.
	out = ok(t, append([]string{"eval", plain}, test...)...)
	if !strings.Contains(out, "uncalibrated model") {
		t.Errorf("eval of an uncalibrated model:\n%s", out)
	}
	if out = ok(t, "inspect", plain); !strings.Contains(out, "calibration  none") && !strings.Contains(out, "calibration\tnone") && !strings.Contains(out, "none: the scores are not probabilities") {
		t.Errorf("inspect of an uncalibrated model:\n%s", out)
	}
}

// TestParseClassWeights: names with spaces, commas and tabs, comments;
// duplicates, unknown classes and bad numbers refused.
func TestParseClassWeights(t *testing.T) {
	classes := []string{"a", "b c", "d"}
	w, err := parseClassWeights(bufio.NewReader(strings.NewReader("# weights\n\nb c, 2.5\nd\t0.5\n")), classes)
	if err != nil || w[0] != 1 || w[1] != 2.5 || w[2] != 0.5 {
		t.Fatalf("%v %v", w, err)
	}
	for _, bad := range []string{"", "# only\n", "a\n", "a 1\na 2\n", "e 1\n", "a 0\n", "a -1\n", "a inf\n", "a nan\n", "a x\n", " 1\n"} {
		if w, err := parseClassWeights(bufio.NewReader(strings.NewReader(bad)), classes); err == nil {
			t.Errorf("%q: accepted as %v", bad, w)
		}
	}
}

// FuzzParseClassWeights: any input gives weights > 0 for every class, or
// an error; never a panic.
func FuzzParseClassWeights(f *testing.F) {
	f.Add("a 1\nb c 2\n")
	f.Add("# x\nd,\t0.25\n")
	f.Add("a 1e308\n")
	f.Fuzz(func(t *testing.T, s string) {
		w, err := parseClassWeights(bufio.NewReader(strings.NewReader(s)), []string{"a", "b c", "d"})
		if err != nil {
			return
		}
		for _, v := range w {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Fatalf("%q: weight %v", s, v)
			}
		}
	})
}

// TestCalibrateByDefault: scn train with model selection (the default
// preset) calibrates without being asked, --calibrate=false does not, and
// a fit without selection (the paper preset) only when asked; a budget or
// a stream is not refused for the default map it does not fit.
func TestCalibrateByDefault(t *testing.T) {
	dir, _, _ := files(t)
	data := []string{"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz")}
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--nodes", "40"}, true},
		{[]string{"--nodes", "40", "--calibrate=false"}, false},
		{[]string{"--nodes", "40", "--folds", "3"}, true},
		{[]string{"--nodes", "40", "--folds", "3", "--calibrate=false", "--class-weight", "balanced"}, false},
		{[]string{"--preset", "paper", "--nodes", "20"}, false},
		{[]string{"--preset", "paper", "--nodes", "20", "--calibrate=false"}, false},
	} {
		model := filepath.Join(dir, "d.scn")
		out := ok(t, append(append([]string{"train", "-q", "-o", model}, tc.args...), data...)...)
		if got := strings.Contains(out, "calibration: "); got != tc.want {
			t.Errorf("train %v: calibrated %v, want %v:\n%s", tc.args, got, tc.want, out)
		}
		info := ok(t, "inspect", model)
		if got := !strings.Contains(info, "none: the scores are not probabilities"); got != tc.want {
			t.Errorf("inspect after train %v: calibrated %v, want %v:\n%s", tc.args, got, tc.want, info)
		}
	}
	model := filepath.Join(dir, "s.scn")
	out := ok(t, append([]string{"train", "-q", "--stream", "--nodes", "20", "-o", model}, data...)...)
	if strings.Contains(out, "calibration: ") {
		t.Errorf("a streamed fit calibrated:\n%s", out)
	}
}
