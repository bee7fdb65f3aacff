// Package report writes self-contained HTML reports of experiments: the
// exact command, seed, data provenance, software versions, hardware, elapsed
// time, tables, notes and plots embedded as inline SVG (made with gonum/plot).
//
// A report.html needs nothing beside it: no scripts, style sheets, fonts or
// images are fetched (the plots' font is embedded once per page). Screenshot
// (or report/screenshot.sh) renders one in headless Chromium.
package report

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
)

// Table is a titled grid of cells. Header names the columns; every row of
// Rows should have as many cells.
type Table struct {
	// Name is a short identifier, used for the table's CSV file name.
	Name string `json:"name"`
	// Title is shown above the table.
	Title string `json:"title"`
	// Header holds the column names.
	Header []string `json:"header"`
	// Rows holds the cells, already formatted as text.
	Rows [][]string `json:"rows"`
	// Caption, if not empty, is shown under the table.
	Caption string `json:"caption,omitempty"`
}

// Figure is a plot: an SVG document and words about it.
type Figure struct {
	// Name is a short identifier, used for the figure's SVG file name.
	Name string `json:"name"`
	// Title is shown above the figure.
	Title string `json:"title"`
	// Caption, if not empty, is shown under the figure.
	Caption string `json:"caption,omitempty"`
	// File is the name of a copy of the SVG written beside the report (if any).
	File string `json:"file,omitempty"`
	// SVG is the figure itself. It is embedded in the HTML and left out of JSON.
	SVG []byte `json:"-"`
}

// Versions records the software that produced a result.
type Versions struct {
	Go     string `json:"go"`               // Go toolchain version, e.g. "go1.26.8"
	Module string `json:"module"`           // main module path and version (or "(devel)")
	VCS    string `json:"vcs,omitempty"`    // VCS revision of the build, when known
	Linalg string `json:"linalg,omitempty"` // linear-algebra backend, as given by the caller
}

// Hardware records the machine that produced a result.
type Hardware struct {
	CPUs     int    `json:"cpus"`      // runtime.NumCPU
	MaxProcs int    `json:"maxprocs"`  // runtime.GOMAXPROCS(0)
	OS       string `json:"os"`        // runtime.GOOS
	Arch     string `json:"arch"`      // runtime.GOARCH
	CPUModel string `json:"cpu_model"` // from /proc/cpuinfo when present
}

// CurrentVersions returns the running program's versions; linalg names the
// linear-algebra backend (the caller knows it, this package does not).
func CurrentVersions(linalg string) Versions {
	v := Versions{Go: runtime.Version(), Module: "unknown", Linalg: linalg}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.Module = strings.TrimSpace(bi.Main.Path + " " + bi.Main.Version)
		if bi.Main.Path == "" {
			v.Module = "(unknown main module)"
		}
		var rev, mod string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				mod = s.Value
			}
		}
		if rev != "" {
			v.VCS = rev
			if mod == "true" {
				v.VCS += " (modified)"
			}
		}
	}
	return v
}

// CurrentHardware describes the machine the program runs on.
func CurrentHardware() Hardware {
	return Hardware{
		CPUs:     runtime.NumCPU(),
		MaxProcs: runtime.GOMAXPROCS(0),
		OS:       runtime.GOOS,
		Arch:     runtime.GOARCH,
		CPUModel: cpuModel(),
	}
}

// cpuModel reads the first "model name" line of /proc/cpuinfo.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// Page is everything a report shows.
type Page struct {
	Title      string
	Command    string   // the exact command line that produced the result
	Seed       uint64   // the base seed
	Provenance []string // where the data came from, one line each
	Versions   Versions
	Hardware   Hardware
	Elapsed    time.Duration
	Generated  time.Time // when the result was made; zero means now
	Tables     []Table
	Figures    []Figure
	Notes      []string // plain statements, e.g. that a data set is a substitute
}

var pageTmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body{font-family:sans-serif;max-width:1100px;margin:1.5em auto;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.6em 0}
th,td{border:1px solid #bbb;padding:.25em .6em;text-align:right;font-variant-numeric:tabular-nums}
th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}
td{white-space:nowrap}.tbl{overflow-x:auto}
dl.meta{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}
dl.meta dt{font-weight:bold}dl.meta dd{margin:0}
code{background:#f4f4f4;padding:0 .2em;word-break:break-all}
figure{margin:1em 0}figcaption,.caption{font-size:.9em;color:#555}
.svg svg{max-width:100%;height:auto}
{{.FontFace}}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<dl class="meta">
<dt>Command</dt><dd><code>{{.Command}}</code></dd>
<dt>Seed</dt><dd>{{.Seed}}</dd>
<dt>Generated</dt><dd>{{.Generated}}</dd>
<dt>Elapsed</dt><dd>{{.Elapsed}}</dd>
<dt>Go</dt><dd>{{.Versions.Go}}</dd>
<dt>Module</dt><dd>{{.Versions.Module}}{{if .Versions.VCS}} ({{.Versions.VCS}}){{end}}</dd>
<dt>Linear algebra</dt><dd>{{if .Versions.Linalg}}{{.Versions.Linalg}}{{else}}unknown{{end}}</dd>
<dt>Hardware</dt><dd>{{.Hardware.CPUModel}}; {{.Hardware.CPUs}} CPUs (GOMAXPROCS {{.Hardware.MaxProcs}}); {{.Hardware.OS}}/{{.Hardware.Arch}}</dd>
</dl>
{{if .Provenance}}<h2>Data</h2>
<ul>{{range .Provenance}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Notes}}<h2>Notes</h2>
<ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{range .Tables}}<h2>{{.Title}}</h2>
<div class="tbl"><table>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}
<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}
</tbody>
</table></div>
{{if .Caption}}<p class="caption">{{.Caption}}</p>{{end}}
{{end}}
{{range .Figures}}<h2>{{.Title}}</h2>
<figure>
<div class="svg">{{.Inline}}</div>
{{if .Caption}}<figcaption>{{.Caption}}</figcaption>{{end}}
</figure>
{{end}}
</body>
</html>
`))

// plotFontCSS returns an @font-face rule that embeds the plots' font (the
// SVG documents name it but do not carry it). Without it a browser that
// lacks the font draws the plots' text in another one, whose wider glyphs
// overrun the places gonum/plot measured for them (cut tick labels,
// overlapping legends). One copy serves every figure of a page.
var plotFontCSS = sync.OnceValues(func() (template.CSS, error) {
	face := font.DefaultCache.Lookup(plot.DefaultFont, 12)
	if face.Face == nil {
		return "", fmt.Errorf("report: the plots' font %v is not available", plot.DefaultFont.Typeface)
	}
	var nb sfnt.Buffer
	family, err := face.Face.Name(&nb, sfnt.NameIDFamily)
	if err != nil {
		return "", fmt.Errorf("report: the plots' font: %w", err)
	}
	var raw bytes.Buffer
	if _, err := face.Face.WriteSourceTo(nil, &raw); err != nil {
		return "", fmt.Errorf("report: the plots' font: %w", err)
	}
	if strings.ContainsAny(family, `"\<>`) {
		return "", fmt.Errorf("report: unexpected font family name %q", family)
	}
	return template.CSS(fmt.Sprintf(`@font-face{font-family:"%s";src:url(data:font/ttf;base64,%s) format("truetype")}`,
		family, base64.StdEncoding.EncodeToString(raw.Bytes()))), nil
})

// figureView is a Figure with its SVG ready to inline.
type figureView struct {
	Figure
	Inline template.HTML
}

// inlineSVG strips an SVG document's XML prolog and comments before the
// <svg> element so that it can sit inside HTML.
func inlineSVG(svg []byte) (template.HTML, error) {
	i := bytes.Index(svg, []byte("<svg"))
	if i < 0 {
		return "", fmt.Errorf("report: figure is not an SVG document (no <svg> element)")
	}
	return template.HTML(svg[i:]), nil
}

// Render returns the page as a self-contained HTML document.
func Render(p Page) ([]byte, error) {
	if p.Generated.IsZero() {
		p.Generated = time.Now()
	}
	figs := make([]figureView, len(p.Figures))
	for i, f := range p.Figures {
		in, err := inlineSVG(f.SVG)
		if err != nil {
			return nil, fmt.Errorf("report: figure %q: %w", f.Title, err)
		}
		figs[i] = figureView{Figure: f, Inline: in}
	}
	var fontFace template.CSS
	if len(figs) > 0 {
		var err error
		if fontFace, err = plotFontCSS(); err != nil {
			return nil, err
		}
	}
	data := struct {
		Page
		Generated string
		Elapsed   string
		Figures   []figureView
		FontFace  template.CSS
	}{p, p.Generated.UTC().Format(time.RFC3339), p.Elapsed.Round(time.Millisecond).String(), figs, fontFace}
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return buf.Bytes(), nil
}

// Write renders the page and writes it to path atomically: to a temporary
// file in the same folder, then renamed over path.
func Write(path string, p Page) error {
	b, err := Render(p)
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, b)
}

// WriteFileAtomic writes b to a temporary file beside path and renames it
// to path, so that readers never see a half-written file.
func WriteFileAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return werr
	}
	return nil
}
