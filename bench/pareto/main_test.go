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
