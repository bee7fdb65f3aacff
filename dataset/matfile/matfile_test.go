package matfile

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The files under testdata were written by Octave 7.3 (make.m: save -v6,
// plain, and save -v7, zlib-compressed) and scipy 1.10 (make_scipy.py:
// savemat with and without compression).

func open(t testing.TB, name string) (*File, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewReader(bytes.NewReader(b), int64(len(b)), Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m, b
}

func read(t *testing.T, m *File, name string) *Array {
	t.Helper()
	a, err := m.Read(name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(a.Data) != a.Len() {
		t.Fatalf("%s: %d values for dims %v", name, len(a.Data), a.Dims)
	}
	return a
}

func TestWrittenByOctaveAndScipy(t *testing.T) {
	for _, f := range []string{"octave_v6.mat", "octave_v7.mat", "scipy_plain.mat", "scipy_zlib.mat"} {
		t.Run(f, func(t *testing.T) {
			m, _ := open(t, f)
			d := read(t, m, "d")
			if d.Class != "double" || !slices.Equal(d.Dims, []int{3, 4}) {
				t.Fatalf("d: %s %v", d.Class, d.Dims)
			}
			for i := range 3 {
				for j := range 4 {
					if got, want := d.At(i, j), float64(i+3*j+1)/4; got != want {
						t.Fatalf("d(%d,%d) = %v, want %v (column-major)", i, j, got, want)
					}
				}
			}
			s := read(t, m, "s")
			if s.Class != "single" || !slices.Equal(s.Dims, []int{2, 3}) || s.At(1, 2) != 3 || s.At(0, 1) != 1.5 {
				t.Fatalf("s: %s %v %v", s.Class, s.Dims, s.Data)
			}
			u := read(t, m, "u")
			if u.Class != "uint8" || !slices.Equal(u.Dims, []int{3, 2}) || !slices.Equal(u.Data, []float64{0, 1, 2, 250, 255, 7}) {
				t.Fatalf("u: %s %v %v", u.Class, u.Dims, u.Data)
			}
			i16 := read(t, m, "i16")
			if i16.Class != "int16" || !slices.Equal(i16.Dims, []int{5, 1}) || !slices.Equal(i16.Data, []float64{-32768, -1, 0, 1, 32767}) {
				t.Fatalf("i16: %s %v %v", i16.Class, i16.Dims, i16.Data)
			}
			n3 := read(t, m, "n3")
			if !slices.Equal(n3.Dims, []int{2, 3, 4}) {
				t.Fatalf("n3: %v", n3.Dims)
			}
			for i := range 2 {
				for j := range 3 {
					for k := range 4 {
						if got := n3.At(i, j, k); got != float64(i+2*j+6*k) {
							t.Fatalf("n3(%d,%d,%d) = %v", i, j, k, got)
						}
					}
				}
			}
			for name, what := range map[string]string{"st": "struct", "c": "cell"} {
				_, err := m.Read(name)
				if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), what) || !strings.Contains(err.Error(), "only numeric") {
					t.Errorf("%s: %v", name, err)
				}
			}
			_, err := m.Read("nothere")
			if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "d (3x4 double)") {
				t.Errorf("missing variable: %v", err)
			}
		})
	}
}

func TestOctaveTypes(t *testing.T) {
	for _, f := range []string{"octave_v6.mat", "octave_v7.mat"} {
		m, _ := open(t, f)
		for name, want := range map[string][]float64{
			"i8": {-128, 5, 127}, "u16": {0, 65535}, "i32": {-2147483648, 2147483647},
			"u32": {0, 4294967295}, "lg": {1, 0, 1},
		} {
			a := read(t, m, name)
			if !slices.Equal(a.Data, want) || a.Dims[0] != 1 {
				t.Errorf("%s %s: %v %v, want %v", f, name, a.Dims, a.Data, want)
			}
		}
		if a := read(t, m, "lg"); a.Class != "logical" {
			t.Errorf("lg class %s", a.Class)
		}
		if e := read(t, m, "e"); !slices.Equal(e.Dims, []int{0, 3}) || len(e.Data) != 0 {
			t.Errorf("empty: %v %v", e.Dims, e.Data)
		}
		im := read(t, m, "im")
		if !slices.Equal(im.Dims, []int{4, 3, 1, 2}) || im.At(3, 2, 0, 1) != 23.0/23 || im.At(1, 0, 0, 1) != 13.0/23 {
			t.Errorf("im: %v %v", im.Dims, im.Data)
		}
		for name, what := range map[string]string{"str": "char", "sp": "sparse", "z": "complex"} {
			if _, err := m.Read(name); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), what) {
				t.Errorf("%s %s: %v", f, name, err)
			}
		}
		vs, err := m.Vars()
		if err != nil || len(vs) != 17 || vs[12].Name != "st" || vs[12].Class != "struct" || !vs[15].Sparse || !vs[16].Complex {
			t.Errorf("%s: vars %v %v", f, vs, err)
		}
	}
}

// Compressed and plain files hold the same values.
func TestCompressedEqualsPlain(t *testing.T) {
	for _, pair := range [][2]string{{"octave_v6.mat", "octave_v7.mat"}, {"scipy_plain.mat", "scipy_zlib.mat"}} {
		a, _ := open(t, pair[0])
		b, _ := open(t, pair[1])
		vs, err := a.Vars()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			x, errx := a.Read(v.Name)
			y, erry := b.Read(v.Name)
			if (errx == nil) != (erry == nil) {
				t.Fatalf("%s: %v vs %v", v.Name, errx, erry)
			}
			if errx == nil && (!slices.Equal(x.Data, y.Data) || !slices.Equal(x.Dims, y.Dims) || x.Class != y.Class) {
				t.Fatalf("%s differs", v.Name)
			}
		}
	}
}

// Every truncation of a file is refused or, cut at a variable's end, reads
// the variables before the cut exactly; never a wrong value, never a panic.
func TestTruncated(t *testing.T) {
	for _, f := range []string{"octave_v6.mat", "octave_v7.mat", "scipy_zlib.mat"} {
		m, full := open(t, f)
		want := read(t, m, "d")
		refused := 0
		for n := range len(full) {
			p, err := NewReader(bytes.NewReader(full[:n]), int64(n), Options{})
			if err != nil {
				if n >= headerLen {
					t.Fatalf("%s[:%d]: header refused: %v", f, n, err)
				}
				refused++
				continue
			}
			a, err := p.Read("d")
			switch {
			case err == nil:
				if !slices.Equal(a.Data, want.Data) {
					t.Fatalf("%s[:%d]: wrong values", f, n)
				}
			case errors.Is(err, ErrFormat) || errors.Is(err, ErrNotFound):
				refused++
			default:
				t.Fatalf("%s[:%d]: %v", f, n, err)
			}
		}
		if refused < len(full)-16 {
			t.Errorf("%s: only %d of %d truncations refused", f, refused, len(full))
		}
	}
}

// A changed byte in a compressed variable is caught (zlib's checksum, or
// the structure), never read as other values.
func TestCorruptCompressed(t *testing.T) {
	m, full := open(t, "octave_v7.mat")
	want := read(t, m, "d")
	els, err := m.elements()
	if err != nil {
		t.Fatal(err)
	}
	e := els[0] // d, the first variable
	for i := e.off - 8; i < e.off+e.size; i++ {
		b := slices.Clone(full)
		b[i] ^= 0x24
		p, err := NewReader(bytes.NewReader(b), int64(len(b)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, err := p.Read("d")
		if err == nil && !slices.Equal(a.Data, want.Data) {
			t.Fatalf("byte %d changed: wrong values read without an error", i)
		}
		if err == nil && i >= e.off {
			t.Fatalf("byte %d of the compressed data changed, not detected", i)
		}
	}
}

func TestBadHeaders(t *testing.T) {
	_, full := open(t, "octave_v6.mat")
	for name, change := range map[string]func([]byte) []byte{
		"short":   func(b []byte) []byte { return b[:100] },
		"endian":  func(b []byte) []byte { b[126], b[127] = 'X', 'Y'; return b },
		"version": func(b []byte) []byte { b[124], b[125] = 0, 2; return b },
		"hdf5":    func(b []byte) []byte { copy(b, "\x89HDF\r\n\x1a\n"); b[126] = 0; return b },
		"text":    func(b []byte) []byte { copy(b, "hello"); b[126] = 0; return b },
	} {
		b := change(slices.Clone(full))
		if _, err := NewReader(bytes.NewReader(b), int64(len(b)), Options{}); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none.mat"), Options{}); err == nil {
		t.Error("missing file opened")
	}
}

// tv is a variable the tests write themselves.
type tv struct {
	name  string
	class uint32 // mxDOUBLE, ...
	dims  []int32
	typ   uint32 // storage data type
	data  []byte // raw values in the file's byte order
}

// writeMAT writes a level-5 MAT-file in the given byte order.
func writeMAT(o binary.ByteOrder, compress bool, vars ...tv) []byte {
	var out bytes.Buffer
	h := make([]byte, headerLen)
	copy(h, "MATLAB 5.0 MAT-file, written by matfile's tests")
	for i := len("MATLAB 5.0 MAT-file, written by matfile's tests"); i < 116; i++ {
		h[i] = ' '
	}
	o.PutUint16(h[124:], 0x0100)
	if o == binary.LittleEndian {
		h[126], h[127] = 'I', 'M'
	} else {
		h[126], h[127] = 'M', 'I'
	}
	out.Write(h)
	elem := func(w *bytes.Buffer, typ uint32, b []byte) {
		var tag [8]byte
		o.PutUint32(tag[:], typ)
		o.PutUint32(tag[4:], uint32(len(b)))
		w.Write(tag[:])
		w.Write(b)
		w.Write(make([]byte, pad8(int64(len(b)))-int64(len(b))))
	}
	for _, v := range vars {
		var body bytes.Buffer
		flags := make([]byte, 8)
		o.PutUint32(flags, v.class)
		elem(&body, miUINT32, flags)
		dims := make([]byte, 4*len(v.dims))
		for i, d := range v.dims {
			o.PutUint32(dims[4*i:], uint32(d))
		}
		elem(&body, miINT32, dims)
		elem(&body, miINT8, []byte(v.name))
		elem(&body, v.typ, v.data)
		var arr bytes.Buffer
		elem(&arr, miMATRIX, body.Bytes())
		if !compress {
			out.Write(arr.Bytes())
			continue
		}
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(arr.Bytes())
		zw.Close()
		var tag [8]byte
		o.PutUint32(tag[:], miCOMPRESSED)
		o.PutUint32(tag[4:], uint32(z.Len()))
		out.Write(tag[:])
		out.Write(z.Bytes())
	}
	return out.Bytes()
}

func float64s(o binary.ByteOrder, v ...float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		o.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

func TestBigEndianAndStorageTypes(t *testing.T) {
	for _, o := range []binary.ByteOrder{binary.BigEndian, binary.LittleEndian} {
		for _, compress := range []bool{false, true} {
			i16 := make([]byte, 6)
			o.PutUint16(i16, uint16(0xfffe))
			o.PutUint16(i16[2:], 3)
			o.PutUint16(i16[4:], 0x8000)
			b := writeMAT(o, compress,
				tv{"x", mxDOUBLE, []int32{1, 3}, miDOUBLE, float64s(o, 1.5, -2, 1e300)},
				// A double array stored as int16, as MATLAB does when its values fit.
				tv{"y", mxDOUBLE, []int32{3, 1}, miINT16, i16},
			)
			m, err := NewReader(bytes.NewReader(b), int64(len(b)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if x := read(t, m, "x"); !slices.Equal(x.Data, []float64{1.5, -2, 1e300}) {
				t.Errorf("%v %v: x = %v", o, compress, x.Data)
			}
			if y := read(t, m, "y"); !slices.Equal(y.Data, []float64{-2, 3, -32768}) || y.Class != "double" {
				t.Errorf("%v %v: y = %v", o, compress, y.Data)
			}
		}
	}
}

// Size claims are checked before anything is allocated for them.
func TestSizeClaims(t *testing.T) {
	o := binary.LittleEndian
	cases := map[string][]byte{
		// 100000 x 100000 doubles claimed, 3 given.
		"dims": writeMAT(o, true, tv{"x", mxDOUBLE, []int32{100000, 100000}, miDOUBLE, float64s(o, 1, 2, 3)}),
		// dims and data agree, but exceed the limit.
		"limit": writeMAT(o, false, tv{"x", mxDOUBLE, []int32{1, 300}, miDOUBLE, float64s(o, make([]float64, 300)...)}),
		// values of the wrong count.
		"count": writeMAT(o, false, tv{"x", mxDOUBLE, []int32{2, 2}, miDOUBLE, float64s(o, 1, 2, 3)}),
		// dims that overflow int64 when multiplied.
		"overflow": writeMAT(o, false, tv{"x", mxDOUBLE, []int32{math.MaxInt32, math.MaxInt32, math.MaxInt32, math.MaxInt32}, miDOUBLE, nil}),
		"negative": writeMAT(o, false, tv{"x", mxDOUBLE, []int32{-1, 2}, miDOUBLE, nil}),
		"chartype": writeMAT(o, false, tv{"x", mxDOUBLE, []int32{1, 1}, miUTF16, []byte{1, 0}}),
	}
	// An element that claims 4 GB in a file of a few hundred bytes.
	huge := writeMAT(o, false, tv{"x", mxDOUBLE, []int32{1, 1}, miDOUBLE, float64s(o, 1)})
	o.PutUint32(huge[headerLen+4:], 0xfffffff0)
	cases["element"] = huge
	// Inside a compressed element, a values element claiming 4 GB.
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	inner := writeMAT(o, false, tv{"x", mxDOUBLE, []int32{1, 1}, miDOUBLE, float64s(o, 1)})[headerLen:]
	o.PutUint32(inner[4:], 0xffffffff)            // miMATRIX claims 4 GB
	o.PutUint32(inner[8+16+16+16+4:], 0xfffffff0) // and so does its values element
	zw.Write(inner)
	zw.Close()
	zc := append(slices.Clone(huge[:headerLen]), make([]byte, 8)...)
	o.PutUint32(zc[headerLen:], miCOMPRESSED)
	o.PutUint32(zc[headerLen+4:], uint32(z.Len()))
	cases["compressed"] = append(zc, z.Bytes()...)
	for name, b := range cases {
		m, err := NewReader(bytes.NewReader(b), int64(len(b)), Options{MaxBytes: 2000})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if a, err := m.Read("x"); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v %v", name, a, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, n := range []string{"octave_v6.mat", "octave_v7.mat", "scipy_plain.mat", "scipy_zlib.mat"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	o := binary.BigEndian
	f.Add(writeMAT(o, true, tv{"x", mxDOUBLE, []int32{1, 2}, miDOUBLE, float64s(o, 1, 2)}))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := NewReader(bytes.NewReader(b), int64(len(b)), Options{MaxBytes: 1 << 20})
		if err != nil {
			return
		}
		vs, err := m.Vars()
		if err != nil {
			return
		}
		for _, v := range vs {
			a, err := m.Read(v.Name)
			if err != nil {
				if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrNotFound) {
					t.Fatalf("%s: unwrapped error %v", v.Name, err)
				}
				continue
			}
			if len(a.Data) != a.Len() || len(a.Dims) < 2 {
				t.Fatalf("%s: %d values for %v", v.Name, len(a.Data), a.Dims)
			}
		}
	})
}
