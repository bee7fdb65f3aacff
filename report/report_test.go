package report

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/palette/moreland"
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

// near reports whether two colours differ by at most tol in every channel.
func near(c color.Color, want color.RGBA, tol int) bool {
	r, g, b, _ := c.RGBA()
	d := func(x uint32, y uint8) bool { return abs(int(x>>8)-int(y)) <= tol }
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// over returns colour c with opacity a drawn on white.
func over(c color.RGBA, a float64) color.RGBA {
	f := func(v uint8) uint8 { return uint8(math.Round(255 + (float64(v)-255)*a)) }
	return color.RGBA{f(c.R), f(c.G), f(c.B), 0xff}
}

// TestRenderInBrowser renders a page with one plot of each kind in headless
// Chromium and checks the screenshot shows them: the series colours of the
// lines and bars, the translucent mean ± std bands in the series' own
// colour, both ends of the heat map's palette, and the table's header. It
// skips when no Chromium is installed.
func TestRenderInBrowser(t *testing.T) {
	if _, err := Browser(); err != nil {
		t.Skip(err)
	}
	figs := samplePlots(t)
	dir := t.TempDir()
	page := Page{Title: "Rendering", Command: "go test", Seed: 1, Versions: CurrentVersions("gonum"), Hardware: CurrentHardware(),
		Tables:  []Table{{Name: "t", Title: "A table", Header: []string{"model", "acc"}, Rows: [][]string{{"2DSCN", "0.95"}}}},
		Figures: figs}
	html := filepath.Join(dir, "report.html")
	if err := Write(html, page); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "report.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const w, h = 1200, 3400
	img, err := ScreenshotImage(ctx, html, shot, w, h)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("screenshot is %v, want %d x %d", b, w, h)
	}
	pal := moreland.SmoothBlueRed()
	pal.SetMin(-1)
	pal.SetMax(1)
	lo, _ := pal.At(-1)
	hi, _ := pal.At(1)
	rgba := func(c color.Color) color.RGBA {
		r, g, b, _ := c.RGBA()
		return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff}
	}
	checks := []struct {
		what  string
		color color.RGBA
		tol   int
		least int
	}{
		{"red series (lines, boxes, bars)", colors[0], 10, 300},
		{"blue series (lines, boxes, bars)", colors[1], 10, 300},
		{"red mean ± std band", over(colors[0], 0x40/255.0), 6, 2000},
		{"blue mean ± std band", over(colors[1], 0x40/255.0), 6, 2000},
		{"heat map, negative end", rgba(lo), 12, 300},
		{"heat map, positive end", rgba(hi), 12, 300},
		{"table header", color.RGBA{0xf0, 0xf0, 0xf0, 0xff}, 0, 300},
		{"text", color.RGBA{0x22, 0x22, 0x22, 0xff}, 40, 2000},
	}
	b := img.Bounds()
	for _, c := range checks {
		n := 0
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if near(img.At(x, y), c.color, c.tol) {
					n++
				}
			}
		}
		if n < c.least {
			t.Errorf("%s: %d pixels near %v, want at least %d", c.what, n, c.color, c.least)
		} else {
			t.Logf("%s: %d pixels", c.what, n)
		}
	}
	if os.Getenv("REPORT_SCREENSHOT") != "" {
		b, _ := os.ReadFile(shot)
		os.WriteFile(os.Getenv("REPORT_SCREENSHOT"), b, 0o644)
	}
}

func TestPlotFontEmbeddedOnce(t *testing.T) {
	b, err := Render(Page{Title: "x", Figures: samplePlots(t)})
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if n := strings.Count(doc, "@font-face"); n != 1 {
		t.Fatalf("%d @font-face rules, want 1", n)
	}
	if !strings.Contains(doc, `font-family:"Liberation Serif";src:url(data:font/ttf;base64,`) ||
		!strings.Contains(doc, "font-family:Liberation Serif") {
		t.Error("the page does not embed the font its SVG text names")
	}
	// A page without figures does not carry the font.
	b, err = Render(Page{Title: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "@font-face") {
		t.Error("font embedded in a page without figures")
	}
}

func TestSVGColoursAreValid(t *testing.T) {
	// Every fill and stroke colour is #RRGGBB: a translucent colour built
	// as a non-premultiplied color.RGBA used to come out as "#3549B9F".
	re := regexp.MustCompile(`(?:fill|stroke):#([0-9A-Fa-f]*)`)
	for _, f := range samplePlots(t) {
		for _, m := range re.FindAllStringSubmatch(string(f.SVG), -1) {
			if len(m[1]) != 6 {
				t.Errorf("%s: colour #%s", f.Name, m[1])
			}
		}
	}
}

func TestDecadeTicks(t *testing.T) {
	ticks := decadeTicks{}.Ticks(1e-14, 1)
	var labels []string
	for _, tk := range ticks {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if len(ticks) != 15 || strings.Join(labels, " ") != "1e-12 1e-9 1e-6 0.001 1" {
		t.Errorf("%d ticks, labels %v", len(ticks), labels)
	}
	ticks = decadeTicks{}.Ticks(0.01, 10)
	labels = labels[:0]
	for _, tk := range ticks {
		labels = append(labels, tk.Label)
	}
	if strings.Join(labels, " ") != "0.01 0.1 1 10" {
		t.Errorf("labels %v", labels)
	}
	if _, err := ScatterLogX("x", "", "", []Points{{Name: "a", X: []float64{1e-14, 0, -1, 1}, Y: []float64{1, 2, 3, 4}}}); err != nil {
		t.Error(err)
	}
}
