package report_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/scn2d/scn/report"
)

// A page with one table and one figure, written as a self-contained HTML
// file: the figure's SVG is inline and its font embedded, so the file
// shows the same anywhere.
func ExampleWrite() {
	svg, err := report.Bars("Model size", "KiB", []string{"L = 100", "L = 1000"}, []report.BarSeries{
		{Name: "2DSCN", Values: []float64{30, 301}},
		{Name: "SCN", Values: []float64{314, 3145}},
	})
	if err != nil {
		panic(err)
	}
	page := report.Page{
		Title:      "Model size",
		Command:    "scn experiment size",
		Seed:       1,
		Provenance: []string{"synthetic"},
		Versions:   report.CurrentVersions("gonum"),
		Hardware:   report.CurrentHardware(),
		Elapsed:    2 * time.Second,
		Tables: []report.Table{{Name: "size", Title: "Saved model files", Header: []string{"model", "L", "bytes"},
			Rows: [][]string{{"2DSCN", "100", "30855"}, {"SCN", "100", "322045"}}}},
		Figures: []report.Figure{{Name: "size", Title: "File size per model", SVG: svg}},
		Notes:   []string{"Output weights are float64, hidden weights float32."},
	}
	dir, err := os.MkdirTemp("", "scn-report-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "report.html")
	if err := report.Write(path, page); err != nil {
		panic(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	html := string(b)
	fmt.Println("title:", strings.Contains(html, "<title>Model size</title>"))
	fmt.Println("table rows:", strings.Count(html, "<tr>")-1)
	fmt.Println("inline SVG:", strings.Contains(html, "<svg"))
	// Output:
	// title: true
	// table rows: 2
	// inline SVG: true
}
