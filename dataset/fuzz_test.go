package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// A plain `go test` runs every fuzz target below on its seeds (f.Add) and
// on the files in testdata/fuzz/<target>, among them the inputs that once
// made a reader fail.

// FuzzReadIDXLabelsTargets feeds arbitrary bytes to the IDX reader as a
// label file beside a good image file, and as a target file.
func FuzzReadIDXLabelsTargets(f *testing.F) {
	f.Add(idxBytes(8, []int{2}, []byte{0, 1}))
	f.Add(idxBytes(8, []int{3}, []byte{0, 1, 2}))
	f.Add(idxBytes(idxFloat32, []int{2}, []byte{0x3f, 0x80, 0, 0, 0x7f, 0xc0, 0, 0}))
	f.Add(idxBytes(idxFloat64, []int{1, 2}, make([]byte, 16)))
	f.Add(idxBytes(idxInt32, []int{2}, []byte{0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff}))
	f.Add(gzipBytes(idxBytes(8, []int{2}, []byte{0, 1})))
	f.Add(idxHeader(idxFloat64, 1<<31))
	images := idxBytes(8, []int{2, 1, 2}, []byte{0, 1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		if s, err := ReadIDXFrom(bytes.NewReader(images), bytes.NewReader(data), "fuzz"); err == nil {
			if err := s.Validate(); err != nil || s.Len() != 2 {
				t.Fatalf("accepted an invalid set: %v", err)
			}
		}
		x, err := readIDX(bytes.NewReader(data))
		if err != nil {
			return
		}
		if v, dim, err := idxTargets(x, "fuzz"); err == nil && (dim < 1 || len(v)%dim != 0) {
			t.Fatalf("%d targets of dimension %d", len(v), dim)
		}
		if v, err := idxInts(x); err == nil && len(v) != x.dims[0] {
			t.Fatalf("%d integers for %d", len(v), x.dims[0])
		}
	})
}

// FuzzReadImageFormats feeds the image decoder seeds of every format it
// reads (PNG, GIF, JPEG, BMP, PGM/PPM) and their mutations.
func FuzzReadImageFormats(f *testing.F) {
	for _, format := range []string{"png", "gif", "jpeg", "bmp"} {
		f.Add(encoded(f, format))
	}
	f.Add([]byte("P2 2 1 3 0 3"))
	f.Add([]byte("P3 1 1 255 1 2 3"))
	f.Add([]byte("P5 2 1 255\n\x00\xff"))
	f.Add([]byte("P6 1 1 255\n\x01\x02\x03"))
	f.Fuzz(func(t *testing.T, data []byte) {
		hr, hc, herr := ImageSize(bytes.NewReader(data))
		pix, rows, cols, err := DecodeImage(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		if rows < 1 || cols < 1 || len(pix) != rows*cols || rows*cols > maxPixels {
			t.Fatalf("%d pixels for %d x %d", len(pix), rows, cols)
		}
		// The header's size is the image's, but for a GIF whose first
		// frame is smaller than its screen.
		if herr != nil || (hr != rows || hc != cols) && !bytes.HasPrefix(data, []byte("GIF")) {
			t.Fatalf("ImageSize says %d x %d (%v), the image is %d x %d", hr, hc, herr, rows, cols)
		}
		for _, v := range pix {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("grey level %v outside [0, 1]", v)
			}
		}
	})
}

// FuzzReadFolder reads a folder of two class subfolders whose files hold
// arbitrary bytes; layout picks their names and preprocessing.
func FuzzReadFolder(f *testing.F) {
	f.Add(pngBytes(f, 3, 3), pngBytes(f, 3, 3), uint8(0))
	f.Add(pngBytes(f, 3, 3), []byte("P2 3 3 1 0 1 0 1 0 1 0 1 0"), uint8(1))
	f.Add(darkOnLight(f), lightOnDark(f), uint8(2|4))
	f.Add([]byte("P5 1 1 255\n\x00"), []byte{}, uint8(8))
	f.Add(encoded(f, "gif"), encoded(f, "bmp"), uint8(16))
	exts := []string{".png", ".pgm", ".jpg", ".txt"}
	f.Fuzz(func(t *testing.T, a, b []byte, layout uint8) {
		fsys := fstest.MapFS{
			"root/c0/a" + exts[layout&1]:      {Data: a},
			"root/c1/b" + exts[(layout>>3)&3]: {Data: b},
		}
		p := Preprocess{}
		if layout&2 != 0 {
			p.Invert = "auto"
		}
		if layout&4 != 0 {
			p.MNIST = true
		}
		if layout&32 != 0 {
			p.ResizeRows, p.ResizeCols = 4, 5
		}
		s, err := ReadFolderFS(fsys, "root", p)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil || s.Len() != 2 || len(s.Classes) != 2 || s.Inverted > 2 {
			t.Fatalf("accepted an invalid set: %v (%d images, %d classes)", err, s.Len(), len(s.Classes))
		}
	})
}

// FuzzReadTar reads class subfolders from an arbitrary (possibly gzip)
// tar stream.
func FuzzReadTar(f *testing.F) {
	files := map[string][]byte{"d/0/a.png": lightOnDark(f), "d/1/b.pgm": []byte("P2 8 8 1" + string(bytes.Repeat([]byte(" 1"), 64)))}
	tr := tarBytes(f, files, "d/0/a.png", "d/1/b.pgm")
	f.Add(tr)
	f.Add(gzipBytes(tr))
	f.Add(tr[:1024])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys, err := tarFS(bytes.NewReader(data))
		if err != nil {
			return
		}
		s, err := readFolder(fsys, "d", Preprocess{}, func(n string) string { return n })
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("accepted an invalid set: %v", err)
		}
	})
}

// FuzzReadDerived reads a derived set whose manifest.json holds arbitrary
// bytes, beside the files of a real one.
func FuzzReadDerived(f *testing.F) {
	faces := toyFaces(2, 4)
	faces.Targets, faces.TargetDim = make([]float64, 16), 2
	d, err := BuildFaceSplit(faces, 2, 1)
	if err != nil {
		f.Fatal(err)
	}
	src := f.TempDir()
	if err := d.Write(src); err != nil {
		f.Fatal(err)
	}
	manifest, _ := os.ReadFile(filepath.Join(src, manifestFile))
	f.Add(manifest)
	f.Add(bytes.Replace(manifest, []byte(`"count": 4`), []byte(`"count": 5`), 1))
	f.Add(bytes.Replace(manifest, []byte(`"role": "labels"`), []byte(`"role": "images"`), 1))
	f.Add(bytes.Replace(manifest, []byte(`"role": "targets"`), []byte(`"role": "origin"`), 1))
	f.Add([]byte(`{"parts": [{"name": "x", "files": []}]}`))
	f.Add([]byte(`{}`))
	entries, _ := os.ReadDir(src)
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		for _, e := range entries {
			if e.Name() != manifestFile {
				os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name()))
			}
		}
		os.WriteFile(filepath.Join(dir, manifestFile), data, 0o644)
		back, err := ReadDerived(dir)
		if err != nil {
			return
		}
		for _, p := range back.Parts {
			if err := p.Set.Validate(); err != nil {
				t.Fatalf("part %s accepted but invalid: %v", p.Name, err)
			}
		}
	})
}
