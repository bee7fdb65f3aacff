package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDirectLinkCommands: scn train --direct-link writes a model with direct
// links that inspect, eval and predict take; selection without the flag
// records its growth and what it tried; --direct-link=false and
// --grow=false keep the old form.
func TestDirectLinkCommands(t *testing.T) {
	dir, _ := regressionFiles(t)
	p := func(n string) string { return filepath.Join(dir, n) }
	model := p("direct.scn")
	ok(t, "train", "--model", "rvfl", "--nodes", "30", "-q", "--direct-link", "--folds", "3",
		"--idx-images", p("train-images"), "--idx-targets", p("train-angles"), "-o", model)
	out := ok(t, "inspect", model)
	if !strings.Contains(out, "direct links") || !strings.Contains(out, "784 features, the preprocessed pixels") {
		t.Errorf("inspect of a direct-link model:\n%s", out)
	}
	info := inspectJSON(t, model)
	if d, _ := info["direct_link"].(map[string]any); d["features"] != 784.0 || d["pool"] != 1.0 {
		t.Errorf("inspect --json direct_link: %v", info["direct_link"])
	}
	out = ok(t, "eval", model, "--idx-images", p("test-images"), "--idx-targets", p("test-angles"), "--json")
	var ev evaluation
	if err := json.Unmarshal([]byte(out), &ev); err != nil || ev.RMSE == nil || !(*ev.RMSE > 0 && *ev.RMSE < 45) {
		t.Errorf("eval --json of a direct-link model: %v %s", err, out)
	}
	pngs, _ := filepath.Glob(p("png/*.png"))
	out = ok(t, append([]string{"predict", model}, pngs...)...)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(l, "\t")
		if v, err := strconv.ParseFloat(f[len(f)-1], 64); err != nil || v < -90 || v > 90 {
			t.Errorf("predict line %q: not an angle", l)
		}
	}
	// The default tries both and records growth.
	def := p("default.scn")
	out = ok(t, "train", "--model", "2drvfl", "--nodes", "20", "-q", "--folds", "3",
		"--idx-images", p("train-images"), "--idx-targets", p("train-angles"), "-o", def)
	if !strings.Contains(out, "growth stopped") {
		t.Errorf("the default's selection line says nothing of growth:\n%s", out)
	}
	if !strings.Contains(ok(t, "inspect", def), "growth stopped") {
		t.Errorf("inspect shows no growth record")
	}
	// Both off: the model of before.
	plain := p("plain.scn")
	out = ok(t, "train", "--model", "2drvfl", "--nodes", "20", "-q", "--folds", "3", "--direct-link=false", "--grow=false",
		"--idx-images", p("train-images"), "--idx-targets", p("train-angles"), "-o", plain)
	if strings.Contains(out, "growth") || strings.Contains(out, "direct links") {
		t.Errorf("--direct-link=false --grow=false:\n%s", out)
	}
	if info := inspectJSON(t, plain); info["direct_link"] != nil {
		t.Errorf("a plain model has direct links: %v", info["direct_link"])
	}
}
