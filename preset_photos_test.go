package scn

import (
	"bytes"
	"context"
	"reflect"
	"testing"
)

// TestForPhotosKeepsDigits: on grey images of at most 40 x 40 (digits, the
// golden problems' 10 x 8) the photo policy returns the default and fast
// presets' configurations of every learner exactly, and a fit of the
// returned configuration gives the same model bytes; so do the paper's
// preset, custom settings, deep layers and local nodes already chosen on
// colour images.
func TestForPhotosKeepsDigits(t *testing.T) {
	kinds := []Kind{SCN2D, SCN, RVFL2D, RVFL}
	for _, k := range kinds {
		for _, c := range []Config{Default(k), Fast(k)} {
			for _, sh := range [][3]int{{28, 28, 1}, {40, 40, 1}, {10, 8, 1}, {16, 100, 1}} {
				got, changed := c.ForPhotos(60000, sh[0], sh[1], sh[2])
				if changed || !reflect.DeepEqual(got, c) {
					t.Errorf("%s %s on %v: changed %v, %+v", c.Preset, k.Title(), sh, changed, got)
				}
			}
		}
		paper := Paper(k)
		custom := Default(k)
		custom.Preset = "custom"
		deep := Fast(k)
		deep.Layers = []int{100}
		loc := Default(k)
		loc.Local = DefaultLocal()
		direct := Default(k)
		direct.DirectLink = true // local nodes have none yet
		for _, c := range []Config{paper, custom, deep, loc, direct} {
			if got, changed := c.ForPhotos(5522, 30, 30, 3); changed || !reflect.DeepEqual(got, c) {
				t.Errorf("%s (%s) on colour photos: changed %v", c.Preset, k.Title(), changed)
			}
		}
	}
	p := goldenGrey(t, 60)
	c := small(Default(SCN2D), 30, 10, p)
	got, _ := c.ForPhotos(p.X.Len(), p.X.Rows, p.X.Cols, p.X.Chans())
	if !bytes.Equal(fitBytes(t, c, p), fitBytes(t, got, p)) {
		t.Error("the policy's configuration on grey 10 x 8 images fits other bytes")
	}
}

// TestForPhotosColour: on colour images, and on grey images larger than
// 40 x 40, the default and fast presets choose 2DRVFL with local nodes of
// PhotoLocal's geometry, ridge 100, ReLU, keeping the seed and the preset's
// name; the configuration is valid, fits and predicts with local nodes.
func TestForPhotosColour(t *testing.T) {
	for _, k := range []Kind{SCN2D, SCN, RVFL2D, RVFL} {
		for _, base := range []Config{Default(k), Fast(k)} {
			base.Seed = 7
			for _, sh := range [][3]int{{30, 30, 3}, {12, 10, 3}, {112, 92, 1}, {64, 64, 4}} {
				c, changed := base.ForPhotos(5522, sh[0], sh[1], sh[2])
				if !changed || c.Kind != RVFL2D || c.Local == nil || c.Ridge != PhotoRidge || c.Activation != ReLU ||
					c.Seed != 7 || c.Preset != base.Preset || c.Differences || c.Standardize || c.Pairs || c.FieldMax != 0 ||
					!reflect.DeepEqual(c.Scales, []float64{1}) || c.MaxNodes != c.Local.Outputs() {
					t.Fatalf("%s %s on %v: changed %v, %+v", base.Preset, k.Title(), sh, changed, c)
				}
				want := DefaultLocal()
				want.Filters = PhotoFilters(5522, sh[0], sh[1], sh[2])
				want.Whiten, want.WhitenEps = true, PhotoWhitenEps
				if !reflect.DeepEqual(c.Local, want) {
					t.Errorf("%v: local nodes %s, want %s", sh, c.Local, want)
				}
				if err := c.Validate(); err != nil {
					t.Errorf("%v: %v", sh, err)
				}
			}
		}
	}
	p := goldenColour(t, 12)
	c, changed := Default(SCN2D).ForPhotos(p.X.Len(), p.X.Rows, p.X.Cols, p.X.Chans())
	if !changed {
		t.Fatal("colour images: no local nodes")
	}
	if c.Local.Filters != 64*p.X.Len()/c.Local.PerFilter() {
		t.Errorf("%d images: %d filters, want at most 64 pooled outputs per image", p.X.Len(), c.Local.Filters)
	}
	m, err := c.Fit(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.Local == nil || m.Nodes() != c.Local.Outputs() {
		t.Errorf("fitted %d nodes, local %v", m.Nodes(), m.Config.Local)
	}
	// Images the local nodes cannot be applied to (a 3 x 3 pool grid on a
	// map of 2 x 2) keep the preset's choice.
	if _, changed := Default(SCN2D).ForPhotos(100, 2, 2, 3); changed {
		t.Error("2 x 2 colour images: local nodes")
	}
}

// TestPhotoFilters: the filter count falls with the work (more images,
// larger images, more planes), stays within 32 ... 256 and within 64
// pooled outputs per image, and gives the measured choices: 128 on
// natural-images (5522 of 30 x 30 x 3), 256 on hymenoptera at 64 x 64
// (245 images).
func TestPhotoFilters(t *testing.T) {
	if f := PhotoFilters(5522, 30, 30, 3); f != 128 {
		t.Errorf("natural-images: %d filters, want 128", f)
	}
	if f := PhotoFilters(245, 64, 64, 3); f != 256 {
		t.Errorf("hymenoptera at 64 x 64: %d filters, want 256", f)
	}
	if f := PhotoFilters(1e6, 224, 224, 3); f != 32 {
		t.Errorf("a million large photos: %d filters, want the floor 32", f)
	}
	if f := PhotoFilters(3, 30, 30, 3); f != 64*3/18 {
		t.Errorf("3 images: %d filters, want %d", f, 64*3/18)
	}
	if f := PhotoFilters(1, 30, 30, 3); f != 3 {
		t.Errorf("1 image: %d filters", f)
	}
	prev := 1 << 30
	for n := 100; n <= 1<<20; n *= 2 {
		f := PhotoFilters(n, 32, 32, 3)
		if f > prev || f < 32 || f > 256 {
			t.Errorf("%d images: %d filters after %d", n, f, prev)
		}
		prev = f
		if g := PhotoFilters(n, 64, 64, 3); g > f {
			t.Errorf("%d images: %d filters on 64 x 64, %d on 32 x 32", n, g, f)
		}
		if g := PhotoFilters(n, 32, 32, 1); g < f {
			t.Errorf("%d images: %d filters on grey, %d on colour", n, g, f)
		}
	}
}
