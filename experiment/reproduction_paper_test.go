package experiment

import (
	"math"
	"strings"
	"testing"
)

func rotationResult(provenance string, rows ...[]string) *resultFile {
	return &resultFile{
		Name: "rotation", Trials: 3, Provenance: []string{provenance},
		Tables: []Table{{Name: "rotation", Header: append([]string{"model"}, append(tableIIIColumns, "nodes")...), Rows: rows}},
	}
}

// TestTableIIIVerdicts: a figure within the tolerance matches, beyond it
// differs (better or worse as the measure goes), a missing model cannot be
// tested, and results on rotated MNIST are not compared.
func TestTableIIIVerdicts(t *testing.T) {
	rows := [][]string{
		{"RVFL", "95.15 ± 0.1", "80.90 ± 0.5", "99.76", "95.64", "7.51", "12.20 ± 0.10", "1800"}, // PPA15 te +0.93, RMSE te +0.16: match
		{"SCN", "99.84", "85.00", "99.98", "98.08", "4.57", "10.40 ± 0.2", "1800"},               // PPA15 te -2.19 worse, RMSE te +0.32 worse
		{"2DSCN", "99.88", "87.55", "100.00", "98.12", "4.00", "9.96", "1800"},                   // RMSE tr -0.42: better
	}
	var b strings.Builder
	tableIII(&b, rotationResult("MATLAB ... /x/matlab-digits/DigitsDataTrain.mat (XTrain, anglesTrain)", rows...))
	out := b.String()
	for _, want := range []string{
		"| RVFL | test PPA15 (%) | 79.97 | 80.90 ± 0.5 | +0.93 | matches |",
		"| RVFL | test RMSE (deg) | 12.04 | 12.20 ± 0.10 | +0.16 | matches |",
		"| SCN | test PPA15 (%) | 87.19 | 85.00 | -2.19 | differs: worse |",
		"| SCN | test RMSE (deg) | 10.08 | 10.40 ± 0.2 | +0.32 | differs: worse |",
		"| 2DSCN | train RMSE (deg) | 4.42 | 4.00 | -0.42 | differs: better |",
		"| 2DRVFL | test RMSE (deg) | 11.91 | missing | | cannot be tested |",
		"3 trials on MATLAB's rotated digits",
		"15 of 18 figures match.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	b.Reset()
	tableIII(&b, rotationResult("MNIST (LeCun, Cortes, Burges), training set", rows...))
	if out := b.String(); !strings.Contains(out, "not comparable with Table III") || strings.Contains(out, "| matches |") || !strings.Contains(out, "0 of 18 figures match") {
		t.Errorf("rotated MNIST compared with Table III:\n%s", out)
	}
}

// TestTablesIandIIVerdicts: Monte Carlo agreement, and the paper's 8% rows
// are its 6% rows (the exact M2 tail at 6% is the paper's figure).
func TestTablesIandIIVerdicts(t *testing.T) {
	for _, c := range []struct {
		a, b float64
		ok   bool
	}{
		{0.1136, 0.1131, true}, {0.0164, 0.0160, true}, {0, 3.0e-5, true}, {0, 0, true},
		{5.8e-4, 0.0047, false}, {0.0032, 0.2838, false}, {math.NaN(), 0, false},
	} {
		if agreeMC(c.a, c.b) != c.ok {
			t.Errorf("agreeMC(%v, %v) = %v", c.a, c.b, !c.ok)
		}
	}
	note := sixPercentNote("case1_uniform", "0.01", 0.2838)
	if !strings.Contains(note, "exact M2 tail 0.2850 at 6%, 0.0031 at 8%") {
		t.Errorf("note %q", note)
	}
	row := func(eps, p, m1, m2, m3 string) []string {
		return []string{eps, p, m1, "", "", "", m2, "", "", "", m3, "", ""}
	}
	r := &resultFile{Tables: []Table{{Name: "case1_uniform", Rows: [][]string{
		row("0.01", "8%", "0", "0.00323", "0.2318"),
		row("0.01", "10%", "0", "0", "0.1136"),
	}}}}
	var b strings.Builder
	tablesIandII(&b, r)
	out := b.String()
	for _, want := range []string{
		"| 1 uniform | 8% | 0.01 | 0.4022 / 0.2838 / 0 | 0.2318 / 0.0032 / 0 | differs (M3, M2); the paper's 8% row matches p = 6%",
		"| 1 uniform | 10% | 0.01 | 0.1131 / 0 / 0 | 0.1136 / 0 / 0 | matches |",
		"| 1 uniform | 15% | 0.001 | 0 / 0 / 0 | missing | cannot be tested |",
		"1 of 2 rows match.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if fmtPaperProb(4.6e-4) != "4.6e-4" || fmtPaperProb(0.28379) != "0.2838" || fmtPaperProb(0) != "0" {
		t.Errorf("fmtPaperProb: %s %s", fmtPaperProb(4.6e-4), fmtPaperProb(0.28379))
	}
}
