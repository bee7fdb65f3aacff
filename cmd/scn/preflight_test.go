package main

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	be "encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/npy"
)

// The preflight: scn train, compare, eval and bench refuse work whose
// estimate exceeds --max-memory from what the files' headers say, before
// reading the images. Each big set below has a header (or manifest, or
// first image) that claims 512 x 512 images and data that is cut off,
// absent or undecodable: a read would fail with a format error, so a
// refusal about memory proves that the images were not read.

// npyHeader returns a version 1.0 .npy header for a dictionary.
func npyHeader(dict string) []byte {
	dict += "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(dict)), byte(len(dict)>>8))
	return append(b, dict...)
}

// idxImagesHeader returns the header of an IDX file of n unsigned-byte
// images of rows x cols.
func idxImagesHeader(n, rows, cols int) []byte {
	b := []byte{0, 0, 8, 3}
	for _, d := range []int{n, rows, cols} {
		b = be.BigEndian.AppendUint32(b, uint32(d))
	}
	return b
}

// writeBytes writes data to dir/name, making the folders.
func writeBytes(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// labelsNPY writes n int64 labels in five classes.
func labelsNPY(t *testing.T, path string, n int) string {
	t.Helper()
	y := make([]int64, n)
	for i := range y {
		y[i] = int64(i % 5)
	}
	a, err := npy.New(y, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteFile(path, a); err != nil {
		t.Fatal(err)
	}
	return path
}

// bigSources writes one cut-off source of each kind the preflight reads
// and returns the data flags of each, by name, and the images each claims.
func bigSources(t *testing.T) (map[string][]string, map[string]int) {
	dir := t.TempDir()
	src, count := map[string][]string{}, map[string]int{}

	// npy: 1000 x 512 x 512 claimed, 3 bytes of data.
	x := writeBytes(t, dir, "x.npy", append(npyHeader("{'descr': '|u1', 'fortran_order': False, 'shape': (1000, 512, 512), }"), 1, 2, 3))
	y := labelsNPY(t, filepath.Join(dir, "y.npy"), 1000)
	src["npy"], count["npy"] = []string{"--npy-images", x, "--npy-labels", y}, 1000

	// npz: the same, deflated, in one archive with the labels.
	zp := filepath.Join(dir, "d.npz")
	f, err := os.Create(zp)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, _ := zw.Create("x.npy")
	w.Write(append(npyHeader("{'descr': '|u1', 'fortran_order': False, 'shape': (900, 512, 512), }"), 1, 2, 3))
	w, _ = zw.Create("y.npy")
	yb, _ := os.ReadFile(labelsNPY(t, filepath.Join(dir, "y900.npy"), 900))
	w.Write(yb)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	src["npz"], count["npz"] = []string{"--npz", zp}, 900

	// IDX, gzip-compressed, as a list of two files: the counts add up.
	var imgs, labs []string
	for i, n := range []int{700, 500} {
		imgs = append(imgs, writeIDXGz(t, filepath.Join(dir, fmt.Sprintf("part-%d-images.gz", i)), append(idxImagesHeader(n, 512, 512), 1, 2)))
		lab := append([]byte{0, 0, 8, 1}, be.BigEndian.AppendUint32(nil, uint32(n))...)
		labs = append(labs, writeBytes(t, dir, fmt.Sprintf("part-%d-labels", i), append(lab, make([]byte, n)...)))
	}
	src["idx"], count["idx"] = []string{"--idx-images", strings.Join(imgs, ","), "--idx-labels", strings.Join(labs, ",")}, 1200

	// A derived folder whose files are gone: only its manifest.
	ddir := filepath.Join(dir, "derived")
	m := dataset.Manifest{Name: "big", Parts: []dataset.PartInfo{
		{Name: "train", Count: 800, Rows: 512, Cols: 512, Classes: []string{"a", "b"},
			Files: []dataset.FileInfo{{Role: "images", Name: "train-images-idx3-ubyte.gz"}, {Role: "labels", Name: "train-labels-idx1-ubyte.gz"}}},
		{Name: "test", Count: 800, Rows: 512, Cols: 512, Classes: []string{"a", "b"},
			Files: []dataset.FileInfo{{Role: "images", Name: "test-images-idx3-ubyte.gz"}, {Role: "labels", Name: "test-labels-idx1-ubyte.gz"}}},
	}}
	js, _ := json.Marshal(m)
	writeBytes(t, ddir, "manifest.json", js)
	src["derived"], count["derived"] = []string{"--derived", ddir}, 800

	// A folder: the first image a real 512 x 512 PNG, the others not
	// images at all (the reader would stop at the second).
	fdir := filepath.Join(dir, "folder")
	var buf bytes.Buffer
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, 512, 512)))
	writeBytes(t, fdir, "a/000.png", buf.Bytes())
	for i := 1; i < 600; i++ {
		writeBytes(t, fdir, fmt.Sprintf("%c/%03d.png", 'a'+i%2, i), []byte("not a png"))
	}
	src["folder"], count["folder"] = []string{"--folder", fdir}, 600
	return src, count
}

// writeIDXGz writes data gzip-compressed.
func writeIDXGz(t *testing.T, path string, data []byte) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return writeBytes(t, filepath.Dir(path), filepath.Base(path), buf.Bytes())
}

// testFlags returns data flags as the --test- flags of compare.
func testFlags(flags []string) []string {
	out := append([]string(nil), flags...)
	for i, f := range out {
		if strings.HasPrefix(f, "--") {
			out[i] = "--test-" + f[2:]
		}
	}
	return out
}

// TestPreflightRefusesBeforeReading: for each source, scn train refuses
// the fit from the headers with the memory message (the amount, the limit
// and the flags to change), never with the read error the data would
// give; compare refuses the same way, and eval refuses scoring.
func TestPreflightRefusesBeforeReading(t *testing.T) {
	src, count := bigSources(t)
	model := filepath.Join(t.TempDir(), "m.scn")
	for name, flags := range src {
		args := append([]string{"train", "--model", "2dscn", "--max-memory", "256MiB", "-o", model}, flags...)
		out := fails(t, args...)
		for _, want := range []string{"needs about", "more than the limit of 256 MiB", fmt.Sprintf("on %d images of 512 x 512", count[name]),
			"--block", "--resize", "--max-memory"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: train's refusal lacks %q:\n%s", name, want, out)
			}
		}
		if _, err := os.Stat(model); err == nil {
			t.Errorf("%s: a model was written", name)
		}
		args = append([]string{"compare", "--models", "rvfl", "--nodes", "100", "--max-memory", "256MiB"}, flags...)
		if name != "derived" { // (compare takes a derived set's test part itself)
			args = append(args, testFlags(flags)...)
		}
		if out := fails(t, args...); !strings.Contains(out, "needs about") {
			t.Errorf("%s: compare: %s", name, out)
		}
	}
	// eval: a small model scores the big set.
	dir, _, _ := files(t)
	ok(t, "train", "--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz"),
		"--model", "rvfl", "--preset", "paper", "--nodes", "20", "-o", model)
	if out := fails(t, append([]string{"eval", model, "--max-memory", "64MiB"}, src["npy"]...)...); !strings.Contains(out, "scoring 1000 images") {
		t.Errorf("eval: %s", out)
	}
}

// TestPreflightLetsFitsThrough: a set whose headers say it fits goes on to
// be read as before: a cut-off file then fails with the reader's error,
// and a whole one trains.
func TestPreflightLetsFitsThrough(t *testing.T) {
	dir := t.TempDir()
	x := writeBytes(t, dir, "x.npy", append(npyHeader("{'descr': '|u1', 'fortran_order': False, 'shape': (40, 8, 8), }"), 1, 2, 3))
	y := labelsNPY(t, filepath.Join(dir, "y.npy"), 40)
	out := fails(t, "train", "--npy-images", x, "--npy-labels", y, "--max-memory", "256MiB", "-o", filepath.Join(dir, "m.scn"))
	if !strings.Contains(out, "the file holds") || strings.Contains(out, "needs about") {
		t.Errorf("a cut-off file that fits: %s", out)
	}
	s := memShape{n: 60, rows: 12, cols: 10, chans: 1}
	flags := s.write(t, dir)
	out = ok(t, append([]string{"train", "--max-memory", "256MiB", "-o", filepath.Join(dir, "m.scn"), "-q"}, flags...)...)
	if !strings.Contains(out, "saved") {
		t.Errorf("a set that fits: %s", out)
	}
}
