package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn"
)

// TestTrainPhotoPreset: on a folder of colour images scn train's default
// and fast presets fit 2DRVFL with local nodes, say so, and give the model
// --model 2drvfl --local 5x5 --filters F gives (the same weights and
// bytes but the recorded preset's name); grey digits keep the preset's
// global nodes; --model, --nodes, --local, --preset paper and custom
// settings win; --stats-out keeps the photo choice (statistics of its local
// nodes).
func TestTrainPhotoPreset(t *testing.T) {
	const n = 15
	dir, _ := hueFolder(t, n)
	tmp := t.TempDir()
	f := scn.PhotoFilters(n, 28, 28, 3)
	train := func(out string, extra ...string) string {
		return ok(t, append([]string{"train", "-q", "--folder", dir, "-o", out}, extra...)...)
	}
	a := filepath.Join(tmp, "a.scn")
	out := train(a)
	flags := fmt.Sprintf("--model 2drvfl --local 5x5 --filters %d --whiten", f)
	if !strings.Contains(out, "colour photos of 28 x 28 x 3: the default preset fits 2DRVFL with local nodes") || !strings.Contains(out, flags) {
		t.Fatalf("default train on colour images said:\n%s", out)
	}
	info := inspectJSON(t, a)
	if info["kind"] != "2drvfl" || info["local"] == nil || info["preset"] != "default" {
		t.Fatalf("default model on colour images: kind %v, preset %v, local %v", info["kind"], info["preset"], info["local"])
	}
	b := filepath.Join(tmp, "b.scn")
	train(b, strings.Fields(flags)...)
	ma, err := scn.Load(a)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := scn.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	mb.Config.Preset = ma.Config.Preset
	a2, b2 := filepath.Join(tmp, "a2.scn"), filepath.Join(tmp, "b2.scn")
	if err := ma.Save(a2); err != nil {
		t.Fatal(err)
	}
	if err := mb.Save(b2); err != nil {
		t.Fatal(err)
	}
	ba, _ := os.ReadFile(a2)
	bb, _ := os.ReadFile(b2)
	if len(ba) == 0 || !bytes.Equal(ba, bb) {
		t.Errorf("the preset's photo model differs from %s's (%d and %d bytes)", flags, len(ba), len(bb))
	}

	fast := filepath.Join(tmp, "fast.scn")
	if out := train(fast, "--preset", "fast"); !strings.Contains(out, "the fast preset fits 2DRVFL with local nodes") {
		t.Errorf("--preset fast on colour images said:\n%s", out)
	}
	// Streamed: the same choice, the same filters and whitening.
	sa := filepath.Join(tmp, "stream.scn")
	if out := train(sa, "--stream"); !strings.Contains(out, "the default preset fits 2DRVFL with local nodes") {
		t.Errorf("--stream on colour images said:\n%s", out)
	}
	if ms, err := scn.Load(sa); err != nil || ms.Local == nil || len(ms.Local.Banks) != len(ma.Local.Banks) ||
		!slices.Equal(ms.Local.Banks[0].Params, ma.Local.Banks[0].Params) || !slices.Equal(ms.Local.Banks[0].Whiten, ma.Local.Banks[0].Whiten) ||
		ms.Summary.Samples != ma.Summary.Samples {
		t.Errorf("--stream on colour images: not the preset's filters and whitening (%v)", err)
	}
	if out := fails(t, "train", "-q", "--folder", dir, "--stream", "--validation", "0.3", "-o", filepath.Join(tmp, "no.scn")); !strings.Contains(out, "without model selection") {
		t.Errorf("--stream --validation on colour images said:\n%s", out)
	}
	// Selection asked for: the ridge term is chosen.
	if out := train(filepath.Join(tmp, "sel.scn"), "--validation", "0.3", "--ridges", "10,100"); !strings.Contains(out, "local nodes") || !strings.Contains(out, "selected") {
		t.Errorf("--validation on colour images said:\n%s", out)
	}

	// Flags win.
	for _, c := range []struct {
		flags []string
		kind  string
	}{
		{[]string{"--model", "2dscn", "--nodes", "20"}, "2dscn"},
		{[]string{"--model", "rvfl"}, "rvfl"},
		{[]string{"--nodes", "20"}, "2dscn"},
		{[]string{"--preset", "paper", "--nodes", "10"}, "2dscn"},
		{[]string{"--differences=false"}, "2dscn"},
		{[]string{"--direct-link", "--nodes", "20"}, "2dscn"},
		{[]string{"--direct-link"}, "2dscn"}, // local nodes have no direct links yet
	} {
		m := filepath.Join(tmp, "win.scn")
		out := train(m, c.flags...)
		info := inspectJSON(t, m)
		if strings.Contains(out, "local nodes") || info["local"] != nil || info["kind"] != c.kind {
			t.Errorf("%v: kind %v, local %v; said:\n%s", c.flags, info["kind"], info["local"], out)
		}
	}
	st := filepath.Join(tmp, "s.scnstats")
	if out := train(filepath.Join(tmp, "st.scn"), "--stats-out", st); !strings.Contains(out, "with local nodes") || !strings.Contains(out, "statistics of") {
		t.Errorf("--stats-out on colour images said:\n%s", out)
	}
	if s, err := scn.LoadStats(st); err != nil || s.Recipe.Local == nil || s.N < n {
		t.Errorf("--stats-out of the photo model: %v", err)
	}
	m := filepath.Join(tmp, "own.scn")
	train(m, "--local", "3x3", "--filters", "4")
	if info := inspectJSON(t, m); info["local"] == nil || fmt.Sprint(info["local"].(map[string]any)["sizes"]) != "[3]" || info["local"].(map[string]any)["filters"] != 4.0 {
		t.Errorf("--local 3x3 --filters 4 gave %v", info["local"])
	}

	// Grey digits: the default preset's global 2DSCN, as before.
	gdir, _, _ := files(t)
	g := filepath.Join(tmp, "grey.scn")
	out = ok(t, "train", "-q", "--folder", filepath.Join(gdir, "folder"), "-o", g)
	if info := inspectJSON(t, g); strings.Contains(out, "local nodes") || info["local"] != nil || info["kind"] != "2dscn" || info["preset"] != "default" {
		t.Errorf("grey digits: kind %v, preset %v, local %v; said:\n%s", info["kind"], info["preset"], info["local"], out)
	}
}

// TestTrainBudgetPhotos: --budget on colour images plans local nodes and
// the ridge choice, says so (and the ridge chosen), and --replay refits the
// model's plan to the same file.
func TestTrainBudgetPhotos(t *testing.T) {
	dir, _ := hueFolder(t, 15)
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a.scn"), filepath.Join(tmp, "b.scn")
	out := ok(t, "train", "-q", "--folder", dir, "--budget", "20s", "-o", a)
	if !strings.Contains(out, "with local nodes") || !strings.Contains(out, "filters") ||
		!strings.Contains(out, "ridge chosen among 100,300,1000,30 on 10% held out") || !strings.Contains(out, ", ridge ") {
		t.Fatalf("--budget on colour images said:\n%s", out)
	}
	if info := inspectJSON(t, a); info["local"] == nil || info["kind"] != "2drvfl" {
		t.Fatalf("--budget model on colour images: kind %v, local %v", info["kind"], info["local"])
	}
	out = ok(t, "train", "-q", "--folder", dir, "--replay", a, "-o", b)
	if !strings.Contains(out, "replayed") {
		t.Errorf("--replay said:\n%s", out)
	}
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if len(ba) == 0 || !bytes.Equal(ba, bb) {
		t.Errorf("--replay of a budget on photos gave another file (%d and %d bytes)", len(ba), len(bb))
	}
}
