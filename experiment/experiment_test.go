package experiment

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// dataDir is the shared data folder; tests that need it skip when absent.
func dataDir(t *testing.T, need ...string) string {
	t.Helper()
	dir := os.Getenv("SCN_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "data")
	}
	for _, n := range need {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Skipf("data folder %s lacks %s", dir, n)
		}
	}
	return dir
}

type logWriter struct{ t *testing.T }

func (l logWriter) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func runQuick(t *testing.T, name string, need ...string) *Result {
	t.Helper()
	o := Options{DataDir: dataDir(t, need...), OutDir: t.TempDir(), Quick: true, Seed: 1, Log: logWriter{t}, Command: "go test"}
	start := time.Now()
	r, err := Run(context.Background(), name, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s quick: %v", name, time.Since(start))
	dir := filepath.Join(o.OutDir, r.Name)
	for _, f := range []string{"result.json", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing output %s", f)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Name != r.Name || len(back.Tables) != len(r.Tables) {
		t.Errorf("result.json does not round-trip")
	}
	for _, tab := range r.Tables {
		if _, err := os.Stat(filepath.Join(dir, tab.Name+".csv")); err != nil {
			t.Errorf("missing CSV for table %s", tab.Name)
		}
		for _, row := range tab.Rows {
			t.Logf("%s: %v", tab.Name, row)
		}
	}
	for _, n := range r.Notes {
		t.Log("note: ", n)
	}
	return r
}

func TestQuickRotation(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	runQuick(t, "e1", "mnist")
}

func TestQuickDigits(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	runQuick(t, "digits", "mnist", "fashion-mnist", "cvl-digits.tar.gz")
}

func TestQuickFaces(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	runQuick(t, "faces", "orl_faces")
}

func TestQuickIndicator(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	runQuick(t, "indicator", "orl_faces")
}

func TestQuickRobustness(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	runQuick(t, "robustness", "orl_faces")
}

func TestQuickSmallWeights(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	r := runQuick(t, "e6")
	if z := r.Values["max_abs_z"]; !(z <= 4) {
		t.Errorf("largest |z| = %v", z)
	}
}

func TestUnknownAndMissing(t *testing.T) {
	if _, err := Run(context.Background(), "nope", Options{OutDir: t.TempDir()}); err == nil {
		t.Error("unknown experiment accepted")
	}
	_, err := Run(context.Background(), "faces", Options{DataDir: t.TempDir(), OutDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "orl_faces") {
		t.Errorf("missing data error does not name the file: %v", err)
	}
	if len(Names()) != 7 || Describe("e4") == "" {
		t.Error("registry")
	}
}
