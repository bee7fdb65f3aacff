package scn

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/linalg/kernel"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden.json with this machine's model hashes")

// goldenCase is one fit whose saved bytes are pinned by testdata/golden.json,
// so that a refactoring that changes any model, by a single bit, fails.
type goldenCase struct {
	name   string
	n      int // training images
	cfg    func() Config
	prefix int // if > 0, the model's Prefix of that many nodes is pinned instead
	// bytes, if set, makes the pinned bytes itself (n, cfg and prefix are
	// then unused): the cases of pathCases.
	bytes func(t *testing.T) []byte
	// slow cases (a second or more, several under emulation) are left out
	// with -short: neither computed nor checked.
	slow bool
}

func goldenCases() []goldenCase {
	paper := func(k Kind, l int, edit func(*Config)) func() Config {
		return func() Config {
			c := Paper(k)
			c.MaxNodes = l
			if edit != nil {
				edit(&c)
			}
			return c
		}
	}
	return []goldenCase{
		{name: "2dscn", n: 300, cfg: paper(SCN2D, 40, nil)},
		{name: "scn", n: 300, cfg: paper(SCN, 40, nil)},
		{name: "2drvfl", n: 300, cfg: paper(RVFL2D, 100, nil)},
		{name: "rvfl", n: 300, cfg: paper(RVFL, 100, nil)},
		{name: "2drvfl-past-n", n: 60, cfg: paper(RVFL2D, 90, nil)},
		{name: "rvfl-past-n", n: 60, cfg: paper(RVFL, 90, nil)},
		{name: "2dscn-tanh-ridge", n: 300, cfg: paper(SCN2D, 30, func(c *Config) { c.Activation = Tanh; c.Ridge = 0.1; c.Seed = 3 })},
		{name: "scn-relu", n: 300, cfg: paper(SCN, 30, func(c *Config) { c.Activation = ReLU; c.Seed = 4 })},
		{name: "2dscn-stalls", n: 40, cfg: paper(SCN2D, 80, nil)},
		{name: "2dscn-prefix", n: 300, cfg: paper(SCN2D, 40, nil), prefix: 17},
		{name: "2drvfl-prefix", n: 300, cfg: paper(RVFL2D, 100, nil), prefix: 70},
	}
}

// allGoldenCases returns the paper path's cases and every other path's.
// With -short the slow ones are left out.
func allGoldenCases() []goldenCase {
	var cs []goldenCase
	for _, gc := range append(append(goldenCases(), pathCases()...), extensionCases()...) {
		if !gc.slow || !testing.Short() {
			cs = append(cs, gc)
		}
	}
	return cs
}

// goldenBytes returns the bytes case gc pins.
func goldenBytes(t *testing.T, gc goldenCase) []byte {
	t.Helper()
	if gc.bytes != nil {
		return gc.bytes(t)
	}
	p := blobProblem(t, gc.n)
	path, err := gc.cfg().FitPath(context.Background(), p, nil)
	if err != nil {
		t.Fatalf("%s: %v", gc.name, err)
	}
	m := path.Model()
	if gc.prefix > 0 {
		if m, err = path.Prefix(gc.prefix); err != nil {
			t.Fatalf("%s: %v", gc.name, err)
		}
	}
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatalf("%s: %v", gc.name, err)
	}
	return buf.Bytes()
}

// kernelVariant names the platform class a model's bits depend on (and
// only on): the project's scoring kernels this machine runs ("avx512",
// "avx2", or "generic" for the Go fallback of the purego build and of
// non-amd64 machines), the linear-algebra backend's class (gonum, or
// OpenBLAS with the core type whose kernels it picked by CPU model:
// linalg.Class), and the architecture (the Go compiler fuses x*y+z into
// one FMA on arm64, ppc64 and s390x, not on amd64). Golden hashes are
// pinned per class: "same bytes on any CPU" holds for the default and the
// purego build on amd64, and for the OpenBLAS build only within a core
// type.
func kernelVariant() string {
	k := "generic"
	switch {
	case kernel.Available512:
		k = "avx512"
	case kernel.Available:
		k = "avx2"
	}
	return k + "/" + linalg.Class() + "/" + runtime.GOARCH
}

// TestGoldenModelBytes pins the saved bytes of models of every kind and
// path for a fixed seed: the paper's one-node QR path (supervised and
// random, past N, ridge, other activations, prefixes: goldenCases) and
// every other (presets, block engine options, streams, deep, selection,
// budgets, statistics, updates, robust weights: pathCases), on grey and
// colour images, each in a subtest of its name. Behaviour-preserving changes must leave them unchanged;
// a deliberate change of the models regenerates the file with
// go test -run TestGoldenModelBytes -update-golden and says why in its commit.
func TestGoldenModelBytes(t *testing.T) {
	path := filepath.Join("testdata", "golden.json")
	want := map[string]map[string]string{}
	if raw, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	} else if !*updateGolden {
		t.Fatal(err)
	}
	variant := kernelVariant()
	got := map[string]string{}
	cases := allGoldenCases()
	seen := map[string]bool{}
	for _, gc := range cases {
		if seen[gc.name] {
			t.Fatalf("two golden cases named %s", gc.name)
		}
		seen[gc.name] = true
		t.Run(gc.name, func(t *testing.T) {
			sum := sha256.Sum256(goldenBytes(t, gc))
			got[gc.name] = hex.EncodeToString(sum[:])
		})
	}
	if t.Failed() {
		return
	}
	if *updateGolden {
		// Cases left out (slow ones under -short) keep their pinned
		// hashes; cases that no longer exist are dropped.
		set := map[string]string{}
		for _, gc := range append(append(goldenCases(), pathCases()...), extensionCases()...) {
			if h, ok := got[gc.name]; ok {
				set[gc.name] = h
			} else if h, ok := want[variant][gc.name]; ok {
				set[gc.name] = h
			}
		}
		want[variant] = set
		raw, err := json.MarshalIndent(want, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	pinned, ok := want[variant]
	if !ok {
		t.Skipf("no golden hashes for the platform class %s in %s; record them with -update-golden on such a machine", variant, path)
	}
	for _, gc := range cases {
		if w, ok := pinned[gc.name]; !ok {
			t.Errorf("%s: not in %s (record it with -update-golden)", gc.name, path)
		} else if got[gc.name] != w {
			t.Errorf("%s: model bytes changed on platform class %s (sha256 %s, pinned %s)", gc.name, variant, got[gc.name], w)
		}
	}
}

// TestGoldenVariantsNameTheirClass: every set of pinned hashes names a
// whole platform class (kernels, backend class, architecture), and an
// OpenBLAS set names the core type: a set pinned for "openblas" alone
// would claim bits that OpenBLAS's dispatch by CPU model does not keep.
func TestGoldenVariantsNameTheirClass(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pinned map[string]map[string]string
	if err := json.Unmarshal(raw, &pinned); err != nil {
		t.Fatal(err)
	}
	kernels := map[string]bool{"avx512": true, "avx2": true, "generic": true}
	for v := range pinned {
		parts := strings.Split(v, "/")
		switch {
		case len(parts) != 3 || !kernels[parts[0]] || parts[2] == "":
			t.Errorf("golden set %q: want kernels/backend-class/arch", v)
		case parts[1] != "gonum" && !strings.HasPrefix(parts[1], "openblas-"):
			t.Errorf("golden set %q: backend class %q is neither gonum nor openblas-<core type>", v, parts[1])
		case parts[1] == "openblas-":
			t.Errorf("golden set %q: OpenBLAS without its core type", v)
		}
	}
	if v := kernelVariant(); strings.Count(v, "/") != 2 {
		t.Errorf("this platform's class %q is not kernels/backend-class/arch", v)
	}
}
