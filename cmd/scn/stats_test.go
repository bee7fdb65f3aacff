package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn"
)

// TestStatsCommands: train --stats-out, stats build, stats merge, solve and
// update agree: an update with a set's images equals solving the merged
// statistics (to 1e-9 in beta) and writes the merged statistics byte for
// byte; bad statistics are refused in one line.
func TestStatsCommands(t *testing.T) {
	dir, _, _ := files(t)
	data := []string{"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz")}
	m := filepath.Join(dir, "m.scn")
	s1 := filepath.Join(dir, "s1.scnstats")
	ok(t, append([]string{"train", "--model", "2drvfl", "--preset", "paper", "--nodes", "30", "--ridge", "0.5", "-q", "-o", m, "--stats-out", s1}, data...)...)
	s2 := filepath.Join(dir, "s2.scnstats")
	if out := ok(t, append([]string{"stats", "build", "--recipe", m, "-o", s2}, data...)...); !strings.Contains(out, "statistics of") {
		t.Errorf("stats build said: %s", out)
	}
	a, _ := os.ReadFile(s1)
	b, _ := os.ReadFile(s2)
	// train --stats-out stores the factor of G + ridge I (version 2);
	// --stats-factor=false writes the sums alone, as stats build does.
	s1plain := filepath.Join(dir, "s1plain.scnstats")
	ok(t, append([]string{"train", "--model", "2drvfl", "--preset", "paper", "--nodes", "30", "--ridge", "0.5", "-q", "-o", m, "--stats-out", s1plain, "--stats-factor=false"}, data...)...)
	if plain, _ := os.ReadFile(s1plain); !bytes.Equal(plain, b) || a[8] != 2 || b[8] != 1 {
		t.Errorf("stats build of the training set differs from train --stats-out --stats-factor=false (versions %d, %d)", a[8], b[8])
	}
	withF, err := scn.LoadStats(s1)
	if err != nil {
		t.Fatal(err)
	}
	if withF.Factor == nil || withF.Factor.N != withF.N || withF.Factor.Ridge != 0.5 {
		t.Fatalf("train --stats-out stored the factor %+v", withF.Factor)
	}
	withF.Factor = nil
	var sums bytes.Buffer
	withF.WriteTo(&sums)
	if !bytes.Equal(sums.Bytes(), b) {
		t.Error("stats build of the training set differs from the sums of train --stats-out")
	}
	s3 := filepath.Join(dir, "s3.scnstats")
	ok(t, "stats", "merge", s1, s2, "-o", s3)
	m2 := filepath.Join(dir, "m2.scn")
	ok(t, "solve", s3, "-o", m2)
	m3 := filepath.Join(dir, "m3.scn")
	s4 := filepath.Join(dir, "s4.scnstats")
	ok(t, append([]string{"update", m, "--stats", s1, "-o", m3, "--stats-out", s4}, data...)...)
	// The update solves iteratively (docs/stats.md): the output weights
	// of the direct solve to 1e-9, the rest of the model the same.
	x, y := loadBoth(t, m2, m3)
	if d := relBetaDiff(x, y); d > 1e-9 || !slices.Equal(x.Params, y.Params) || x.Summary.Samples != y.Summary.Samples {
		t.Errorf("update differs from solving the merged statistics (beta by %.3g relative)", d)
	}
	z, _ := os.ReadFile(s4)
	w, _ := os.ReadFile(s3)
	if !bytes.Equal(z, w) {
		t.Error("update --stats-out differs from stats merge")
	}
	// The stored factor gives the model the update forms its own factor
	// for, byte for byte.
	m4 := filepath.Join(dir, "m4.scn")
	ok(t, append([]string{"update", m, "--stats", s1plain, "-o", m4}, data...)...)
	if p, q := readFile(t, m3), readFile(t, m4); !bytes.Equal(p, q) {
		t.Error("update with the stored factor differs from the update that factors G")
	}
	// --stats-out carried the factor on (of the first images: stale); a
	// second update with it solves the statistics of all three sets.
	if z[8] != 2 {
		t.Errorf("update --stats-out of statistics with a factor wrote version %d", z[8])
	}
	m5, s6, m6 := filepath.Join(dir, "m5.scn"), filepath.Join(dir, "s6.scnstats"), filepath.Join(dir, "m6.scn")
	ok(t, append([]string{"update", m, "--stats", s4, "-o", m5}, data...)...)
	ok(t, "stats", "merge", s4, s2, "-o", s6)
	ok(t, "solve", s6, "-o", m6)
	if d := betaDiff(t, m5, m6); d > 1e-9 {
		t.Errorf("update with a stale factor differs from solving the merged statistics by %.3g", d)
	}
	info := inspectJSON(t, m3)
	if info["samples"].(float64) != 2*inspectJSON(t, m)["samples"].(float64) {
		t.Errorf("updated model counts %v images", info["samples"])
	}
	// Bad input: a truncated file, a model given as statistics, statistics
	// of other nodes.
	os.WriteFile(filepath.Join(dir, "cut.scnstats"), a[:len(a)/2], 0o644)
	if msg := fails(t, "solve", filepath.Join(dir, "cut.scnstats"), "-o", m2); !strings.Contains(msg, "truncated") {
		t.Errorf("truncated: %s", msg)
	}
	if msg := fails(t, "solve", m, "-o", m2); !strings.Contains(msg, "not a statistics file") {
		t.Errorf("model as statistics: %s", msg)
	}
	other := filepath.Join(dir, "other.scn")
	os5 := filepath.Join(dir, "s5.scnstats")
	ok(t, append([]string{"train", "--model", "2drvfl", "--preset", "paper", "--nodes", "30", "--seed", "7", "-q", "-o", other, "--stats-out", os5}, data...)...)
	if msg := fails(t, "stats", "merge", s1, os5, "-o", s3); !strings.Contains(msg, "parameters differ") {
		t.Errorf("other nodes: %s", msg)
	}
	if _, code := failsCode(t, "update", m, "-o", m3); code != exitUsage {
		t.Errorf("update without --stats: exit %d", code)
	}
}

// betaDiff is the relative difference of the output weights of two model
// files.
func betaDiff(t *testing.T, a, b string) float64 {
	t.Helper()
	return relBetaDiff(loadBoth(t, a, b))
}

// loadBoth loads two model files.
func loadBoth(t *testing.T, a, b string) (x, y *scn.Model) {
	t.Helper()
	x, err := scn.Load(a)
	if err != nil {
		t.Fatal(err)
	}
	if y, err = scn.Load(b); err != nil {
		t.Fatal(err)
	}
	return x, y
}

// relBetaDiff is ||beta_x - beta_y|| / ||beta_x||.
func relBetaDiff(x, y *scn.Model) float64 {
	var d, nb float64
	for i := range x.Beta {
		d += (x.Beta[i] - y.Beta[i]) * (x.Beta[i] - y.Beta[i])
		nb += x.Beta[i] * x.Beta[i]
	}
	return math.Sqrt(d / nb)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
