package npy

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// The files in testdata were written by numpy 1.24 (Debian's python3-numpy):
// see each test for what they hold.

func TestReadNumPyFiles(t *testing.T) {
	for _, c := range []struct {
		file  string
		shape []int
		data  any
	}{
		{"u8_v1.npy", []int{2, 3, 4}, func() []uint8 {
			b := make([]uint8, 24)
			for i := range b {
				b[i] = uint8(i)
			}
			return b
		}()},
		{"f4_v2.npy", []int{2, 3}, []float32{0, 0.25, 0.5, 0.75, 1, 1.25}},
		{"f8be_v3.npy", []int{3, 2}, []float64{-2.5, -1.5, -0.5, 0.5, 1.5, 2.5}},
		{"i8.npy", []int{3}, []int64{3, -1, 7}},
		{"i4be.npy", []int{3}, []int32{3, -1, 7}},
		{"str.npy", []int{3}, []string{"zero", "één", "2"}},
		{"bytes.npy", []int{2}, []string{"ab", "c"}},
		{"scalar.npy", []int{}, []float64{2.5}},
		{"fortran.npy", []int{2, 3}, []float32{0, 1, 2, 3, 4, 5}},
		{"fortran3.npy", []int{2, 3, 4}, func() []int16 {
			v := make([]int16, 24)
			for i := range v {
				v[i] = int16(i)
			}
			return v
		}()},
	} {
		a, err := ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if !reflect.DeepEqual(a.Shape, c.shape) || !reflect.DeepEqual(a.Data, c.data) {
			t.Errorf("%s: got shape %v data %v, want %v %v", c.file, a.Shape, a.Data, c.shape, c.data)
		}
	}
}

func TestRefusedNumPyFiles(t *testing.T) {
	for file, want := range map[string]string{
		"bool.npy": "unsupported dtype",
		"c8.npy":   "unsupported dtype",
		"rec.npy":  "structured",
	} {
		_, err := ReadFile(filepath.Join("testdata", file))
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error about %q", file, err, want)
		}
	}
}

func TestReadNumPyNPZ(t *testing.T) {
	for _, file := range []string{"stored.npz", "deflated.npz"} {
		z, err := OpenNPZ(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		if got := z.Names(); !reflect.DeepEqual(got, []string{"x", "y"}) {
			t.Errorf("%s: names %v", file, got)
		}
		x, err := z.Array("x")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(x.Shape, []int{2, 3, 4}) {
			t.Errorf("%s: x shape %v", file, x.Shape)
		}
		y, err := z.Array("y")
		if err != nil {
			t.Fatal(err)
		}
		if ys, err := y.Ints(); err != nil || !reflect.DeepEqual(ys, []int{1, 2}) {
			t.Errorf("%s: y = %v, %v", file, ys, err)
		}
		if _, err := z.Array("z"); err == nil || !strings.Contains(err.Error(), `no array "z" (it has x, y)`) {
			t.Errorf("%s: missing array: %v", file, err)
		}
		z.Close()
	}
}

func allTypes() []*Array {
	return []*Array{
		{Shape: []int{2, 2}, Data: []uint8{0, 1, 254, 255}},
		{Shape: []int{3}, Data: []int8{-128, 0, 127}},
		{Shape: []int{2}, Data: []uint16{0, 65535}},
		{Shape: []int{2}, Data: []int16{-32768, 32767}},
		{Shape: []int{1, 2}, Data: []uint32{0, 1<<32 - 1}},
		{Shape: []int{2}, Data: []int32{-1 << 31, 1<<31 - 1}},
		{Shape: []int{2}, Data: []uint64{0, 1<<64 - 1}},
		{Shape: []int{2}, Data: []int64{-1 << 63, 1<<63 - 1}},
		{Shape: []int{2, 1, 3}, Data: []float32{0, 1, -1.5, 3e38, 1e-45, 0.1}},
		{Shape: []int{}, Data: []float64{2.5}},
		{Shape: []int{0, 5}, Data: []float64{}},
		{Shape: []int{3}, Data: []string{"sigmoid", "", "τ"}},
	}
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for i, a := range allTypes() {
		var buf bytes.Buffer
		if err := Write(&buf, a); err != nil {
			t.Fatal(err)
		}
		if (buf.Len()-len(encode(a.Data)))%64 != 0 && a.DType()[1] != 'U' {
			t.Errorf("%s: data does not start at a multiple of 64", a.DType())
		}
		b, err := Read(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", a.DType(), err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: wrote %v, read %v", a.DType(), a, b)
		}
		path := filepath.Join(dir, "a.npy")
		if err := WriteFile(path, a); err != nil {
			t.Fatal(err)
		}
		c, err := ReadFile(path)
		if err != nil || !reflect.DeepEqual(a, c) {
			t.Errorf("file %d: %v %v", i, c, err)
		}
	}
	var named []Named
	for i, a := range allTypes() {
		named = append(named, Named{Name: string(rune('a' + i)), Array: a})
	}
	for _, compress := range []bool{false, true} {
		path := filepath.Join(dir, "all.npz")
		if err := WriteNPZFile(path, compress, named...); err != nil {
			t.Fatal(err)
		}
		got, err := ReadNPZFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range named {
			if !reflect.DeepEqual(got[n.Name], n.Array) {
				t.Errorf("npz (compress %v) %s: %v, want %v", compress, n.Name, got[n.Name], n.Array)
			}
		}
	}
	if err := WriteNPZFile(filepath.Join(dir, "dup.npz"), false, named[0], named[0]); err == nil {
		t.Error("repeated names accepted")
	}
	if _, err := os.Stat(filepath.Join(dir, "dup.npz")); !os.IsNotExist(err) {
		t.Error("a failed write left a file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("temporary files left behind: %v", ents)
	}
}

func TestNewChecksShape(t *testing.T) {
	if _, err := New([]float32{1, 2, 3}, 2, 2); err == nil {
		t.Error("3 values for shape 2 x 2 accepted")
	}
	if _, err := New([]bool{true}, 1); err == nil {
		t.Error("bool data accepted")
	}
	if _, err := New([]float32{1, 2}, -1, -2); err == nil {
		t.Error("negative shape accepted")
	}
	if a, err := New([]float32{1, 2, 3, 4}, 2, 2); err != nil || a.Len() != 4 {
		t.Errorf("%v %v", a, err)
	}
}

// npyBytes returns a .npy file with the given header dictionary and data.
func npyBytes(dict string, data []byte) []byte {
	b := []byte(magic + "\x01\x00")
	b = append(b, byte(len(dict)+1), byte((len(dict)+1)>>8))
	b = append(b, dict...)
	b = append(b, '\n')
	return append(b, data...)
}

func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	huge := npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }", make([]byte, 900))
	good := npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", make([]byte, 8))
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"empty":       {nil, "truncated header"},
		"magic":       {[]byte("PK\x03\x04 not npy"), "wrong magic"},
		"version":     {append([]byte(magic+"\x04\x00"), 0, 0), "format version 4.0"},
		"hlen":        {[]byte(magic + "\x02\x00\xff\xff\xff\x7f"), "exceeds"},
		"short hdr":   {[]byte(magic + "\x01\x00\x50\x00{'descr'"), "truncated header"},
		"huge":        {huge, "header claims"},
		"truncated":   {good[:len(good)-3], "file holds"},
		"trailing":    {append(good, 0), "data after the array"},
		"not a dict":  {npyBytes("[1, 2]", nil), "not a dictionary"},
		"extra key":   {npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", nil), "unexpected"},
		"fourth key":  {npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 'y'}", nil), "want exactly"},
		"no shape":    {npyBytes("{'descr': '<f4', 'fortran_order': False}", nil), "want exactly"},
		"neg shape":   {npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", nil), "non-negative"},
		"big dim":     {npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", nil), "too large"},
		"overflow":    {npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4000000000, 4000000000, 4000000000)}", nil), "too large"},
		"descr":       {npyBytes("{'descr': '<f2', 'fortran_order': False, 'shape': (2,)}", nil), "float32 and float64"},
		"object":      {npyBytes("{'descr': '|O', 'fortran_order': False, 'shape': (2,)}", nil), "unsupported dtype"},
		"U0":          {npyBytes("{'descr': '<U0', 'fortran_order': False, 'shape': (2,)}", nil), "string width"},
		"bad rune":    {npyBytes("{'descr': '<U1', 'fortran_order': False, 'shape': (1,)}", []byte{0, 0xd8, 0, 0}), "invalid code point"},
		"escape":      {npyBytes("{'descr': '<f\\x34', 'fortran_order': False, 'shape': (2,)}", nil), "escapes"},
		"unterminate": {npyBytes("{'descr': '<f4", nil), "unterminated"},
	} {
		_, err := Read(bytes.NewReader(c.data))
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error about %q", name, err, c.want)
		}
		path := filepath.Join(dir, "bad.npy")
		os.WriteFile(path, c.data, 0o644)
		if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: file error %v does not name the file", name, err)
		}
	}
	// A Fortran-order array of one dimension is the same as a C-order one.
	if a, err := Read(bytes.NewReader(npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2,)}", make([]byte, 8)))); err != nil || a.Len() != 2 {
		t.Errorf("1-D Fortran order: %v", err)
	}
}

// TestHugeClaimAllocatesNothing checks that a 1 KB file whose header
// claims 10^12 elements is refused before any allocation for them.
func TestHugeClaimAllocatesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.npy")
	os.WriteFile(path, npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (1000000, 1000, 1000), }", make([]byte, 900)), 0o644)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "header claims 1000000000000 elements") {
		t.Fatalf("accepted, or the wrong error: %v", err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("refusing the file allocated %d bytes", got)
	}
	// Reading from a stream (no size known) grows with the data instead.
	data, _ := os.ReadFile(path)
	if _, err := Read(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "truncated data") {
		t.Errorf("stream: %v", err)
	}
}

func TestBadNPZ(t *testing.T) {
	// A member whose header claims 10^12 elements: refused, for a stored
	// and for a deflated member, without allocating for the claim.
	huge := npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (1000000, 1000000), }", make([]byte, 500))
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		var zb bytes.Buffer
		zw := zip.NewWriter(&zb)
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: "x.npy", Method: method})
		w.Write(huge)
		zw.Close()
		z, err := NewNPZ(bytes.NewReader(zb.Bytes()), int64(zb.Len()))
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = z.Array("x")
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "header claims 1000000000000 elements") {
			t.Errorf("method %d: %v", method, err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
			t.Errorf("method %d: refusing the member allocated %d bytes", method, got)
		}
	}

	if _, err := NewNPZ(bytes.NewReader([]byte("not a zip")), 9); err == nil || !errors.Is(err, ErrFormat) {
		t.Errorf("not a zip: %v", err)
	}
	var buf bytes.Buffer
	WriteNPZ(&buf, true, Named{"x", &Array{Shape: []int{4}, Data: []float32{1, 2, 3, 4}}})
	data := buf.Bytes()
	// Flip a byte of the compressed data: the CRC (or the inflater) fails.
	bad := append([]byte(nil), data...)
	bad[len(bad)/3] ^= 0x55
	if z, err := NewNPZ(bytes.NewReader(bad), int64(len(bad))); err == nil {
		if _, err := z.Array("x"); err == nil {
			t.Error("corrupt member read without error")
		}
	}
}

// TestNumPyReadsOurFiles runs numpy (Debian's python3-numpy) on the files
// Write and WriteNPZ produce; it skips where numpy is absent.
func TestNumPyReadsOurFiles(t *testing.T) {
	py := pythonWithNumPy(t)
	dir := t.TempDir()
	var named []Named
	for i, a := range allTypes() {
		named = append(named, Named{Name: string(rune('a' + i)), Array: a})
		if err := WriteFile(filepath.Join(dir, string(rune('a'+i))+".npy"), a); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteNPZFile(filepath.Join(dir, "all.npz"), true, named...); err != nil {
		t.Fatal(err)
	}
	script := `
import sys, numpy as np
d = sys.argv[1]
z = np.load(d + "/all.npz", allow_pickle=False)
for k in sorted(z.files):
    a = np.load(d + "/" + k + ".npy", allow_pickle=False)
    assert a.shape == z[k].shape and a.dtype == z[k].dtype and (a == z[k]).all(), k
    print(k, a.dtype.str, a.shape, a.ravel().tolist())
`
	out, err := exec.Command(py, "-c", script, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	want := []string{
		"a |u1 (2, 2) [0, 1, 254, 255]",
		"b |i1 (3,) [-128, 0, 127]",
		"g <u8 (2,) [0, 18446744073709551615]",
		"h <i8 (2,) [-9223372036854775808, 9223372036854775807]",
		"j <f8 () [2.5]",
		"k <f8 (0, 5) []",
		"l <U7 (3,) ['sigmoid', '', 'τ']",
	}
	for _, w := range want {
		if !strings.Contains(string(out), w+"\n") {
			t.Errorf("numpy printed\n%s\nwithout %q", out, w)
		}
	}
}

// pythonWithNumPy returns a Python interpreter that imports numpy, or
// skips the test.
func pythonWithNumPy(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import numpy").Run() == nil {
			return py
		}
	}
	if os.Getenv("SCN_REQUIRE_TOOLS") != "" {
		t.Fatal("no python3 with numpy (apt-get install python3-numpy), and SCN_REQUIRE_TOOLS is set")
	}
	t.Skip("no python3 with numpy (apt-get install python3-numpy)")
	return ""
}
