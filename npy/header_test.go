package npy

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The header readers give the shape and type without the data: a file
// whose data is cut short still has its header read (Read refuses it),
// and a .npz member's header is read from its first bytes, stored or
// deflated.
func TestReadHeader(t *testing.T) {
	dir := t.TempDir()
	cut := npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (1000, 512, 512), }", make([]byte, 100))
	path := filepath.Join(dir, "cut.npy")
	if err := os.WriteFile(path, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := ReadFileHeader(path)
	if err != nil || !slices.Equal(h.Shape, []int{1000, 512, 512}) || h.DType != "|u1" || h.Fortran {
		t.Fatalf("header %+v, %v", h, err)
	}
	if _, err := ReadFile(path); !errors.Is(err, ErrFormat) {
		t.Errorf("reading the cut file: %v, want a format error", err)
	}
	if _, err := ReadHeader(bytes.NewReader(cut[:20])); !errors.Is(err, ErrFormat) {
		t.Errorf("a cut header: %v, want a format error", err)
	}
	if _, err := ReadFileHeader(filepath.Join(dir, "none.npy")); err == nil || !strings.Contains(err.Error(), "none.npy") {
		t.Errorf("a missing file: %v", err)
	}

	a := &Array{Shape: []int{3, 2}, Data: []float32{1, 2, 3, 4, 5, 6}}
	labels := &Array{Shape: []int{3}, Data: []int64{0, 1, 0}}
	for _, compress := range []bool{false, true} {
		var buf bytes.Buffer
		if err := WriteNPZ(&buf, compress, Named{"x", a}, Named{"y", labels}); err != nil {
			t.Fatal(err)
		}
		z, err := NewNPZ(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		h, err := z.Header("x")
		if err != nil || !slices.Equal(h.Shape, []int{3, 2}) || h.DType != "<f4" {
			t.Errorf("compressed %v: header of x %+v, %v", compress, h, err)
		}
		if h, err := z.Header("y"); err != nil || !slices.Equal(h.Shape, []int{3}) || h.DType != "<i8" {
			t.Errorf("compressed %v: header of y %+v, %v", compress, h, err)
		}
		if _, err := z.Header("w"); err == nil || !strings.Contains(err.Error(), `no array "w" (it has x, y)`) {
			t.Errorf("compressed %v: missing array: %v", compress, err)
		}
	}
}
