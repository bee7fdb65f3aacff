package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/scn2d/scn"
)

// digits.mat (written by Octave): five 4 x 3 images as X (4x3x1x5), X3
// (4x3x5), Xflat (5x12) and XT (12x5), angles ang (int16), labels lab.
const testMAT = "../../dataset/testdata/digits.mat"

// TestMATInput trains and evaluates from a MAT-file: the same images in
// MATLAB's layouts give the same model; regression and classification.
func TestMATInput(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	train := func(out string, args ...string) *scn.Model {
		ok(t, append([]string{"train", "--model", "2drvfl", "--nodes", "4", "--seed", "3", "-q", "--mat", testMAT, "-o", p(out)}, args...)...)
		m, err := scn.Load(p(out))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a := train("a.scn", "--mat-x", "X", "--mat-targets", "ang")
	b := train("b.scn", "--mat-x", "X3", "--mat-targets", "ang")
	c := train("c.scn", "--mat-x", "XT", "--mat-targets", "ang", "--rows", "4", "--cols", "3")
	if !reflect.DeepEqual(a.Params, b.Params) || !reflect.DeepEqual(a.Beta, b.Beta) || !reflect.DeepEqual(a.Beta, c.Beta) {
		t.Fatal("the same images in three MAT layouts gave different models")
	}
	if !strings.Contains(a.Meta["source"], "digits.mat") {
		t.Errorf("source %q", a.Meta["source"])
	}
	ev := evalJSON(t, p("a.scn"), "--mat", testMAT, "--mat-x", "X", "--mat-targets", "ang")
	if rmse, _ := ev["rmse"].(float64); ev["accuracy"] != nil || !(rmse >= 0) {
		t.Errorf("regression eval: %v", ev)
	}
	train("k.scn", "--mat-x", "X", "--mat-y", "lab", "--validation", "0")
	ev = evalJSON(t, p("k.scn"), "--mat", testMAT, "--mat-x", "X", "--mat-y", "lab")
	if ev["accuracy"] == nil {
		t.Errorf("classification eval: %v", ev)
	}
}

func TestMATBadFlags(t *testing.T) {
	for want, args := range map[string][]string{
		"there is none":         {"--mat-x", "X"},
		"the file holds X (4x3": {"--mat", testMAT},
		"not both":              {"--mat", testMAT, "--mat-x", "X", "--mat-y", "lab", "--mat-targets", "ang"},
		"one data source":       {"--mat", testMAT, "--mat-x", "X", "--mat-y", "lab", "--csv", "x.csv"},
		"no such variable":      {"--mat", testMAT, "--mat-x", "Y", "--mat-y", "lab"},
		"read whole":            {"--mat", testMAT, "--mat-x", "X", "--mat-y", "lab", "--stream"},
	} {
		out := fails(t, append([]string{"train", "-q", "--nodes", "3", "-o", filepath.Join(t.TempDir(), "m.scn")}, args...)...)
		if !strings.Contains(out, want) {
			t.Errorf("%v: %s, want %q", args, out, want)
		}
	}
}
