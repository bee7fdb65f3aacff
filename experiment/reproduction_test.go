package experiment

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReproductionMatchesCommittedResults: REPRODUCTION.md is what
// `scn experiment report` generates from the committed results, byte for
// byte: the full protocol's (results/paper) where they are committed, the
// quick protocol's for the rest (regenerate it with: scn experiment report
// --out results/paper,results/quick -o REPRODUCTION.md).
func TestReproductionMatchesCommittedResults(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "REPRODUCTION.md"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Reproduction(filepath.Join("..", "results", "paper"), filepath.Join("..", "results", "quick"))
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Error("REPRODUCTION.md differs from what the committed results generate: run scn experiment report --out results/paper,results/quick -o REPRODUCTION.md")
	}
}

// TestReproductionVerdicts: a claim holds or not as the figures say.
func TestReproductionVerdicts(t *testing.T) {
	lead := ranking("E3", "2DSCN best", []string{"90.00 ± 1.00", "80.00 ± 1.00", "85.00 ± 2.00", "70.00 ± 3.00"}, true, "")
	if lead.verdict != "holds" {
		t.Errorf("2DSCN ahead: %q", lead.verdict)
	}
	behind := ranking("E3", "2DSCN best", []string{"80.00 ± 1.00", "80.50 ± 1.00", "85.00 ± 2.00", "70.00 ± 3.00"}, true, "")
	if !strings.HasPrefix(behind.verdict, "does not hold: 2DRVFL leads by 5.00") {
		t.Errorf("2DRVFL ahead: %q", behind.verdict)
	}
	rmse := ranking("E1", "lowest RMSE", []string{"15.0", "16.0", "14.0", "17.0"}, false, "")
	if !strings.Contains(rmse.verdict, "2DRVFL leads by 1.00") {
		t.Errorf("lower is better: %q", rmse.verdict)
	}
	if c := ranking("E1", "x", []string{"15.0", "", "14.0", "17.0"}, false, ""); !strings.HasPrefix(c.verdict, "cannot be tested") {
		t.Errorf("missing figure: %q", c.verdict)
	}
	if _, err := Reproduction(t.TempDir()); err == nil {
		t.Error("a folder without results gave a report")
	}
}

// TestReproductionTakesEachExperimentFromTheFirstFolder: with two result
// folders, an experiment present in the first is reported from it and the
// others from the second.
func TestReproductionTakesEachExperimentFromTheFirstFolder(t *testing.T) {
	quick := filepath.Join("..", "results", "quick")
	first := t.TempDir()
	src, err := os.ReadFile(filepath.Join(quick, "size", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(src, &r); err != nil {
		t.Fatal(err)
	}
	r["command"] = "scn experiment size --from-the-first-folder"
	b, _ := json.Marshal(r)
	if err := os.MkdirAll(filepath.Join(first, "size"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(first, "size", "result.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	both, err := Reproduction(first, quick)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Reproduction(quick)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(both, "--from-the-first-folder") {
		t.Error("the size experiment was not taken from the first folder")
	}
	if strings.Count(both, "scn experiment all --quick") != strings.Count(alone, "scn experiment all --quick")-1 {
		t.Error("the other experiments were not taken from the second folder")
	}
}
