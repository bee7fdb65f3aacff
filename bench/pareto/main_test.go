package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunDrawsOnePlotPerDataSet(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "p.csv")
	csv := "data,learner,nodes,fit_s,cpu_s,test_acc\n" +
		"mnist,2dscn fast,1000,5.5,,94.6\nmnist,2dscn fast,2000,9.1,,96.4\n" +
		"mnist,numpy ELM f32,7000,14.6,29,97.36\nfashion-mnist,2drvfl fast,1000,4,,85\n"
	if err := os.WriteFile(in, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(in, dir); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"mnist", "fashion-mnist"} {
		b, err := os.ReadFile(filepath.Join(dir, "pareto-"+d+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "test accuracy") {
			t.Errorf("%s: not the expected SVG", d)
		}
	}
}

func TestRunRefusesBadCSV(t *testing.T) {
	dir := t.TempDir()
	for name, csv := range map[string]string{
		"short header": "data,learner\n",
		"no rows":      "data,learner,nodes,fit_s,cpu_s,test_acc\n",
		"bad number":   "data,learner,nodes,fit_s,cpu_s,test_acc\nmnist,x,1,fast,,90\n",
		"ragged":       "data,learner,nodes,fit_s,cpu_s,test_acc\nmnist,x,1\n",
	} {
		in := filepath.Join(dir, "bad.csv")
		os.WriteFile(in, []byte(csv), 0o644)
		if err := run(in, dir); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := run(filepath.Join(dir, "missing.csv"), dir); err == nil {
		t.Error("missing file accepted")
	}
}

// TestRunDrawsParameterPlots: rows with a parameter count give a second
// plot per data set; a set without any gives none; a bad count is refused.
func TestRunDrawsParameterPlots(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "p.csv")
	csv := "data,learner,nodes,fit_s,cpu_s,test_acc,params\n" +
		"mnist,2dscn fast,1000,5.5,,94.6,67000\nmnist,PyTorch CNN (2 threads),1,30.2,,98.1,454922\n" +
		"fashion-mnist,2drvfl fast,1000,4,,85,\n"
	if err := os.WriteFile(in, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(in, dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "pareto-mnist-params.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "parameters") || !strings.Contains(string(b), "PyTorch CNN") {
		t.Error("the parameter plot lacks its axis or the CNN")
	}
	if _, err := os.Stat(filepath.Join(dir, "pareto-fashion-mnist-params.svg")); err == nil {
		t.Error("a parameter plot for a data set without parameter counts")
	}
	bad := "data,learner,nodes,fit_s,cpu_s,test_acc,params\nmnist,x,1,2,,90,-5\n"
	os.WriteFile(in, []byte(bad), 0o644)
	if err := run(in, dir); err == nil {
		t.Error("a negative parameter count accepted")
	}
}

// TestRunCommentsAndParamsOnlyRows: # lines are comments, and a row with
// no fit time is drawn against parameters only.
func TestRunCommentsAndParamsOnlyRows(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "p.csv")
	csv := "data,learner,nodes,fit_s,cpu_s,test_acc,params\n" +
		"mnist,2dscn fast,1000,5.5,,94.6,67000\n" +
		"# scn train --model 2dscn --layers 2000,300 ...\n" +
		"mnist,deep 2dscn,2300,,,97.68,737300\n"
	if err := os.WriteFile(in, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(in, dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "pareto-mnist-params.svg"))
	if err != nil || !strings.Contains(string(b), "deep 2dscn") {
		t.Fatalf("the parameters plot lacks the row without a time: %v", err)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "pareto-mnist.svg"))
	if strings.Contains(string(b), "deep 2dscn") {
		t.Fatal("a row without a time is in the time plot")
	}
}
