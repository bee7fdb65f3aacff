package scn

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// internalImports are the non-standard packages each computation package
// under internal/ may import, as its package doc says (the standard
// library is always allowed): the layers below the root package call
// down only, and never into the root package or a package above it (the
// compiler refuses the cycle for the root package itself; this test
// refuses dataset, serve, cmd, ... and a sideways import the doc does
// not name). A new package under internal/ of this kind must be added.
var internalImports = map[string][]string{
	"augment": nil,
	"calib":   {"internal/modelfile"},
	"holdout": {"internal/linalg", "internal/lsq", "internal/score"},
	"memest":  {"internal/lsq"},
	"timing":  {"internal/lsq"},
	"budget":  {"internal/kind", "internal/timing", "internal/holdout", "internal/modelfile"},
	"robust":  {"internal/lsq", "gonum.org/v1/gonum"},
	"direct":  {"internal/modelfile", "internal/linalg", "internal/lsq", "gonum.org/v1/gonum"},
	"node":    {"internal/linalg", "internal/lsq", "internal/par", "gonum.org/v1/gonum"},
	"lsq":     {"internal/linalg", "internal/par", "internal/bigmem", "gonum.org/v1/gonum"},
	"local":   {"internal/linalg", "internal/par", "gonum.org/v1/gonum"},
	"predict": {"internal/direct", "internal/linalg", "internal/lsq", "internal/node", "internal/par"},
	"deep":    {"internal/linalg", "internal/lsq", "internal/modelfile", "internal/node", "internal/par"},

	// The fitted layers of local nodes over the kernels of internal/local
	// (and the one configuration error, internal/cfgerr's).
	"localnet": {"internal/augment", "internal/cfgerr", "internal/drive", "internal/holdout", "internal/score", "internal/linalg", "internal/local", "internal/lsq", "internal/memest", "internal/node", "internal/par", "internal/modelfile", "gonum.org/v1/gonum"},
	"cfgerr":   nil,
	// The policy of local nodes on photos and grey images (the presets'
	// choice, a budget's plan, its probes' rules).
	"localplan": {"internal/local", "internal/localnet"},
	// The time budgets' workflows behind the root's adapter (the probes,
	// the plans, the fits under the clock, the records).
	"budgetflow": {"internal/budget", "internal/cfgerr", "internal/kind", "internal/localnet", "internal/localplan", "internal/timing"},

	// Large buffers (the pool only asked whether it runs in the background).
	"bigmem": {"internal/par"},
	"par":    nil,

	// Class weights' and predictions' scores' arithmetic (the standard
	// library only).
	"classweight": nil,
	"score":       nil,

	// The file formats' bytes (the standard library only).
	"modelfile": nil,
	"statsfile": {"internal/bigmem"},
	// The mapping of a model as plain data to its file and back, the
	// checks of a model and of statistics' recipes.
	"modelrec": {"internal/augment", "internal/calib", "internal/classweight", "internal/deep", "internal/direct", "internal/drive",
		"internal/kind", "internal/localnet", "internal/lsq", "internal/modelfile", "internal/node", "internal/statsfile", "internal/suffstats", "internal/atomicfile"},

	// Sufficient statistics' arithmetic and the online learner's state.
	"suffstats": {"internal/cfgerr", "internal/lsq", "internal/bigmem", "internal/memest", "internal/score", "internal/statsfile", "gonum.org/v1/gonum"},
	// The learners' vocabulary (the standard library only).
	"kind": nil,

	// The fit drivers' mechanism over plain data (steps, candidate
	// batches, block steps, one-pass outputs, pair scoring, streamed sums).
	"drive": {"internal/linalg", "internal/lsq", "internal/node", "internal/par", "gonum.org/v1/gonum"},

	// What streamed fits decide and sum over plain data (the specs, the
	// shards' shape, the first pass).
	"streamfit": {"internal/cfgerr", "internal/drive", "internal/local", "internal/localnet"},

	// The fit configuration's checks over plain data.
	"fitcfg": {"internal/augment", "internal/cfgerr", "internal/deep", "internal/kind", "internal/localnet", "internal/node"},

	// Model selection's machinery over plain data (the evaluator, the
	// fold loop, growth, the streamed and local selections' algebra).
	"selection": {"internal/direct", "internal/holdout", "internal/linalg", "internal/lsq", "internal/timing", "gonum.org/v1/gonum"},

	// The data sets the tests share (the standard library only).
	"fixtures": nil,
}

// TestInternalPackagesImportDown checks the imports of every non-test
// file of the packages internalImports lists against it.
func TestInternalPackagesImportDown(t *testing.T) {
	const module = "github.com/scn2d/scn/"
	for pkg, allowed := range internalImports {
		files, err := filepath.Glob(filepath.Join("internal", pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Errorf("internal/%s: no Go files (%v): remove it from internalImports", pkg, err)
			continue
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if !strings.Contains(strings.Split(path, "/")[0], ".") {
					continue // the standard library
				}
				rel := strings.TrimPrefix(path, module)
				ok := slices.ContainsFunc(allowed, func(a string) bool {
					return rel == a || strings.HasPrefix(rel, a+"/")
				})
				if !ok {
					t.Errorf("%s imports %s, which internal/%s's package doc does not allow", name, path, pkg)
				}
			}
		}
	}
}
