// Command pareto draws the plots of bench/pareto.csv with the project's
// report package (gonum/plot), one marker set per learner: per data set,
// test accuracy against fit time (pareto-<data>.svg) and, for the rows that
// give their parameter count, against parameters (pareto-<data>-params.svg):
//
//	go run ./bench/pareto bench/pareto.csv bench
//
// The CSV has a header and the columns data, learner, nodes, fit_s, cpu_s,
// test_acc (percent) and, optionally, params (empty where unknown);
// bench/pareto.sh writes it. Lines starting with # are comments (the
// commands of rows added by hand), and a row with an empty fit_s (a time
// taken on a loaded machine, not comparable) is drawn against parameters
// only.
package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/scn2d/scn/internal/atomicfile"
	"github.com/scn2d/scn/report"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: pareto FILE.csv OUTDIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "pareto:", err)
		os.Exit(1)
	}
}

func run(in, outDir string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	rd := csv.NewReader(f)
	rd.Comment = '#'
	rows, err := rd.ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if len(rows) < 2 || (len(rows[0]) != 6 && len(rows[0]) != 7) {
		return fmt.Errorf("%s: want a header and rows of data,learner,nodes,fit_s,cpu_s,test_acc[,params]", in)
	}
	type key struct{ data, learner string }
	var datas []string
	order := map[string][]string{}
	pts := map[key]*report.Points{}    // accuracy against time
	params := map[key]*report.Points{} // accuracy against parameters
	for i, r := range rows[1:] {
		fit, err1 := strconv.ParseFloat(r[3], 64)
		acc, err2 := strconv.ParseFloat(r[5], 64)
		if r[3] == "" {
			err1 = nil
		}
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%s: row %d: fit time %q or accuracy %q is not a number", in, i+2, r[3], r[5])
		}
		k := key{r[0], r[1]}
		if _, ok := order[r[0]]; !ok {
			datas = append(datas, r[0])
		}
		if pts[k] == nil {
			pts[k] = &report.Points{Name: r[1]}
			order[r[0]] = append(order[r[0]], r[1])
		}
		if r[3] != "" {
			pts[k].X = append(pts[k].X, fit)
			pts[k].Y = append(pts[k].Y, acc)
		}
		if len(r) == 7 && r[6] != "" {
			n, err := strconv.ParseFloat(r[6], 64)
			if err != nil || !(n > 0) {
				return fmt.Errorf("%s: row %d: parameter count %q is not a positive number", in, i+2, r[6])
			}
			if params[k] == nil {
				params[k] = &report.Points{Name: r[1]}
			}
			params[k].X = append(params[k].X, n)
			params[k].Y = append(params[k].Y, acc)
		}
	}
	for _, d := range datas {
		var sets, psets []report.Points
		for _, l := range order[d] {
			if len(pts[key{d, l}].X) > 0 {
				sets = append(sets, *pts[key{d, l}])
			}
			if p := params[key{d, l}]; p != nil {
				psets = append(psets, *p)
			}
		}
		if err := plot(filepath.Join(outDir, "pareto-"+d+".svg"), d+": test accuracy against fit time", "fit time (s, log scale)", sets); err != nil {
			return err
		}
		if len(psets) > 0 {
			if err := plot(filepath.Join(outDir, "pareto-"+d+"-params.svg"), d+": test accuracy against parameters", "parameters (log scale)", psets); err != nil {
				return err
			}
		}
	}
	return nil
}

// plot writes one scatter plot of accuracy against a log-scale x to out.
func plot(out, title, xlabel string, sets []report.Points) error {
	svg, err := report.ScatterLogX(title, xlabel, "test accuracy (%)", sets)
	if err != nil {
		return err
	}
	if err := writeAtomic(out, svg); err != nil {
		return err
	}
	fmt.Println("wrote", out)
	return nil
}

// writeAtomic writes b to path atomically (internal/atomicfile).
func writeAtomic(path string, b []byte) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
