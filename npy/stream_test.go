package npy

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// rowsOf reads every row of r in runs of k and puts them together.
func rowsOf(t testing.TB, r *RowReader, k int) *Array {
	t.Helper()
	var parts []any
	for lo := 0; lo < r.Len(); lo += k {
		a, err := r.Read(lo, min(k, r.Len()-lo))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, a.Data)
	}
	return &Array{Shape: r.Shape, Data: concat(parts)}
}

// concat joins slices of one element type.
func concat(parts []any) any {
	if len(parts) == 0 {
		return nil
	}
	out := reflect.MakeSlice(reflect.TypeOf(parts[0]), 0, 0)
	for _, p := range parts {
		out = reflect.AppendSlice(out, reflect.ValueOf(p))
	}
	return out.Interface()
}

// TestRowReaderIsTheArray: the rows of a .npy file, of a stored and of a
// deflated .npz member, read in runs of any size (twice: a second pass
// starts over), are the array read whole, for every element type and
// byte order of the test files.
func TestRowReaderIsTheArray(t *testing.T) {
	dir := t.TempDir()
	x := &Array{Shape: []int{7, 3, 2}, Data: make([]float32, 42)}
	for i := range x.Data.([]float32) {
		x.Data.([]float32)[i] = float32(i) / 3
	}
	y := &Array{Shape: []int{7}, Data: []int64{1, 2, 3, 4, 5, 6, 7}}
	for _, compress := range []bool{false, true} {
		path := filepath.Join(dir, "a.npz")
		if err := WriteNPZFile(path, compress, Named{"x", x}, Named{"y", y}); err != nil {
			t.Fatal(err)
		}
		z, err := OpenNPZ(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"x", "y"} {
			r, err := z.Rows(name)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := z.Array(name)
			for pass, k := range []int{1, 3, 7} {
				if got := rowsOf(t, r, k); !reflect.DeepEqual(got, want) {
					t.Fatalf("compress %v, %s, pass %d in runs of %d: %v, want %v", compress, name, pass, k, got, want)
				}
			}
			r.Close()
		}
		z.Close()
	}
	for _, name := range []string{"u8_v1.npy", "f4_v2.npy", "f8be_v3.npy", "i4be.npy", "str.npy", "bytes.npy", "i8.npy"} {
		path := filepath.Join("testdata", name)
		want, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := OpenRows(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := rowsOf(t, r, 2); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %v, want %v", name, got, want)
		}
		r.Close()
	}
}

// TestRowReaderRefuses: a truncated file, data after the array, a Fortran
// array, a scalar, rows out of range, a deflated member read out of order
// and a stored member whose bytes changed (its checksum) are errors.
func TestRowReaderRefuses(t *testing.T) {
	dir := t.TempDir()
	x := &Array{Shape: []int{4, 2}, Data: []uint8{1, 2, 3, 4, 5, 6, 7, 8}}
	var buf bytes.Buffer
	if err := Write(&buf, x); err != nil {
		t.Fatal(err)
	}
	whole := buf.Bytes()
	for _, c := range []struct {
		data []byte
		want string
	}{
		{whole[:len(whole)-1], "truncated data"},
		{append(append([]byte{}, whole...), 0), "data after the array"},
	} {
		if _, err := NewRows(bytes.NewReader(c.data), int64(len(c.data)), "f"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("want %q, got %v", c.want, err)
		}
	}
	for _, name := range []string{"fortran.npy", "scalar.npy"} {
		if _, err := OpenRows(filepath.Join("testdata", name)); err == nil {
			t.Fatalf("%s accepted", name)
		}
	}
	r, _ := NewRows(bytes.NewReader(whole), int64(len(whole)), "f")
	if _, err := r.Read(3, 2); err == nil {
		t.Fatal("rows past the end read")
	}
	// A file cut after it was opened: the read says so.
	cut := bytes.NewReader(whole[:len(whole)-3])
	r.ra = cut
	if _, err := r.Read(0, 4); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("cut file: %v", err)
	}
	path := filepath.Join(dir, "d.npz")
	if err := WriteNPZFile(path, true, Named{"x", x}); err != nil {
		t.Fatal(err)
	}
	z, _ := OpenNPZ(path)
	rd, err := z.Rows("x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Read(2, 1); err == nil || !strings.Contains(err.Error(), "in order") {
		t.Fatalf("out of order: %v", err)
	}
	if _, err := z.Rows("nothing"); err == nil || !strings.Contains(err.Error(), "has no array") {
		t.Fatalf("missing array: %v", err)
	}
	z.Close()
	// A stored member with a changed byte: the checksum of an in-order read.
	if err := WriteNPZFile(path, false, Named{"x", x}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	i := bytes.Index(b, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	b[i+5] = 99
	z, err = NewNPZ(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := z.Rows("x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rs.Read(0, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.Read(2, 2); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("changed member: %v", err)
	}
}

// FuzzRows: any bytes a .npy array read by rows gives what Read gives
// whole, or an error; a .npz archive's members likewise.
func FuzzRows(f *testing.F) {
	for _, name := range []string{"u8_v1.npy", "f4_v2.npy", "f8be_v3.npy", "str.npy", "fortran.npy", "stored.npz", "deflated.npz"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		run := max(int(k), 1)
		check := func(r *RowReader, want *Array, werr error) {
			var parts []any
			for lo := 0; lo < r.Len(); lo += run {
				a, err := r.Read(lo, min(run, r.Len()-lo))
				if err != nil {
					if werr == nil && r.zf == nil {
						t.Fatalf("rows %d: %v; read whole: no error", lo, err)
					}
					return
				}
				parts = append(parts, a.Data)
			}
			if werr != nil {
				if r.zf == nil && r.want == 0 {
					t.Fatalf("read by rows, refused whole: %v", werr)
				}
				return
			}
			got := concat(parts)
			if r.Len() == 0 {
				got = want.Data
			}
			// Compared as printed (exact: the shortest form that reads back), with
			// their types, because NaN != NaN would fail DeepEqual on equal data.
			if reflect.TypeOf(got) != reflect.TypeOf(want.Data) || fmt.Sprint(got) != fmt.Sprint(want.Data) || !reflect.DeepEqual(r.Shape, want.Shape) {
				t.Fatalf("rows give %v %v, whole %v %v", r.Shape, got, want.Shape, want.Data)
			}
		}
		if r, err := NewRows(bytes.NewReader(data), int64(len(data)), "f"); err == nil {
			want, werr := read(bytes.NewReader(data), int64(len(data)), true)
			check(r, want, werr)
		}
		z, err := NewNPZ(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for _, name := range z.Names() {
			r, err := z.Rows(name)
			if err != nil {
				continue
			}
			want, werr := z.Array(name)
			check(r, want, werr)
			r.Close()
		}
	})
}
