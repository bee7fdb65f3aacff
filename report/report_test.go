package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// samplePlots makes one plot of each kind.
func samplePlots(t *testing.T) []Figure {
	t.Helper()
	band, err := BandPlot("Accuracy vs L", "L", "accuracy", []Series{
		{Name: "2DSCN", X: []float64{10, 20, 30}, Mean: []float64{0.5, 0.7, 0.8}, Std: []float64{0.02, 0.01, 0.01}},
		{Name: "RVFL", X: []float64{10, 20, 30}, Mean: []float64{0.4, 0.6, 0.7}, Std: []float64{0.03, 0.02, 0.01}, Dashed: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	box, err := BoxPlot("Errors per digit", "digit", "|error|", []string{"0", "1", "2"}, []BoxSeries{
		{Name: "2DSCN", Groups: [][]float64{{1, 2, 3, 4, 20}, {2, 3}, {1}}},
		{Name: "2DRVFL", Groups: [][]float64{{2, 3, 4, 5}, {}, {3, 4, 5}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Scatter("Theta vs accuracy", "Theta", "accuracy", []Points{
		{Name: "2DSCN", X: []float64{0.1, 0.2}, Y: []float64{0.9, 0.95}},
		{Name: "SCN", X: []float64{0.5, 0.6}, Y: []float64{0.85, 0.8}},
	})
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float64, 28*28)
	for i := range v {
		v[i] = math.Sin(float64(i) / 7)
	}
	hm, err := HeatMap("A weight vector", 28, 28, v)
	if err != nil {
		t.Fatal(err)
	}
	bars, err := Bars("Model size", "bytes", []string{"L=100", "L=500"}, []BarSeries{
		{Name: "2D", Values: []float64{100, 500}}, {Name: "1D", Values: []float64{1000, 5000}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var figs []Figure
	for i, s := range [][]byte{band, box, sc, hm, bars} {
		figs = append(figs, Figure{Name: fmt.Sprintf("f%d", i), Title: fmt.Sprintf("Figure %d", i), SVG: s})
	}
	return figs
}

var voidElements = map[string]bool{"meta": true, "br": true, "hr": true, "img": true, "link": true, "input": true}

var tagRE = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9:-]*)([^>]*?)(/?)>`)

// checkBalanced checks that every element of an HTML document opened is
// closed, in order (void elements and self-closed SVG elements excepted),
// outside <style>.
func checkBalanced(doc string) error {
	var stack []string
	for _, m := range tagRE.FindAllStringSubmatch(doc, -1) {
		closing, name, self := m[1] == "/", strings.ToLower(m[2]), m[4] == "/"
		switch {
		case voidElements[name] || self:
		case closing:
			if len(stack) == 0 || stack[len(stack)-1] != name {
				return fmt.Errorf("</%s> closes %v", name, stack)
			}
			stack = stack[:len(stack)-1]
		default:
			stack = append(stack, name)
		}
	}
	if len(stack) != 0 {
		return fmt.Errorf("unclosed elements %v", stack)
	}
	return nil
}

func TestWritePage(t *testing.T) {
	figs := samplePlots(t)
	for _, f := range figs {
		// Each SVG is a well-formed XML document.
		d := xml.NewDecoder(bytes.NewReader(f.SVG))
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: SVG is not well-formed XML: %v", f.Name, err)
			}
		}
	}
	page := Page{
		Title:      "Test <report> & co",
		Command:    "scn experiment all --quick --seed 7",
		Seed:       7,
		Provenance: []string{"MNIST (LeCun et al.)"},
		Versions:   CurrentVersions("gonum"),
		Hardware:   CurrentHardware(),
		Elapsed:    1234 * time.Millisecond,
		Tables: []Table{{Name: "t", Title: "Accuracy", Header: []string{"model", "acc"},
			Rows: [][]string{{"2DSCN", "0.95"}, {"RVFL", "0.90"}}}},
		Figures: figs,
		Notes:   []string{"rotated MNIST replaces the toolbox's synthetic digits"},
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := Write(path, page); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if !strings.HasPrefix(doc, "<!DOCTYPE html>") {
		t.Error("no doctype")
	}
	if err := checkBalanced(doc); err != nil {
		t.Errorf("HTML not well-formed: %v", err)
	}
	if n := strings.Count(doc, "<svg"); n != len(figs) {
		t.Errorf("%d <svg> elements, want %d", n, len(figs))
	}
	for _, want := range []string{"scn experiment all --quick --seed 7", "Test &lt;report&gt; &amp; co", "rotated MNIST", "0.95", "gonum", "1.234s"} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"<?xml", "http://", "https://"} {
		// The only URLs allowed are the SVG namespace declarations.
		if bad != "<?xml" {
			doc2 := strings.ReplaceAll(strings.ReplaceAll(doc, "http://www.w3.org/2000/svg", ""), "http://www.w3.org/1999/xlink", "")
			if strings.Contains(doc2, bad) {
				t.Errorf("report refers to an outside resource (%s)", bad)
			}
			continue
		}
		if strings.Contains(doc, bad) {
			t.Errorf("report contains an XML prolog")
		}
	}
	if os.Getenv("REPORT_SAMPLE") != "" {
		os.WriteFile(os.Getenv("REPORT_SAMPLE"), b, 0o644)
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("%d files in the folder, want 1", len(ents))
	}
}

func TestPlotErrors(t *testing.T) {
	if _, err := BandPlot("x", "", "", []Series{{Name: "a", X: []float64{1}, Mean: []float64{1, 2}}}); err == nil {
		t.Error("mismatched series accepted")
	}
	if _, err := HeatMap("x", 2, 2, []float64{1}); err == nil {
		t.Error("short heat map accepted")
	}
	if _, err := Bars("x", "", []string{"a"}, []BarSeries{{Name: "a", Values: []float64{math.NaN()}}}); err == nil {
		t.Error("NaN bar accepted")
	}
}
