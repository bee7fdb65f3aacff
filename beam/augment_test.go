package scnbeam

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

// TestPipelineAugmentedPlaces: an augmented local recipe's statistics sum
// each image's copies as drawn for its place in the whole input
// (scn.Model.StatsFrom from the shards' places, Places), so that the
// pipeline gives the statistics of all the images at once within 1e-9
// relative, whether the files are the shards or are cut into ranges of 70
// images; the places are the images before each shard; summed each from
// place 0 (the shards' own copies), the cut shards' statistics differ.
func TestPipelineAugmentedPlaces(t *testing.T) {
	train, _, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{dir: t.TempDir()}
	c := scn.Paper(scn.RVFL2D)
	c.Activation, c.Ridge, c.Scales = scn.ReLU, 0.5, []float64{1}
	c.Local = &scn.Local{Sizes: []int{5}, Filters: 4, Stride: 2, Pad: scn.PadSame, Pool: 2, Pooling: scn.PoolAvg, TwoSided: true, Standardize: true}
	c.Augment = &scn.Augment{Shift: 2, Copies: 1}
	prob, err := train.Subset(seq(0, 200)).Problem()
	if err != nil {
		t.Fatal(err)
	}
	if f.model, err = c.Fit(context.Background(), prob, nil); err != nil {
		t.Fatal(err)
	}
	f.recipe = filepath.Join(f.dir, "recipe.scn")
	if err := f.model.Save(f.recipe); err != nil {
		t.Fatal(err)
	}
	all := &dataset.Set{Rows: 28, Cols: 28, Classes: train.Classes}
	lo := 0
	for i, k := range []int{90, 60, 100} {
		s := train.Subset(seq(lo, lo+k))
		f.write(t, i, s)
		all.Pix, all.Labels = append(all.Pix, s.Pix...), append(all.Labels, s.Labels...)
		lo += k
	}
	wp, err := all.Problem()
	if err != nil {
		t.Fatal(err)
	}
	whole, err := f.model.Stats(wp)
	if err != nil {
		t.Fatal(err)
	}
	shards, err := Match(f.glob(), MatchOptions{ShardImages: 70})
	if err != nil {
		t.Fatal(err)
	}
	if err := Places(shards); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{0, 70, 90, 150, 220} {
		if shards[i].First != want {
			t.Fatalf("shard %d (%s) placed at %d, want %d", i, shards[i].Name(), shards[i].First, want)
		}
	}
	for _, mo := range []MatchOptions{{}, {ShardImages: 70}} {
		got, err := f.run(t, Options{Tile: 16, Out: filepath.Join(f.dir, fmt.Sprintf("s%d.scnstats", mo.ShardImages))}, mo)
		if err != nil {
			t.Fatal(err)
		}
		st := readStats(t, got)
		if st.N != whole.N {
			t.Fatalf("shards of %d: N = %d, want %d (copies included)", mo.ShardImages, st.N, whole.N)
		}
		for _, p := range [][2][]float64{{st.G, whole.G}, {st.HT, whole.HT}, {st.TT, whole.TT}} {
			if d := relDiff(p[0], p[1]); !(d <= 1e-9) {
				t.Errorf("shards of %d: sums differ from the whole input's by %.3g relative", mo.ShardImages, d)
			}
		}
	}
	// Each range summed as if it were the whole set: other copies.
	var merged *scn.Stats
	for _, sh := range shards {
		set, err := Read(sh, f.model)
		if err != nil {
			t.Fatal(err)
		}
		p, err := set.Problem()
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.model.Stats(p)
		if err != nil {
			t.Fatal(err)
		}
		if merged == nil {
			merged = st
		} else if merged, err = merged.Merge(st); err != nil {
			t.Fatal(err)
		}
	}
	if d := relDiff(merged.G, whole.G); !(d > 1e-6) {
		t.Errorf("ranges summed from place 0 agree with the whole input (%.3g): the test cannot tell", d)
	}
}
