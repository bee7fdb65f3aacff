package experiment

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The paper's figures that SPEC.md (section 6) quotes, set beside this
// project's in REPRODUCTION.md: E1's Table III and E6's Tables I-II.

// paperTableIII is Table III (E1, L = 1800, mean of 50 trials): PPA15 train
// and test, PPA25 train and test (%), RMSE train and test (degrees).
var paperTableIII = map[string][6]float64{
	"RVFL":   {95.15, 79.97, 99.76, 95.64, 7.51, 12.04},
	"SCN":    {99.84, 87.19, 99.98, 98.08, 4.57, 10.08},
	"2DRVFL": {95.59, 81.05, 99.78, 95.72, 7.32, 11.91},
	"2DSCN":  {99.88, 87.55, 100, 98.12, 4.42, 9.96},
}

// tableIIIColumns are the rotation table's headers of Table III's columns,
// in its order.
var tableIIIColumns = []string{"train PPA15 (%)", "test PPA15 (%)", "train PPA25 (%)", "test PPA25 (%)", "train RMSE (deg)", "test RMSE (deg)"}

// Tolerances of a match with Table III: 0.2 degrees of RMSE (issue 32's
// target) and one point of PPA.
const (
	rmseTolerance = 0.2
	ppaTolerance  = 1.0
)

// paperTablesIandII are Tables I (case 1, uniform) and II (case 2, normal):
// for each p, the estimates at eps = 0.001, 0.005, 0.01 as M3 / M2 / M1.
var paperTablesIandII = map[string]map[string][3][3]float64{
	"case1_uniform": {
		"8%":  {{0.0047, 0, 0}, {0.1338, 2.0e-5, 0}, {0.4022, 0.2838, 0}},
		"10%": {{1.1e-4, 0, 0}, {0.0160, 0, 0}, {0.1131, 0, 0}},
		"12%": {{3.0e-5, 0, 0}, {0.0045, 0, 0}, {0.0497, 0, 0}},
		"15%": {{0, 0, 0}, {6.7e-4, 0, 0}, {0.0126, 0, 0}},
	},
	"case2_normal": {
		"8%":  {{0.0011, 0, 0}, {0.0445, 0, 0}, {0.1781, 4.6e-4, 0}},
		"10%": {{1.0e-5, 0, 0}, {0.0025, 0, 0}, {0.0248, 0, 0}},
		"12%": {{0, 0, 0}, {3.8e-4, 0, 0}, {0.0071, 0, 0}},
		"15%": {{0, 0, 0}, {2.0e-5, 0, 0}, {9.2e-4, 0, 0}},
	},
}

// e6Draws is the number of draws behind both the paper's and the
// project's estimates.
const e6Draws = 100000

// paperFigures renders the section of REPRODUCTION.md that sets the
// paper's figures beside the project's.
func paperFigures(results map[string]*resultFile) string {
	var b strings.Builder
	b.WriteString("## The paper's figures beside this project's\n\n")
	b.WriteString("The figures SPEC.md (section 6) quotes from the paper, each beside this project's mean ± std over its trials and a verdict.\n\n")
	if r := results["rotation"]; r != nil {
		tableIII(&b, r)
	}
	if r := results["smallweights"]; r != nil {
		tablesIandII(&b, r)
	}
	return b.String()
}

// rotationOnPaperData reports whether an E1 result used the paper's own
// data (the MATLAB digits), not rotated MNIST.
func rotationOnPaperData(r *resultFile) bool {
	for _, p := range r.Provenance {
		if strings.Contains(p, "DigitsDataTrain.mat") {
			return true
		}
	}
	return false
}

func tableIII(b *strings.Builder, r *resultFile) {
	t := r.table("rotation")
	if t == nil {
		return
	}
	paperData := rotationOnPaperData(r)
	data := "MATLAB's rotated digits, the paper's own data"
	if !paperData {
		data = "rotated MNIST, standing in for the paper's data (the MATLAB digits were not in the data folder): not comparable with Table III"
	}
	fmt.Fprintf(b, "### E1, Table III (L = 1800; the paper: mean of 50 trials)\n\nThis project: %d trials on %s. A figure matches when it is within %.1f degrees of RMSE or %.0f point of PPA of the paper's.\n\n", r.Trials, data, rmseTolerance, ppaTolerance)
	var rows strings.Builder
	matched, total := 0, 0
	col := map[string]int{}
	for i, h := range t.Header {
		col[h] = i
	}
	for _, k := range []string{"RVFL", "SCN", "2DRVFL", "2DSCN"} {
		cells := rowCells(t, k)
		for i, h := range tableIIIColumns {
			paper := paperTableIII[k][i]
			ci, ok := col[h]
			if cells == nil || !ok || ci < 1 || ci-1 >= len(cells) {
				fmt.Fprintf(&rows, "| %s | %s | %.2f | missing | | cannot be tested |\n", k, h, paper)
				continue
			}
			m, _, ok := cellStat(cells[ci-1])
			if !ok {
				fmt.Fprintf(&rows, "| %s | %s | %.2f | %s | | cannot be tested |\n", k, h, paper, cells[ci-1])
				continue
			}
			d := m - paper
			rmse := strings.Contains(h, "RMSE")
			tol := ppaTolerance
			if rmse {
				tol = rmseTolerance
			}
			verdict := "matches"
			switch {
			case !paperData:
				verdict = "not comparable (other data)"
			case math.Abs(d) > tol+1e-9:
				better := (rmse && d < 0) || (!rmse && d > 0)
				verdict = "differs: worse"
				if better {
					verdict = "differs: better"
				}
			}
			total++
			if verdict == "matches" {
				matched++
			}
			fmt.Fprintf(&rows, "| %s | %s | %.2f | %s | %+.2f | %s |\n", k, h, paper, cells[ci-1], d, verdict)
		}
	}
	fmt.Fprintf(b, "%d of %d figures match.\n\n", matched, total)
	b.WriteString("| model | measure | the paper | this project | project - paper | verdict |\n|---|---|---|---|---|---|\n")
	b.WriteString(rows.String())
	if paperData {
		b.WriteString("\nWhy SCN and 2DSCN stay behind Table III: the paper preset draws a node's candidates once per scale and reuses them for every r, as the authors' released SCN code does (an independent implementation of that code gives these figures); the paper's Algorithm 1 as SPEC.md states it draws new candidates for every (scale, r) pair (`scn train --redraw`), and gives Table III within 0.2 for SCN and 2DSCN: docs/e1-gap.md.\n")
	}
	b.WriteString("\n")
}

func tablesIandII(b *strings.Builder, r *resultFile) {
	b.WriteString("### E6, Tables I-II (100,000 draws; M3 / M2 / M1, i.e. w2D / w(1D-P) / w)\n\n")
	b.WriteString("An estimate matches when it is within 4 Monte Carlo errors of the paper's (the binomial error of two estimates of 100,000 draws each, at least that of one event in 100,000).\n\n")
	var rows strings.Builder
	matched, total := 0, 0
	for _, c := range []struct{ name, title string }{{"case1_uniform", "1 uniform"}, {"case2_normal", "2 normal"}} {
		t := r.table(c.name)
		if t == nil {
			continue
		}
		for _, p := range []string{"8%", "10%", "12%", "15%"} {
			for ei, eps := range []string{"0.001", "0.005", "0.01"} {
				paper := paperTablesIandII[c.name][p][ei]
				var row []string
				for _, rw := range t.Rows {
					if len(rw) >= 13 && rw[0] == eps && rw[1] == p {
						row = rw
					}
				}
				ps := fmt.Sprintf("%s / %s / %s", fmtPaperProb(paper[0]), fmtPaperProb(paper[1]), fmtPaperProb(paper[2]))
				if row == nil {
					fmt.Fprintf(&rows, "| %s | %s | %s | %s | missing | cannot be tested |\n", c.title, p, eps, ps)
					continue
				}
				var ours [3]float64
				bad := []string{}
				for i, ci := range []int{10, 6, 2} { // M3, M2, M1 sim
					v, err := strconv.ParseFloat(row[ci], 64)
					if err != nil {
						v = math.NaN()
					}
					ours[i] = v
					if !agreeMC(v, paper[i]) {
						bad = append(bad, []string{"M3", "M2", "M1"}[i])
					}
				}
				os := fmt.Sprintf("%s / %s / %s", fmtPaperProb(ours[0]), fmtPaperProb(ours[1]), fmtPaperProb(ours[2]))
				verdict := "matches"
				if len(bad) > 0 {
					verdict = "differs (" + strings.Join(bad, ", ") + ")"
					if p == "8%" {
						verdict += "; " + sixPercentNote(c.name, eps, paper[1])
					}
				}
				total++
				if verdict == "matches" {
					matched++
				}
				fmt.Fprintf(&rows, "| %s | %s | %s | %s | %s | %s |\n", c.title, p, eps, ps, os, verdict)
			}
		}
	}
	fmt.Fprintf(b, "%d of %d rows match.\n\n", matched, total)
	b.WriteString("| case | p | eps | the paper | this project | verdict |\n|---|---|---|---|---|---|\n")
	b.WriteString(rows.String())
	b.WriteString("\n")
}

// agreeMC reports whether two estimates from e6Draws draws each agree
// within 4 Monte Carlo errors.
func agreeMC(a, b float64) bool {
	if math.IsNaN(a) {
		return false
	}
	p := math.Max((a+b)/2, 1.0/e6Draws)
	se := math.Sqrt(2 * p * (1 - p) / e6Draws)
	return math.Abs(a-b) <= 4*se+1e-12
}

// sixPercentNote compares the paper's M2 figure of an 8% row with the
// exact M2 tail at p = 6%: the paper's 8% rows match p = 6%.
func sixPercentNote(name, eps string, paperM2 float64) string {
	e, _ := strconv.ParseFloat(eps, 64)
	dist := Uniform
	if name == "case2_normal" {
		dist = Normal
	}
	const d = 28 * 28
	at6 := binomialTail(d, smallProbM2(dist, e), minCount(0.06, d))
	at8 := binomialTail(d, smallProbM2(dist, e), minCount(0.08, d))
	return fmt.Sprintf("the paper's 8%% row matches p = 6%%: exact M2 tail %s at 6%%, %s at 8%% (the paper: %s)", fmtPaperProb(at6), fmtPaperProb(at8), fmtPaperProb(paperM2))
}

// fmtPaperProb writes a probability as the paper does: 0, four decimals,
// or two significant digits in scientific notation below 1e-3.
func fmtPaperProb(x float64) string {
	switch {
	case math.IsNaN(x):
		return "?"
	case x == 0:
		return "0"
	case x < 1e-3:
		return strings.Replace(strconv.FormatFloat(x, 'e', 1, 64), "e-0", "e-", 1)
	}
	return strconv.FormatFloat(x, 'f', 4, 64)
}
