package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/scn2d/scn/npy"
)

// TestPeekAgreesWithReaders checks, for every source the Peek functions
// read, that the shape from the headers (with PrepareShape) is the shape
// of the set the reader gives, and that its Bytes are the set's bytes.
func TestPeekAgreesWithReaders(t *testing.T) {
	dir := t.TempDir()
	faces := toyFaces(3, 4) // 12 images of 14 x 12, 3 classes
	check := func(name string, sh Shape, err error, s *Set, rerr error) {
		t.Helper()
		if err != nil || rerr != nil {
			t.Fatalf("%s: peek %v, read %v", name, err, rerr)
		}
		if sh != s.Shape() {
			t.Errorf("%s: peeked %+v, read %+v", name, sh, s.Shape())
		}
		b := int64(len(s.Pix))*4 + int64(len(s.Labels)+len(s.Targets)+len(s.Origin))*8
		if sh.Bytes() != b {
			t.Errorf("%s: %d bytes peeked, the set holds %d", name, sh.Bytes(), b)
		}
	}

	// IDX: one file, a list (N summed), targets.
	a, b := filepath.Join(dir, "a-images.gz"), filepath.Join(dir, "b-images")
	la, lb := filepath.Join(dir, "a-labels"), filepath.Join(dir, "b-labels.gz")
	if err := WriteIDX(a, la, faces); err != nil {
		t.Fatal(err)
	}
	if err := WriteIDX(b, lb, faces.Subset([]int{0, 5, 9})); err != nil {
		t.Fatal(err)
	}
	sh, err := PeekIDX([]string{a}, []string{la}, "")
	s, rerr := ReadIDX(a, la)
	check("idx", sh, err, s, rerr)
	sh, err = PeekIDX([]string{a, b}, []string{la, lb}, "")
	src, rerr := OpenIDXSource([]string{a, b}, []string{la, lb}, Preprocess{})
	if rerr == nil {
		s, rerr = ReadIDXSource(src)
	}
	check("idx list", sh, err, s, rerr)
	if sh.N != 15 {
		t.Errorf("idx list: %d images, want 15", sh.N)
	}
	reg := faces.Clone()
	reg.Targets, reg.TargetDim = make([]float64, 2*reg.Len()), 2
	tg := filepath.Join(dir, "targets")
	if err := WriteIDXTargets(tg, reg); err != nil {
		t.Fatal(err)
	}
	sh, err = PeekIDX([]string{a}, nil, tg)
	if sh.TargetDim != 2 || sh.Labels || sh.Outputs() != 2 || err != nil {
		t.Errorf("idx targets: %+v, %v", sh, err)
	}

	// NumPy: N x rows x cols x C uint8 with string labels; npz with the
	// same arrays, deflated.
	x := &npy.Array{Shape: []int{4, 5, 6, 3}, Data: make([]uint8, 4*5*6*3)}
	y := &npy.Array{Shape: []int{4}, Data: []string{"cat", "dog", "cat", "emu"}}
	xp, yp := filepath.Join(dir, "x.npy"), filepath.Join(dir, "y.npy")
	if err := npy.WriteFile(xp, x); err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteFile(yp, y); err != nil {
		t.Fatal(err)
	}
	sh, err = PeekNPY(xp, yp, "", 0, 0, false)
	s, rerr = ReadNPY(xp, yp, "", 0, 0, false)
	check("npy", sh, err, s, rerr)
	zp := filepath.Join(dir, "d.npz")
	if err := npy.WriteNPZFile(zp, true, npy.Named{Name: "x", Array: x}, npy.Named{Name: "y", Array: y}); err != nil {
		t.Fatal(err)
	}
	sh, err = PeekNPZ(zp, "x", "y", false, 0, 0, false)
	s, rerr = ReadNPZ(zp, "x", "y", false, 0, 0, false)
	check("npz", sh, err, s, rerr)

	// A derived set, both parts.
	for name, d := range builtDerived(t, 3) {
		ddir := filepath.Join(dir, name)
		if err := d.Write(ddir); err != nil {
			t.Fatal(err)
		}
		back, rerr := ReadDerived(ddir)
		for _, part := range []string{"train", "test"} {
			sh, err := PeekDerived(ddir, part)
			if rerr != nil {
				t.Fatal(rerr)
			}
			check(name+" "+part, sh, err, back.Part(part), nil)
		}
	}

	// A folder, with preprocessing: colour by its first image, and made
	// grey and resized by p.
	fdir := t.TempDir()
	writeFile(t, fdir, "a/1.png", encodeAs(t, colourPicture(), "png"))
	writeFile(t, fdir, "a/2.png", encodeAs(t, colourPicture(), "png"))
	writeFile(t, fdir, "b/3.png", encodeAs(t, colourPicture(), "png"))
	for _, p := range []Preprocess{{}, {Channels: 1}, {ResizeRows: 9, ResizeCols: 7, Fit: "pad"}, {MNIST: true}} {
		sh, err := PeekFolder(fdir, p)
		s, rerr := ReadFolder(fdir, p)
		check("folder "+p.String(), p.PrepareShape(sh), err, s, rerr)
	}
	// Prepare's shape.
	for _, p := range []Preprocess{{Channels: 3}, {ResizeRows: 20, ResizeCols: 30, Fit: "crop"}, {MNIST: true, Invert: "auto"}} {
		s, err := Prepare(faces, p)
		check("prepare "+p.String(), p.PrepareShape(faces.Shape()), nil, s, err)
	}
}

// TestPeekWithoutData checks that the Peek functions read headers only: a
// .npy or IDX file whose data is cut off, and a derived set whose image
// files are gone, still give their shape (the readers refuse them).
func TestPeekWithoutData(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "x.npy")
	hdr := "{'descr': '|u1', 'fortran_order': False, 'shape': (1000, 512, 512), }"
	raw := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)+1), 0)
	if err := os.WriteFile(x, append(append(raw, hdr...), '\n', 1, 2, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	y := filepath.Join(dir, "y.npy")
	if err := npy.WriteFile(y, &npy.Array{Shape: []int{1000}, Data: make([]int64, 1000)}); err != nil {
		t.Fatal(err)
	}
	sh, err := PeekNPY(x, y, "", 0, 0, false)
	if err != nil || sh != (Shape{N: 1000, Rows: 512, Cols: 512, Channels: 1, Labels: true, Classes: 2}) {
		t.Errorf("cut npy: %+v, %v", sh, err)
	}
	if _, err := ReadNPY(x, y, "", 0, 0, false); !errors.Is(err, npy.ErrFormat) {
		t.Errorf("reading the cut npy: %v", err)
	}
	img := filepath.Join(dir, "images")
	if err := os.WriteFile(img, idxBytes(idxUbyte, []int{3000, 512, 512}, []byte{1, 2}), 0o644); err != nil {
		t.Fatal(err)
	}
	sh, err = PeekIDX([]string{img}, nil, "")
	if err != nil || sh.N != 3000 || sh.Rows != 512 || sh.Cols != 512 {
		t.Errorf("cut idx: %+v, %v", sh, err)
	}
	if _, err := PeekIDX([]string{filepath.Join(dir, "none")}, nil, ""); err == nil {
		t.Error("a missing IDX file gave a shape")
	}
	if _, err := PeekNPY(filepath.Join(dir, "y.npy"), "", "", 0, 0, false); err == nil {
		t.Error("int64 images gave a shape")
	}
	if _, err := PeekFolder(dir, Preprocess{}); err == nil {
		t.Error("a folder without class folders gave a shape")
	}
	bad := t.TempDir()
	writeFile(t, bad, "a/1.png", []byte("not a png"))
	if _, err := PeekFolder(bad, Preprocess{}); err == nil {
		t.Error("an undecodable first image gave a shape")
	}
}
