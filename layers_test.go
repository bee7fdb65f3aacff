package scn

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The layers of the root package, bottom to top (docs/design.md): a file
// may use the functions and methods of its own layer and of the layers
// below, never those of a layer above. Types, constants and variables are
// the shared vocabulary and are not checked; calls (and method values)
// are. internal/lsq, below every root file, is a package of its own: the
// compiler keeps it from calling up.
const (
	layerBase     = iota // hyper-parameters, data, activations, small helpers
	layerNode            // node maps and draws
	layerResult          // the fitted model: prediction, prefixes, the file
	layerDriver          // the fits: builders, engines' drivers, streams
	layerWorkflow        // selection, budgets, statistics, updates, estimates
)

var layerNames = []string{"base", "node", "result", "driver", "workflow"}

// layerOf places every non-test file of the root package in its layer;
// docs/design.md lists the same. A new file must be added here.
var layerOf = map[string]int{
	"activation.go":    layerBase,
	"config.go":        layerBase,
	"doc.go":           layerBase,
	"kind.go":          layerBase,
	"metrics.go":       layerBase,
	"parallel.go":      layerBase,
	"preprocessing.go": layerBase,
	"problem.go":       layerBase,

	"node_draw.go": layerNode,
	"node_map.go":  layerNode,

	"format.go":        layerResult,
	"calibrate.go":     layerResult,
	"calib_metrics.go": layerResult,
	"classweight.go":   layerWorkflow,
	"model_local.go":   layerResult,
	"config_local.go":  layerBase,
	"info.go":          layerResult,
	"model.go":         layerResult,
	"path.go":          layerResult,
	"predictor.go":     layerResult,

	"deep.go":                    layerDriver,
	"drive_block.go":             layerDriver,
	"drive_onepass.go":           layerDriver,
	"drive_opts.go":              layerDriver,
	"drive_stream_supervised.go": layerDriver,
	"fit.go":                     layerDriver,
	"fit_local.go":               layerDriver,
	"direct.go":                  layerResult,
	"stream.go":                  layerDriver,
	"stream_local.go":            layerDriver,
	"local_whiten.go":            layerDriver,

	"budget.go":        layerWorkflow,
	"grow.go":          layerWorkflow,
	"memory.go":        layerWorkflow,
	"robust.go":        layerResult,
	"select.go":        layerWorkflow,
	"stats.go":         layerWorkflow,
	"stream_select.go": layerWorkflow,
	"update.go":        layerWorkflow,
	"online.go":        layerWorkflow,
	"online_frozen.go": layerWorkflow,
	"select_local.go":  layerWorkflow,
	"select_calib.go":  layerWorkflow,
	"local_calib.go":   layerWorkflow,
	"direct_select.go": layerDriver,
	"select_grow.go":   layerWorkflow,
	"budget_local.go":  layerWorkflow,

	"budget_photo_probe.go": layerWorkflow,

	"preset_photos.go": layerBase,

	// Issue 30: files split from larger ones (one concept a file) and
	// policy moved out of cmd/scn.
	"select_split.go":   layerWorkflow,
	"select_eval.go":    layerWorkflow,
	"select_normal.go":  layerWorkflow,
	"select_size.go":    layerWorkflow,
	"stats_factor.go":   layerWorkflow,
	"stats_format.go":   layerWorkflow,
	"stats_local.go":    layerWorkflow,
	"memory_shrink.go":  layerWorkflow,
	"memory_stream.go":  layerWorkflow,
	"model_deep.go":     layerResult,
	"config_layers.go":  layerBase,
	"format_budget.go":  layerResult,
	"stop.go":           layerBase,
	"augment_config.go": layerBase,
	"shape.go":          layerBase,
	"estimate.go":       layerWorkflow,
	"estimate_stats.go": layerWorkflow,
	"grow_update.go":    layerWorkflow,
	"grow_serve.go":     layerWorkflow,
}

// upwardCalls are the calls up the layers the code makes today, as
// "file -> callee (its file)", each with its reason: debts of files that
// mix layers. None is left (issue 30 paid the last four: Model.Robust is
// a result-layer solve, a streamed fit's memory estimate is in
// memory_stream.go, the block size a file records in format.go). The list
// may only shrink: a call up that is not in it fails the test.
var upwardCalls = map[string]bool{}

// TestFilesCallDownTheLayers reads the identifiers each non-test file of
// the root package uses (type-checked without its imports: only the root
// package's own functions and methods matter) and fails on a call to a
// function or method declared in a file of a higher layer that
// upwardCalls does not list, and on a file no layer holds.
func TestFilesCallDownTheLayers(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		if _, ok := layerOf[n]; !ok {
			t.Errorf("%s is in no layer: add it to layerOf (layers_test.go) and to docs/design.md", n)
		}
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for n := range layerOf {
		if !containsString(names, n) {
			t.Errorf("layerOf holds %s, which is not a file of the package any more", n)
		}
	}
	// Imported packages are left empty: uses of their names are type
	// errors, ignored; the root package's own objects still resolve.
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: emptyImporter{}, Error: func(error) {}}
	pkg, _ := conf.Check("github.com/scn2d/scn", fset, files, info)
	seen := map[string]bool{}
	var bad []string
	for id, obj := range info.Uses {
		fn, ok := obj.(*types.Func)
		if !ok || fn.Pkg() != pkg {
			continue
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(fn.Pos()).Filename)
		if layerOf[to] <= layerOf[from] {
			continue
		}
		key := fmt.Sprintf("%s -> %s (%s)", from, fn.Name(), to)
		seen[key] = true
		if !upwardCalls[key] {
			bad = append(bad, fmt.Sprintf("%s: %s, a %s file, calls up to %s in %s, a %s file",
				fset.Position(id.Pos()), from, layerNames[layerOf[from]], fn.Name(), to, layerNames[layerOf[to]]))
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
	var paid []string
	for k := range upwardCalls {
		if !seen[k] {
			paid = append(paid, k)
		}
	}
	sort.Strings(paid)
	for _, k := range paid {
		t.Logf("upwardCalls lists %q, which the code no longer makes: remove it", k)
	}
}

// emptyImporter gives every import as an empty package.
type emptyImporter struct{}

func (emptyImporter) Import(path string) (*types.Package, error) {
	name := path[strings.LastIndex(path, "/")+1:]
	if strings.HasPrefix(name, "v") && strings.Contains(path, "/rand/") {
		name = "rand" // math/rand/v2
	}
	p := types.NewPackage(path, name)
	p.MarkComplete()
	return p, nil
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
