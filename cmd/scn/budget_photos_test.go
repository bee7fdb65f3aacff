package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

// TestPhotoBudgetSizes: the sizes a photo budget compares (photoSizes):
// smaller ones made in memory for photos of one size, equal to reading
// them at that size; larger and smaller ones read again for a folder of
// mixed sizes; none with --resize given or for grey digits; and a model
// whose probe chose another size gets its training images at that size
// again (replayPhotoSize), the pixels the budget fitted.
func TestPhotoBudgetSizes(t *testing.T) {
	dir, _ := hueFolder(t, 60)
	d := &dataFlags{folder: dir}
	s, err := d.load("train", dataset.Preprocess{})
	if err != nil {
		t.Fatal(err)
	}
	sizes := d.photoSizes(s, dataset.Preprocess{}, false, 0, 60e9, io.Discard)
	if len(sizes) != 1 || sizes[0].set.Rows != 19 || sizes[0].set.Cols != 19 || sizes[0].prep.ResizeRows != 19 || sizes[0].prep.Fit != "pad" {
		t.Fatalf("28 x 28 photos: %d sizes %+v", len(sizes), sizes)
	}
	read, err := d.load("train", sizes[0].prep)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(read.Pix, sizes[0].set.Pix) {
		t.Fatal("the images resized in memory differ from those read at that size")
	}
	if d.photoSizes(s, dataset.Preprocess{}, true, 0, 60e9, io.Discard) != nil {
		t.Error("--resize given: sizes compared")
	}
	grey, err := d.load("train", dataset.Preprocess{Channels: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d.photoSizes(grey, dataset.Preprocess{Channels: 1}, false, 0, 60e9, io.Discard) != nil {
		t.Error("grey 28 x 28 digits: sizes compared")
	}

	// A model that chose 19 x 19: the replay's images are the budget's.
	m := &scn.Model{Local: &scn.LocalLayer{}}
	m.Preprocessing.ResizeRows, m.Preprocessing.ResizeCols, m.Preprocessing.Fit = 19, 19, "pad"
	again, q, err := d.replayPhotoSize(m, s, dataset.Preprocess{})
	if err != nil || again.Rows != 19 || q.ResizeRows != 19 || !slices.Equal(again.Pix, sizes[0].set.Pix) {
		t.Fatalf("replay's images: %v, %+v", err, q)
	}

	// Mixed sizes (read at 30 x 40): 45 x 60 (at most the largest image's
	// 45 x 60) and 20 x 27 read again; 60 x 80 is larger than every image.
	root := mixedFolder(t)
	dm := &dataFlags{folder: root}
	var note bytes.Buffer
	ms, mp, err := dm.loadResized(dataset.Preprocess{}, &note, dataset.ErrMixedSizes)
	if err != nil {
		t.Fatal(err)
	}
	got := dm.photoSizes(ms, mp, false, 0, 60e9, io.Discard)
	if !scn.PhotoImages(ms.Rows, ms.Cols, ms.Chans()) {
		if got != nil {
			t.Errorf("grey 30 x 40 images are not photos: %d sizes", len(got))
		}
	}
	// Read as colour they are photos.
	mc, mpc, err := dm.loadResized(dataset.Preprocess{Channels: 3}, &note, dataset.ErrMixedSizes)
	if err != nil {
		t.Fatal(err)
	}
	got = dm.photoSizes(mc, mpc, false, 0, 60e9, io.Discard)
	var shapes []string
	for _, z := range got {
		shapes = append(shapes, z.set.Source)
		want, err := dm.load("train", z.prep)
		if err != nil || !slices.Equal(want.Pix, z.set.Pix) {
			t.Fatalf("size %d x %d: not the images read at that size (%v)", z.set.Rows, z.set.Cols, err)
		}
	}
	if len(got) != 2 || got[0].set.Rows != 45 || got[0].set.Cols != 60 || got[1].set.Rows != 20 || got[1].set.Cols != 27 {
		t.Fatalf("mixed sizes: %d sizes: %s", len(got), strings.Join(shapes, " | "))
	}
	// A model that chose 45 x 60 on the mixed folder: its replay reads
	// the folder again at that size, the images the budget fitted.
	mm := &scn.Model{Local: &scn.LocalLayer{}}
	mm.Preprocessing.ResizeRows, mm.Preprocessing.ResizeCols, mm.Preprocessing.Fit = 45, 60, "pad"
	if again, q, err := dm.replayPhotoSize(mm, mc, mpc); err != nil || q.ResizeRows != 45 || q.Channels != mpc.Channels || !slices.Equal(again.Pix, got[0].set.Pix) {
		t.Fatalf("replay on the mixed folder: %v, %+v", err, q)
	}
	// No time to read the folder again: none.
	var w bytes.Buffer
	if got := dm.photoSizes(mc, mpc, false, 10e9, 60e9, &w); got != nil || !strings.Contains(w.String(), "reading the folder again") {
		t.Errorf("a slow folder: %d sizes, said %q", len(got), w.String())
	}
}

// TestPhotoBudgetReplaySameBytes: a budget on colour photos (the probe
// and the plan on the real clock) and its --replay give the same file,
// whatever the probe chose; inspect shows the plan.
func TestPhotoBudgetReplaySameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("a budget of 3 s")
	}
	dir, _ := hueFolder(t, 240)
	tmp := t.TempDir()
	m := filepath.Join(tmp, "m.scn")
	ok(t, "train", "--budget", "3s", "--budget-probe", "-q", "--folder", dir, "-o", m)
	again := filepath.Join(tmp, "again.scn")
	ok(t, "train", "--replay", m, "-q", "--folder", dir, "-o", again)
	x, _ := os.ReadFile(m)
	y, _ := os.ReadFile(again)
	if !bytes.Equal(x, y) {
		t.Error("the replayed photo budget differs from the budgeted one")
	}
	if text := ok(t, "inspect", m); !strings.Contains(text, "filters of") {
		t.Errorf("inspect lacks the plan:\n%s", text)
	}
	for _, args := range [][]string{
		{"train", "--budget-probe", "--folder", dir, "-o", again},
		{"train", "--budget-probe", "--replay", m, "--folder", dir, "-o", again},
	} {
		if _, code := failsCode(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
