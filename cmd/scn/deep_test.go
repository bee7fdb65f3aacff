package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainLayers fits a deep 2DSCN on the built-in set with --layers,
// shows its layers in inspect, evaluates, predicts, exports it, and
// refuses what deep fits do not support.
func TestTrainLayers(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "deep.scn")
	out := ok(t, "train", "-q", "--preset", "fast", "--layers", "60,20", "--block", "30", "-o", model)
	if !strings.Contains(out, "80 nodes in layers of [60 20]") {
		t.Fatalf("train: %s", out)
	}
	info := inspectJSON(t, model)
	if fmt.Sprint(info["layers"]) != "[60 20]" || info["nodes"] != 80.0 {
		t.Fatalf("inspect --json: layers %v, nodes %v", info["layers"], info["nodes"])
	}
	if out := ok(t, "eval", model); !strings.Contains(out, "accuracy") {
		t.Fatalf("eval: %s", out)
	}
	for _, f := range []string{"onnx", "npz"} {
		ok(t, "export", model, "--format", f, "-o", filepath.Join(dir, "deep."+f))
	}
	// 2DRVFL fast (bfloat16 products where the CPU has them) as the first layer.
	if out := ok(t, "train", "-q", "--model", "2drvfl", "--preset", "fast", "--layers", "60,20", "--block", "30", "-o", model); !strings.Contains(out, "in layers of [60 20]") {
		t.Fatalf("train 2drvfl: %s", out)
	}
	for _, args := range [][]string{
		{"--layers", "60,20", "--bf16-gram"},
		{"--layers", "60,0"},
		{"--layers", "60,x"},
		{"--layers", "60,20", "--nodes", "50"},
		{"--layers", "60,20", "--validation", "0.1"},
		{"--layers", "60,20", "--stats-out", filepath.Join(dir, "s.scnstats")},
		{"--layers", "60,20", "--budget", "5s"},
		{"--layers", "60,20", "--preset", "paper"},
	} {
		fails(t, append([]string{"train", "-q", "-o", filepath.Join(dir, "bad.scn")}, args...)...)
	}
}
