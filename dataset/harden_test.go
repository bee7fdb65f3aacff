package dataset

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/scn2d/scn/npy"
)

// TestFolderSymlinksAndHiddenFiles: a symbolic link to a class folder is
// read as one; a dangling one is an error; macOS's ._name files and other
// hidden files are skipped.
func TestFolderSymlinksAndHiddenFiles(t *testing.T) {
	dir := t.TempDir()
	good := pngBytes(t, 4, 4)
	writeFile(t, dir, "elsewhere/b/1.png", good)
	writeFile(t, dir, "root/a/1.png", good)
	writeFile(t, dir, "root/a/._1.png", []byte("AppleDouble metadata, not a PNG"))
	writeFile(t, dir, "root/a/.hidden.png", []byte("not a PNG"))
	if err := os.Symlink(filepath.Join(dir, "elsewhere", "b"), filepath.Join(dir, "root", "b")); err != nil {
		t.Skip(err)
	}
	s, err := ReadFolder(filepath.Join(dir, "root"), Preprocess{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Classes) != 2 || s.Classes[1] != "b" || s.Len() != 2 {
		t.Fatalf("classes %v, %d images: want a and the linked b, one image each", s.Classes, s.Len())
	}
	os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "root", "c"))
	_, err = ReadFolder(filepath.Join(dir, "root"), Preprocess{})
	wantErr(t, "dangling class link", err, filepath.Join(dir, "root", "c"), "symbolic link")
}

// TestMemoryLimit: readers and Prepare refuse, wrapping ErrTooLarge, what
// would exceed the limit, before allocating it; a reader reading a stream
// shorter or longer than its header claims fails.
func TestMemoryLimit(t *testing.T) {
	defer SetMemoryLimit(SetMemoryLimit(1 << 20))
	hdr := idxHeader(idxUbyte, 1000, 100, 100) // 10 MB of bytes, 40 MB of pixels
	_, err := readIDX(bytes.NewReader(gzipBytes(hdr)))
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("IDX claim over the limit: %v", err)
	}
	s := &Set{Rows: 10, Cols: 10, Pix: make([]float32, 100*100), Labels: make([]int, 100), Classes: []string{"0", "1"}}
	if _, err := Prepare(s, Preprocess{ResizeRows: 100, ResizeCols: 100}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Prepare over the limit: %v", err)
	}
	if _, err := Prepare(s, Preprocess{ResizeRows: 20, ResizeCols: 20}); err != nil {
		t.Errorf("Prepare within the limit: %v", err)
	}
	dir := t.TempDir()
	for i := 0; i < 20; i++ {
		writeFile(t, dir, "root/a/"+string(rune('a'+i))+".png", pngBytes(t, 4, 4))
	}
	if _, err := ReadFolder(filepath.Join(dir, "root"), Preprocess{ResizeRows: 200, ResizeCols: 200}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("folder over the limit: %v", err)
	}
	SetMemoryLimit(0)
	small := idxHeader(idxUbyte, 2, 3, 3)
	if _, err := readIDX(bytes.NewReader(append(small, make([]byte, 17)...))); err == nil {
		t.Error("a stream shorter than its header claims was read")
	}
	if _, err := readIDX(bytes.NewReader(append(small, make([]byte, 19)...))); err == nil {
		t.Error("a stream longer than its header claims was read")
	}
	x, err := readIDX(bytes.NewReader(gzipBytes(append(small, make([]byte, 18)...))))
	if err != nil || len(x.data) != 18 {
		t.Errorf("exact stream: %v", err)
	}
	// readBounded grows with the stream, across its doubling steps.
	big := bytes.Repeat([]byte{7}, 3<<20+5)
	b, err := readBounded(bytes.NewReader(big), int64(len(big)))
	if err != nil || !bytes.Equal(b, big) {
		t.Errorf("readBounded: %v", err)
	}
}

// TestOpenDirectory: a folder given as a file says so.
func TestOpenDirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := ReadIDX(dir, "")
	wantErr(t, "IDX", err, dir, "is a directory")
	_, err = ReadCSV(dir, 0, 0)
	wantErr(t, "CSV", err, dir, "is a directory")
	_, _, _, err = LoadImageFile(dir, Preprocess{})
	wantErr(t, "image", err, dir, "is a directory")
}

// TestNumPyMemoryLimit: a small .npz whose deflated member expands to
// 64 MB, and a .npy file of that size, are refused under a 16 MiB limit
// before they are read.
func TestNumPyMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	a, err := npy.New(make([]uint8, 64<<20), 1024, 256, 256)
	if err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	if err := npy.Write(&raw, a); err != nil {
		t.Fatal(err)
	}
	npyPath := filepath.Join(dir, "x.npy")
	os.WriteFile(npyPath, raw.Bytes(), 0o644)
	var z bytes.Buffer
	zw := zip.NewWriter(&z)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "x.npy", Method: zip.Deflate})
	w.Write(raw.Bytes())
	zw.Close()
	npzPath := filepath.Join(dir, "x.npz")
	os.WriteFile(npzPath, z.Bytes(), 0o644)
	if z.Len() > 1<<20 {
		t.Fatalf("npz of %d bytes", z.Len())
	}
	defer SetMemoryLimit(SetMemoryLimit(16 << 20))
	if _, err := ReadNPY(npyPath, "", "", 0, 0, false); !errors.Is(err, ErrTooLarge) {
		t.Errorf(".npy: %v", err)
	}
	if _, err := ReadNPZ(npzPath, "x", "", false, 0, 0, false); !errors.Is(err, ErrTooLarge) {
		t.Errorf(".npz: %v", err)
	}
	SetMemoryLimit(1 << 30)
	if s, err := ReadNPZ(npzPath, "x", "", false, 0, 0, false); err != nil || s.Len() != 1024 {
		t.Errorf(".npz within the limit: %v", err)
	}
}
