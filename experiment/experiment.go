// Package experiment runs the experiments of the 2DSCN paper (Li & Wang,
// "Two Dimensional Stochastic Configuration Networks for Image Data
// Analytics": E1 rotation-angle regression, E2 digits, E3 faces, E4 the
// generalization indicator, E5 occlusion, E6 small-weights statistics, E7
// model size) and side-by-side comparisons of the four learners (Compare).
// The experiments read their data with package dataset and take the one
// data-set type, dataset.Set.
//
// Every experiment writes OutDir/<name>/result.json (the Result), one CSV
// file per table, one SVG file per figure and a self-contained report.html.
// Everything is reproducible from Options.Seed: trial t uses seed Seed+t for
// its data split and for the learners.
package experiment

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/report"
)

// Options control a run of one or all experiments.
type Options struct {
	// DataDir is the folder holding mnist/, fashion-mnist/, orl_faces/ and
	// cvl-digits.tar.gz. Empty means "../shared/data".
	DataDir string
	// OutDir is where results go: OutDir/<name>/{result.json, *.csv,
	// *.svg, report.html}. Empty means "results".
	OutDir string
	// Trials is the number of repetitions; 0 means the paper's count (or
	// the quick protocol's count when Quick is set).
	Trials int
	// Quick selects a scaled-down protocol (fewer samples, smaller L, fewer
	// trials) that finishes in minutes. It keeps the paper's T_max, scale
	// list and r list.
	Quick bool
	// Seed is the base seed: trial t uses Seed+t.
	Seed uint64
	// Log receives progress lines; nil means io.Discard.
	Log io.Writer
	// Command is the exact command line, recorded in reports.
	Command string
	// Fresh fits every trial again instead of reading the records an
	// earlier run with the same OutDir left (OutDir/trials; see resume.go).
	Fresh bool
	// Jobs is how many trials are fitted at a time; 0 means one per
	// processor (GOMAXPROCS). Every fit draws from its own seed, so results
	// do not depend on it; fit times are wall times under that load. Most
	// fits of the paper's protocol keep one core busy (the supervised
	// learners' per-node least squares), so on 2 cores 2 jobs nearly halve a
	// run.
	Jobs int
}

// jobs is Options.Jobs with 0 resolved.
func (o Options) jobs() int {
	if o.Jobs > 0 {
		return o.Jobs
	}
	return runtime.GOMAXPROCS(0)
}

// DefaultDataDir is the data folder used when Options.DataDir is empty.
const DefaultDataDir = "../shared/data"

// DefaultOutDir is the output folder used when Options.OutDir is empty.
const DefaultOutDir = "results"

func (o Options) withDefaults() Options {
	if o.DataDir == "" {
		o.DataDir = DefaultDataDir
	}
	if o.OutDir == "" {
		o.OutDir = DefaultOutDir
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o
}

// trials returns o.Trials, or paper when it is 0 (quick when Quick is set).
func (o Options) trials(paper, quick int) int {
	switch {
	case o.Trials > 0:
		return o.Trials
	case o.Quick:
		return quick
	}
	return paper
}

// sizes are an experiment's data and model sizes under one protocol.
type sizes struct {
	train, test int // images drawn per trial (test 0: the whole test set)
	maxL        int // L_max of the one fit per trial
	trials      int
}

// protocolSizes are an experiment's sizes under the paper's protocol and
// under --quick.
type protocolSizes struct{ paper, quick sizes }

// sizes returns p's quick sizes under o.Quick and its paper sizes
// otherwise, with the trial count of o.trials, and records the trial count
// in r.
func (o Options) sizes(r *Result, p protocolSizes) sizes {
	s := p.paper
	if o.Quick {
		s = p.quick
	}
	s.trials = o.trials(p.paper.trials, p.quick.trials)
	r.Trials = s.trials
	return s
}

func (o Options) logf(format string, a ...any) {
	fmt.Fprintf(o.Log, format+"\n", a...)
}

// Table is a titled grid of formatted cells (see report.Table).
type Table = report.Table

// Figure is a plot as SVG with a title and caption (see report.Figure).
type Figure = report.Figure

// Result is what an experiment produced. It is JSON-serialisable; figures'
// SVG documents are written to files beside result.json, not into it.
type Result struct {
	Name       string          `json:"name"`  // short name, e.g. "rotation"
	Title      string          `json:"title"` // e.g. "E1: rotation angle regression"
	Command    string          `json:"command,omitempty"`
	Seed       uint64          `json:"seed"`
	Trials     int             `json:"trials"`
	Quick      bool            `json:"quick"`
	Protocol   []string        `json:"protocol"` // the protocol actually run, one line per setting
	Tables     []Table         `json:"tables"`
	Figures    []Figure        `json:"figures"`
	Notes      []string        `json:"notes"`
	Provenance []string        `json:"provenance"` // where the data came from
	Versions   report.Versions `json:"versions"`
	Hardware   report.Hardware `json:"hardware"`
	Started    time.Time       `json:"started"`
	Elapsed    time.Duration   `json:"elapsed_ns"`
	Seconds    float64         `json:"elapsed_seconds"`
	// Values holds the experiment's key numbers by name (e.g.
	// "2dscn/test_acc/mean"), for programs that read result.json.
	Values map[string]float64 `json:"values,omitempty"`
	// Parts holds the results of the experiments run by "all".
	Parts []*Result `json:"parts,omitempty"`
	// Dir is the folder the result was written to.
	Dir string `json:"dir,omitempty"`
}

func (r *Result) protocol(format string, a ...any) {
	r.Protocol = append(r.Protocol, fmt.Sprintf(format, a...))
}

func (r *Result) note(format string, a ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, a...))
}

func (r *Result) value(name string, v float64) {
	if r.Values == nil {
		r.Values = map[string]float64{}
	}
	r.Values[name] = v
}

func (r *Result) addFigure(name, title, caption string, svg []byte, err error) error {
	if err != nil {
		return fmt.Errorf("experiment %s: figure %s: %w", r.Name, name, err)
	}
	r.Figures = append(r.Figures, Figure{Name: name, Title: title, Caption: caption, SVG: svg})
	return nil
}

// experiment is one entry of the registry.
type experiment struct {
	name, id, title string
	run             func(ctx context.Context, o Options, r *Result) error
}

var registry = []experiment{
	{"rotation", "e1", "E1: rotation angle of handwritten digits (regression)", runRotation},
	{"digits", "e2", "E2: handwritten digits and Fashion-MNIST (classification)", runDigits},
	{"faces", "e3", "E3: face recognition on ORL", runFaces},
	{"indicator", "e4", "E4: generalization indicator Theta on ORL", runIndicator},
	{"robustness", "e5", "E5: robustness to occlusion on ORL", runRobustness},
	{"smallweights", "e6", "E6: small-weights statistics (simulation)", runSmallWeights},
	{"size", "e7", "E7: model size, 2D versus 1D", runSize},
}

// Names returns the experiments' names in order: rotation (E1), digits
// (E2), faces (E3), indicator (E4), robustness (E5), smallweights (E6),
// size (E7). Run also accepts the aliases e1..e7 and "all".
func Names() []string {
	out := make([]string, len(registry))
	for i, e := range registry {
		out[i] = e.name
	}
	return out
}

// Describe returns an experiment's title (for help texts), or "" if the
// name is unknown.
func Describe(name string) string {
	if e, ok := lookup(name); ok {
		return e.title
	}
	return ""
}

func lookup(name string) (experiment, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, e := range registry {
		if n == e.name || n == e.id {
			return e, true
		}
	}
	return experiment{}, false
}

// Run runs the named experiment (or "all", every one in order) and writes
// its outputs under o.OutDir. For "all" it returns a summary Result whose
// Parts are the experiments' results; an experiment that fails is reported
// in the summary and the others still run, and the first error is returned.
func Run(ctx context.Context, name string, o Options) (*Result, error) {
	o = o.withDefaults()
	if strings.EqualFold(strings.TrimSpace(name), "all") {
		return runAll(ctx, o)
	}
	e, ok := lookup(name)
	if !ok {
		return nil, fmt.Errorf("experiment: unknown experiment %q (want one of %s, e1..e7 or all)", name, strings.Join(Names(), ", "))
	}
	return runOne(ctx, e, o)
}

func newResult(name, title string, o Options) *Result {
	return &Result{
		Name: name, Title: title, Command: o.Command, Seed: o.Seed, Quick: o.Quick,
		Versions: report.CurrentVersions(linalg.Backend()),
		Hardware: report.CurrentHardware(),
		Started:  time.Now().UTC(),
		Tables:   []Table{}, Figures: []Figure{}, Notes: []string{}, Provenance: []string{}, Protocol: []string{},
	}
}

func runOne(ctx context.Context, e experiment, o Options) (*Result, error) {
	r := newResult(e.name, e.title, o)
	if j := o.jobs(); j > 1 {
		r.note("Trials ran %d at a time (Options.Jobs, --jobs): fit times are wall times with %d fits side by side; the results do not depend on it.", j, j)
	}
	if o.Quick {
		r.note("Quick protocol: scaled down (fewer samples, smaller L, fewer trials) to finish fast; the paper's T_max, scale list and r list are kept. Numbers are not the paper's protocol.")
	}
	o.logf("== %s: %s", e.name, e.title)
	start := time.Now()
	err := e.run(ctx, o, r)
	r.Elapsed = time.Since(start)
	r.Seconds = r.Elapsed.Seconds()
	if err != nil {
		return r, err
	}
	if err := r.write(filepath.Join(o.OutDir, e.name)); err != nil {
		return r, err
	}
	o.logf("== %s done in %v -> %s", e.name, r.Elapsed.Round(time.Millisecond), filepath.Join(r.Dir, "report.html"))
	return r, nil
}

func runAll(ctx context.Context, o Options) (*Result, error) {
	all := newResult("all", "All experiments", o)
	start := time.Now()
	tab := Table{Name: "summary", Title: "Experiments run", Header: []string{"experiment", "title", "status", "seconds", "report"}}
	var first error
	for _, e := range registry {
		if err := ctx.Err(); err != nil {
			if first == nil {
				first = err
			}
			break
		}
		r, err := runOne(ctx, e, o)
		status := "ok"
		if err != nil {
			status = "failed: " + err.Error()
			o.logf("== %s failed: %v", e.name, err)
			if first == nil {
				first = err
			}
		}
		secs := ""
		if r != nil {
			secs = fmt.Sprintf("%.1f", r.Seconds)
			all.Parts = append(all.Parts, r)
			all.Provenance = appendUnique(all.Provenance, r.Provenance...)
		}
		tab.Rows = append(tab.Rows, []string{e.name, e.title, status, secs, filepath.Join("..", e.name, "report.html")})
	}
	all.Tables = append(all.Tables, tab)
	all.Elapsed = time.Since(start)
	all.Seconds = all.Elapsed.Seconds()
	if err := all.write(filepath.Join(o.OutDir, "all")); err != nil && first == nil {
		first = err
	}
	return all, first
}

func appendUnique(list []string, more ...string) []string {
	for _, m := range more {
		found := false
		for _, l := range list {
			if l == m {
				found = true
				break
			}
		}
		if !found {
			list = append(list, m)
		}
	}
	return list
}

// write saves result.json, the tables as CSV, the figures as SVG and
// report.html into dir.
func (r *Result) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	r.Dir = dir
	for i := range r.Tables {
		t := &r.Tables[i]
		if t.Name == "" {
			t.Name = fmt.Sprintf("table%d", i+1)
		}
		var sb strings.Builder
		w := csv.NewWriter(&sb)
		w.Write(t.Header)
		w.WriteAll(t.Rows)
		if err := w.Error(); err != nil {
			return err
		}
		if err := report.WriteFileAtomic(filepath.Join(dir, t.Name+".csv"), []byte(sb.String())); err != nil {
			return err
		}
	}
	for i := range r.Figures {
		f := &r.Figures[i]
		if f.Name == "" {
			f.Name = fmt.Sprintf("figure%d", i+1)
		}
		f.File = f.Name + ".svg"
		if err := report.WriteFileAtomic(filepath.Join(dir, f.File), f.SVG); err != nil {
			return err
		}
	}
	// JSON: also keep the Parts' SVGs out (they are in their own folders).
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := report.WriteFileAtomic(filepath.Join(dir, "result.json"), append(b, '\n')); err != nil {
		return err
	}
	notes := r.Notes
	if len(r.Protocol) > 0 {
		notes = append([]string{"Protocol: " + strings.Join(r.Protocol, "; ")}, notes...)
	}
	return report.Write(filepath.Join(dir, "report.html"), report.Page{
		Title: r.Title, Command: r.Command, Seed: r.Seed, Provenance: r.Provenance,
		Versions: r.Versions, Hardware: r.Hardware, Elapsed: r.Elapsed, Generated: r.Started,
		Tables: r.Tables, Figures: r.Figures, Notes: notes,
	})
}
