package npy

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// A plain `go test` runs the fuzz targets below on their seeds (f.Add) and
// on the files in testdata/fuzz/<target>.

// FuzzRead feeds arbitrary bytes to the .npy reader, as a stream and as a
// file of known size; whatever it accepts must be consistent and survive a
// write and a second read.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"u8_v1.npy", "f4_v2.npy", "f8be_v3.npy", "i4be.npy", "str.npy", "bytes.npy", "scalar.npy", "fortran.npy", "rec.npy"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (1000000, 1000, 1000), }", make([]byte, 10)))
	f.Add(npyBytes("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", []byte{'a', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Read(bytes.NewReader(data))
		b, err2 := read(bytes.NewReader(data), int64(len(data)), true)
		h, herr := ReadHeader(bytes.NewReader(data))
		if err == nil && (herr != nil || !slices.Equal(h.Shape, a.Shape)) {
			t.Fatalf("the header reader disagrees with the reader: %v, shape %v for %v", herr, h.Shape, a.Shape)
		}
		if (err == nil) != (err2 == nil) {
			t.Fatalf("stream and sized reads disagree: %v, %v", err, err2)
		}
		if err != nil {
			return
		}
		if err := a.check(); err != nil {
			t.Fatalf("accepted an inconsistent array: %v", err)
		}
		if !reflect.DeepEqual(a.Shape, b.Shape) || dataLen(a.Data) != dataLen(b.Data) {
			t.Fatalf("stream and sized reads differ")
		}
		var buf bytes.Buffer
		if err := Write(&buf, a); err != nil {
			t.Fatalf("cannot write what was read: %v", err)
		}
		c, err := Read(&buf)
		if err != nil {
			t.Fatalf("cannot read what was written: %v", err)
		}
		if !reflect.DeepEqual(a.Shape, c.Shape) {
			t.Fatalf("shape %v became %v", a.Shape, c.Shape)
		}
		if _, isString := a.Data.([]string); !isString && !bytes.Equal(encode(a.Data), encode(c.Data)) {
			t.Fatalf("data changed in a round trip")
		}
	})
}

// FuzzReadNPZ feeds arbitrary bytes to the .npz reader and reads every
// array it lists.
func FuzzReadNPZ(f *testing.F) {
	for _, name := range []string{"stored.npz", "deflated.npz"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	var buf bytes.Buffer
	WriteNPZ(&buf, false, Named{"a", &Array{Shape: []int{2}, Data: []int64{1, 2}}})
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		z, err := NewNPZ(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for _, name := range z.Names() {
			h, herr := z.Header(name)
			if a, err := z.Array(name); err == nil {
				if err := a.check(); err != nil {
					t.Fatalf("%s: accepted an inconsistent array: %v", name, err)
				}
				if herr != nil || !slices.Equal(h.Shape, a.Shape) {
					t.Fatalf("%s: the header reader disagrees with the reader: %v, shape %v for %v", name, herr, h.Shape, a.Shape)
				}
			}
		}
	})
}
