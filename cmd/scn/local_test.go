package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainLocal: scn train --local fits local nodes (grey digits here),
// and inspect, eval and predict read the model; the same seed gives the
// same file; impossible geometries are one-line errors that write nothing.
func TestTrainLocal(t *testing.T) {
	dir, _, _ := files(t)
	model := filepath.Join(dir, "local.scn")
	data := []string{"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz")}
	train := func(out string, extra ...string) []string {
		return append(append([]string{"train", "-q", "--model", "2drvfl", "--local", "5x5,3x3", "--filters", "8", "--pool", "2x2", "-o", out}, data...), extra...)
	}
	out := ok(t, train(model)...)
	if !strings.Contains(out, "2DRVFL: 128 nodes") || !strings.Contains(out, "saved") {
		t.Fatalf("train said:\n%s", out)
	}
	out = ok(t, "inspect", model)
	for _, want := range []string{"local nodes", "8 x 5x5,3x3 stride 1 pad same, avg pool 2x2, two-sided, standardised", "separable filters u v^T", "8 filters of 5x5, 10 + bias each"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q:\n%s", want, out)
		}
	}
	if out := ok(t, "inspect", "--json", model); !strings.Contains(out, `"pooling": "avg"`) {
		t.Errorf("inspect --json lacks the local nodes:\n%s", out)
	}
	out = ok(t, "eval", model, "--idx-images", filepath.Join(dir, "test-images"), "--idx-labels", filepath.Join(dir, "test-labels"))
	if !strings.Contains(out, "accuracy") {
		t.Fatalf("eval said:\n%s", out)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "folder", "*", "*.png"))
	if out := ok(t, append([]string{"predict", model}, pngs[:2]...)...); strings.Count(out, ".png") != 2 {
		t.Fatalf("predict said:\n%s", out)
	}
	again := filepath.Join(dir, "again.scn")
	ok(t, train(again)...)
	a, _ := os.ReadFile(model)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Error("two local fits with the same seed gave different files")
	}
	// The ridge term chosen on held-out images.
	out = ok(t, append([]string{"train", "-q", "--model", "2drvfl", "--local", "5x5", "--filters", "4", "--validation", "0.2", "--ridges", "1,100", "-o", filepath.Join(dir, "sel.scn")}, data...)...)
	if !strings.Contains(out, "ridge") {
		t.Fatalf("train with selection said:\n%s", out)
	}
	// Supervised, full filters.
	out = ok(t, append([]string{"train", "-q", "--model", "scn", "--local", "5", "--filters", "4", "--pooling", "avg+max", "-o", filepath.Join(dir, "scn.scn")}, data...)...)
	if !strings.Contains(out, "SCN: ") {
		t.Fatalf("supervised local train said:\n%s", out)
	}
	bad := filepath.Join(dir, "bad.scn")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--local", "29x29", "--pad", "0"}, "larger than the images"},
		{[]string{"--local", "5x5", "--stride", "0"}, "--stride"},
		{[]string{"--local", "5x5", "--pool", "29"}, "pool grid 29 x 29 is larger than the map"},
		{[]string{"--local", "5x4"}, "only square sizes"},
		{[]string{"--local", "5x5", "--pooling", "median"}, "unknown pooling"},
		{[]string{"--pool", "3"}, "add --local"},
		{[]string{"--local", "5x5", "--patience", "3"}, "--patience"},
		{[]string{"--local", "5x5", "--budget", "10s"}, "--budget"},
		{[]string{"--local", "5x5", "--stream", "--validation", "0.2"}, "without model selection"},
		{[]string{"--local", "5x5", "--filters", "1000", "--max-memory", "100MB"}, "more than the limit"},
		{[]string{"--local", "5x5", "--filters", "4000"}, "lower --filters"},
	} {
		args := append(append([]string{"train", "-q", "--model", "2drvfl", "-o", bad}, data...), c.args...)
		if out := fails(t, args...); !strings.Contains(out, c.want) {
			t.Errorf("%v: %s, want %q", c.args, out, c.want)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Fatalf("%v: a model file was written", c.args)
		}
	}
}

// FuzzParseSquare: what parseSquare accepts is a side of 1 ... 1024.
func FuzzParseSquare(f *testing.F) {
	for _, s := range []string{"5x5", "5", "3X3", "5x4", "x", "0", "1025", "-3", "7x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := parseSquare(s)
		if err == nil && (k < 1 || k > 1024) {
			t.Fatalf("parseSquare(%q) = %d", s, k)
		}
	})
}
