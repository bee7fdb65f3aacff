package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

// fixture writes two IDX shards of the built-in set and a 2DRVFL recipe.
func fixture(t *testing.T) (dir, recipe string, whole *scn.Stats) {
	t.Helper()
	train, _, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	idx := func(lo, hi int) []int {
		var out []int
		for i := lo; i < hi; i++ {
			out = append(out, i)
		}
		return out
	}
	c := scn.Paper(scn.RVFL2D)
	c.MaxNodes, c.Ridge = 40, 0.1
	prob, err := train.Subset(idx(0, 200)).Problem()
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Fit(context.Background(), prob, nil)
	if err != nil {
		t.Fatal(err)
	}
	recipe = filepath.Join(dir, "m.scn")
	if err := m.Save(recipe); err != nil {
		t.Fatal(err)
	}
	for i, r := range [][2]int{{0, 150}, {150, 400}} {
		s := train.Subset(idx(r[0], r[1]))
		name := filepath.Join(dir, "s"+string(rune('a'+i)))
		if err := dataset.WriteIDX(name+"-images.gz", name+"-labels.gz", s); err != nil {
			t.Fatal(err)
		}
	}
	all, err := train.Subset(idx(0, 400)).Problem()
	if err != nil {
		t.Fatal(err)
	}
	if whole, err = m.Stats(all); err != nil {
		t.Fatal(err)
	}
	return dir, recipe, whole
}

func TestStatsCommand(t *testing.T) {
	dir, recipe, whole := fixture(t)
	out, model := filepath.Join(dir, "out.scnstats"), filepath.Join(dir, "solved.scn")
	var w bytes.Buffer
	err := run([]string{"stats", "--input", filepath.Join(dir, "s*"), "--recipe", recipe, "-o", out, "--tile", "16", "--solve", model, "--ridge", "0.5", "--runner", "prism"}, &w)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.String(), "statistics of 400 images in 2 shards for 40 nodes") {
		t.Errorf("output %q", w.String())
	}
	st, err := scn.LoadStats(out)
	if err != nil {
		t.Fatal(err)
	}
	if st.N != whole.N || !slices.Equal(st.ClassCounts, whole.ClassCounts) {
		t.Fatalf("N %d, counts %v; want %d, %v", st.N, st.ClassCounts, whole.N, whole.ClassCounts)
	}
	for i := range st.G {
		if d := st.G[i] - whole.G[i]; d > 1e-9*whole.G[0] || -d > 1e-9*whole.G[0] {
			t.Fatalf("G[%d] = %v, the whole set's %v", i, st.G[i], whole.G[i])
		}
	}
	m, err := scn.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	want, err := st.Solve(0.5)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Beta, want.Beta) || m.Config.Ridge != 0.5 {
		t.Error("--solve --ridge 0.5 did not write the solve of the statistics")
	}
}

func TestStatsCommandErrors(t *testing.T) {
	dir, recipe, _ := fixture(t)
	notModel := filepath.Join(dir, "x.scn")
	if err := os.WriteFile(notModel, []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "s*")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "usage"},
		{[]string{"train"}, "usage"},
		{[]string{"stats", "--recipe", recipe, "-o", "x"}, "--input"},
		{[]string{"stats", "--input", in, "-o", "x"}, "--recipe"},
		{[]string{"stats", "--input", in, "--recipe", recipe}, "-o"},
		{[]string{"stats", "--input", in, "--recipe", recipe, "-o", "x", "--tile", "0"}, "--tile"},
		{[]string{"stats", "--input", in, "--recipe", recipe, "-o", "x", "--ridge", "-2"}, "--ridge"},
		{[]string{"stats", "--input", in, "--recipe", recipe, "-o", "x", "extra"}, "unexpected argument"},
		{[]string{"stats", "--input", in, "--recipe", recipe, "-o", "x", "--no-such-flag"}, "no-such-flag"},
		{[]string{"stats", "--input", in, "--recipe", notModel, "-o", "x"}, "x.scn"},
		{[]string{"stats", "--input", in, "--recipe", recipe, "-o", filepath.Join(dir, "no", "x")}, "folder does not exist"},
		{[]string{"stats", "--input", in, "--recipe", recipe, "-o", "x", "--solve", filepath.Join(dir, "no", "m.scn")}, "folder does not exist"},
		{[]string{"stats", "--input", filepath.Join(dir, "none*"), "--recipe", recipe, "-o", "x"}, "matches no data file"},
	} {
		err := run(c.args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}
