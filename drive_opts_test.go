package scn

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestConfigHoldsNoRunOptions: Config holds hyper-parameters only: every
// field exported and none a function, channel, interface or pointer to
// anything but a struct of such fields (so
// that no run option, such as a Budget's stages or a selection's check,
// can ride along in it into a fitted Model); and models fitted with run
// options (a staged fit, selection with Patience, a deep network, and
// without -short a Budget's staged and block-by-block fits) hold no
// function anywhere.
func TestConfigHoldsNoRunOptions(t *testing.T) {
	var walkType func(path string, ty reflect.Type)
	walkType = func(path string, ty reflect.Type) {
		switch ty.Kind() {
		case reflect.Pointer:
			// An optional group of hyper-parameters (Config.Local) may be a
			// pointer to a struct, which must itself hold plain values.
			if ty.Elem().Kind() != reflect.Struct {
				t.Errorf("Config%s is a pointer to %v: Config must hold plain hyper-parameters", path, ty.Elem().Kind())
				return
			}
			walkType(path, ty.Elem())
		case reflect.Func, reflect.Chan, reflect.Interface, reflect.UnsafePointer, reflect.Map:
			t.Errorf("Config%s is a %v: Config must hold plain hyper-parameters", path, ty.Kind())
		case reflect.Slice, reflect.Array:
			walkType(path+"[]", ty.Elem())
		case reflect.Struct:
			for i := range ty.NumField() {
				f := ty.Field(i)
				if !f.IsExported() {
					t.Errorf("Config%s.%s is unexported: run options belong in runOpts, not in Config", path, f.Name)
				}
				walkType(path+"."+f.Name, f.Type)
			}
		}
	}
	walkType("", reflect.TypeOf(Config{}))

	models := map[string]*Model{}
	g := blobProblem(t, 200)
	c := Fast(RVFL)
	c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 40, 10, 2, 5
	path, err := c.fitPath(context.Background(), g, nil, runOpts{stages: func(int) int { return 20 }})
	if err != nil {
		t.Fatal(err)
	}
	models["staged"] = path.Model()
	if !testing.Short() {
		// A Budget's fits on a fake clock: block by block with its
		// watch, and on a large set in stages (slow under emulation).
		p := noisyProblem(t, 600)
		models["budget (block by block)"], _ = budgetRun(t, p, budgetSeconds(p, 300), 2)
		large := noisyProblem(t, budgetLargeSet)
		models["budget (staged)"], _ = budgetRun(t, large, budgetSeconds(large, 1500), 2)
		if r := models["budget (staged)"].Budget; !r.Plan.FitWeights || r.Plan.Kind != RVFL {
			t.Fatalf("the large budget planned %+v, not the staged fast RVFL", r.Plan)
		}
	}
	c = Default(RVFL2D)
	c.MaxNodes, c.BlockSize = 60, 10
	m, err := c.Select(context.Background(), g, Selection{Validation: 0.25, Patience: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	models["selection with patience"] = m
	c = Default(SCN2D)
	c.MaxNodes, c.BlockSize, c.Layers = 20, 10, []int{8}
	models["deep"] = fitT(t, c, g)
	for name, m := range models {
		if where := findFunc(reflect.ValueOf(m), "Model", map[uintptr]bool{}); where != "" {
			t.Errorf("%s: the fitted model holds a function at %s", name, where)
		}
	}
}

// findFunc returns the path of the first non-nil function reachable from
// v, or "".
func findFunc(v reflect.Value, path string, seen map[uintptr]bool) string {
	switch v.Kind() {
	case reflect.Func:
		if !v.IsNil() {
			return path
		}
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return ""
		}
		if v.Kind() == reflect.Pointer {
			if seen[v.Pointer()] {
				return ""
			}
			seen[v.Pointer()] = true
		}
		return findFunc(v.Elem(), path, seen)
	case reflect.Struct:
		for i := range v.NumField() {
			if w := findFunc(v.Field(i), path+"."+v.Type().Field(i).Name, seen); w != "" {
				return w
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() != reflect.Struct && v.Type().Elem().Kind() != reflect.Pointer &&
			v.Type().Elem().Kind() != reflect.Func && v.Type().Elem().Kind() != reflect.Interface {
			return "" // numbers and strings
		}
		for i := range v.Len() {
			if w := findFunc(v.Index(i), path+"[]", seen); w != "" {
				return w
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if w := findFunc(it.Value(), path+"{}", seen); w != "" {
				return w
			}
		}
	}
	return ""
}

// TestFitMode: Config.mode is the one dispatch: each kind of configuration
// takes its driver (run options included), and no file but drive_opts.go
// asks the predicates it is made of (onePass, onePassWith) on its own.
func TestFitMode(t *testing.T) {
	ridge := func(c Config, r float64) Config { c.Ridge = r; return c }
	layers := Default(SCN)
	layers.Layers = []int{10}
	local := localConfig(RVFL2D)
	for _, tc := range []struct {
		name string
		c    Config
		o    runOpts
		want fitMode
	}{
		{"paper 2dscn", Paper(SCN2D), runOpts{}, modeOneNode},
		{"paper rvfl with a ridge", ridge(Paper(RVFL), 1), runOpts{}, modeOneNode},
		{"default 2dscn", Default(SCN2D), runOpts{}, modeBlock},
		{"default 2drvfl", ridge(Default(RVFL2D), 1), runOpts{}, modeOnePass},
		{"default 2drvfl block by block", ridge(Default(RVFL2D), 1), runOpts{blockByBlock: true}, modeBlock},
		{"default 2drvfl without a ridge", ridge(Default(RVFL2D), 0), runOpts{}, modeBlock},
		{"fast rvfl", Fast(RVFL), runOpts{}, modeOnePass},
		{"layers", layers, runOpts{}, modeDeep},
		{"local", local, runOpts{}, modeLocal},
		{"local block by block", local, runOpts{blockByBlock: true}, modeLocal},
	} {
		if got := tc.c.mode(tc.o); got != tc.want {
			t.Errorf("%s: mode %v, want %v", tc.name, got, tc.want)
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "drive_opts.go" || f == "drive_onepass.go" {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range []string{"onePassWith(", ".onePass()"} {
			if strings.Contains(string(src), call) {
				t.Errorf("%s calls %s: ask Config.mode instead", f, call)
			}
		}
	}
}
