package statsfile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// tri is a lower triangle stored row by row.
type tri [][]float64

func (t tri) Row(i int) []float64 { return t[i] }

func newTri(l int) tri {
	t := make(tri, l)
	for i := range t {
		t[i] = make([]float64, i+1)
	}
	return t
}

// sample is the content of a small file: L = 3 nodes, m = 2 outputs.
type sample struct {
	h         Header
	recipe    []byte
	g, ht, tt []float64
	f         tri
}

func newSample(factor bool) sample {
	s := sample{
		h:      Header{Samples: 10, Outputs: 2, Nodes: 3, Classes: []string{"a", "b"}, ClassCounts: []int{4, 6}},
		recipe: []byte("a model file's bytes"),
		g:      []float64{4, 1, 0, 1, 5, 2, 0, 2, 6},
		ht:     []float64{1, 2, 3, 4, 5, math.Copysign(0, -1)},
		tt:     []float64{7, 8, 8, 9},
	}
	if factor {
		s.h.Factor = &FactorHeader{Samples: 10, Ridge: 0.5}
		s.f = tri{{2}, {0.5, 2.1}, {0, 0.9, 2.3}}
	}
	return s
}

func (s sample) write(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	var f Triangle
	if s.f != nil {
		f = s.f
	}
	n, err := Write(&buf, s.h, s.recipe, s.g, s.ht, s.tt, f)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("Write says %d bytes, wrote %d", n, buf.Len())
	}
	return buf.Bytes()
}

// read reads a file, the factor (if any) into a new triangle.
func read(data []byte, size int64) (*Contents, tri, error) {
	var f tri
	c, err := Read(bytes.NewReader(data), size, nil, func(l int) Triangle { f = newTri(l); return f })
	return c, f, err
}

func TestRoundTrip(t *testing.T) {
	for _, factor := range []bool{false, true} {
		s := newSample(factor)
		file := s.write(t)
		// The sizes the format's description gives.
		hlen := int(binary.LittleEndian.Uint32(file[12:]))
		l, m := 3, 2
		want := 20 + hlen + len(s.recipe) + 8*(l*l+l*m+m*m)
		if factor {
			want = 32 + hlen + len(s.recipe) + 8*(l*l+l*m+m*m) + 4*l*(l+1)
		}
		if len(file) != want {
			t.Errorf("factor %v: %d bytes, want %d", factor, len(file), want)
		}
		for _, size := range []int64{-1, int64(len(file))} {
			c, f, err := read(file, size)
			if err != nil {
				t.Fatalf("factor %v, size %d: %v", factor, size, err)
			}
			s.h.RecipeBytes = len(s.recipe)
			if !reflect.DeepEqual(c.Header, s.h) || !bytes.Equal(c.Recipe, s.recipe) || c.Gram != nil ||
				!sameBits(c.G, s.g) || !sameBits(c.HT, s.ht) || !sameBits(c.TT, s.tt) || !reflect.DeepEqual(f, s.f) {
				t.Errorf("factor %v, size %d: read back %+v, factor %v", factor, size, c, f)
			}
		}
	}
}

func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestLayout checks a version 1 file against the layout written out by
// hand.
func TestLayout(t *testing.T) {
	s := newSample(false)
	h := s.h
	h.RecipeBytes = len(s.recipe)
	js, _ := json.Marshal(h)
	le := binary.LittleEndian
	want := append([]byte("2DSCNSTA"), le.AppendUint32(nil, 1)...)
	want = le.AppendUint32(want, uint32(len(js)))
	want = append(append(want, js...), s.recipe...)
	for _, part := range [][]float64{s.g, s.ht, s.tt} {
		for _, v := range part {
			want = le.AppendUint64(want, math.Float64bits(v))
		}
	}
	want = le.AppendUint32(want, crc32.Checksum(want, crc32.MakeTable(crc32.Castagnoli)))
	if got := s.write(t); !bytes.Equal(got, want) {
		t.Fatalf("file\n%x\nwant\n%x", got, want)
	}
}

// TestLazyGram: a version 2 file whose factor is of its own G, read with
// G left unread, then G loaded from the file; a file changed since is
// refused, and so is a corrupt G.
func TestLazyGram(t *testing.T) {
	s := newSample(true)
	file := s.write(t)
	path := filepath.Join(t.TempDir(), "s.scnstats")
	if err := os.WriteFile(path, file, 0o666); err != nil {
		t.Fatal(err)
	}
	open := func() *Contents {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		c, err := Read(f, int64(len(file)), &GramAt{Path: path, Size: int64(len(file))}, func(l int) Triangle { return newTri(l) })
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := open()
	if c.G != nil || c.Gram == nil || !sameBits(c.TT, s.tt) {
		t.Fatalf("G read, or sums wrong: %+v", c)
	}
	g, err := c.Gram.Load()
	if err != nil || !sameBits(g, s.g) {
		t.Fatalf("Load: %v, %v", g, err)
	}
	// A byte of G flipped on disk: the checksum of G catches it.
	bad := bytes.Clone(file)
	bad[bytes.Index(file, s.recipe)+len(s.recipe)+4+3] ^= 1
	if err := os.WriteFile(path, bad, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Gram.Load(); err == nil || !strings.Contains(err.Error(), "checksum mismatch in G") {
		t.Errorf("corrupt G: %v", err)
	}
	c = open() // the G's checksum is not read on opening
	if err := os.WriteFile(path, file[:len(file)-1], 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Gram.Load(); !errors.Is(err, ErrStats) || !strings.Contains(err.Error(), "changed since") {
		t.Errorf("file changed: %v", err)
	}
	// Statistics whose factor is of part of their images: G is read.
	s.h.Factor.Samples = 5
	file = s.write(t)
	c, err = Read(bytes.NewReader(file), int64(len(file)), &GramAt{Path: path, Size: int64(len(file))}, func(l int) Triangle { return newTri(l) })
	if err != nil || c.Gram != nil || !sameBits(c.G, s.g) {
		t.Errorf("factor of 5 of 10 images: G not read (%v)", err)
	}
}

func TestBadFiles(t *testing.T) {
	v1, v2 := newSample(false).write(t), newSample(true).write(t)
	le := binary.LittleEndian
	mod := func(file []byte, f func(b []byte)) []byte {
		b := bytes.Clone(file)
		f(b)
		return b
	}
	// header returns file with its header's JSON replaced by js.
	header := func(file []byte, js string) []byte {
		hlen := le.Uint32(file[12:])
		b := append(bytes.Clone(file[:12]), le.AppendUint32(nil, uint32(len(js)))...)
		return append(append(b, js...), file[16+hlen:]...)
	}
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"empty", "truncated preamble", nil},
		{"short preamble", "truncated preamble", v1[:9]},
		{"model magic", "not a statistics file", mod(v1, func(b []byte) { copy(b, "2DSCNMDL") })},
		{"version 3", "format version 3", mod(v1, func(b []byte) { le.PutUint32(b[8:], 3) })},
		{"absurd header", "header length 4294967295", mod(v1, func(b []byte) { le.PutUint32(b[12:], math.MaxUint32) })},
		{"tiny header", "header length 1", mod(v1, func(b []byte) { le.PutUint32(b[12:], 1) })},
		{"cut header", "truncated header", v1[:30]},
		{"bad json", "header:", header(v1, `[]`)},
		{"unknown field", "unknown field", header(v1, `{"samples":1,"colour":1}`)},
		{"no nodes", "0 nodes", header(v1, `{"samples":1,"outputs":1,"nodes":0,"recipe_bytes":5}`)},
		{"class counts", "class names and 1 counts", header(v1, `{"samples":1,"outputs":2,"nodes":1,"recipe_bytes":5,"classes":["a","b"],"class_counts":[1]}`)},
		{"version 1 with a factor", "with a factor section: true", header(v1, `{"samples":1,"outputs":1,"nodes":1,"recipe_bytes":5,"factor":{"samples":1,"ridge":0}}`)},
		{"version 2 without", "with a factor section: false", mod(v1, func(b []byte) { le.PutUint32(b[8:], 2) })},
		{"factor of more images", "a factor of the G of 11 images", header(v2, `{"samples":10,"outputs":2,"nodes":3,"recipe_bytes":20,"factor":{"samples":11,"ridge":0.5}}`)},
		{"negative ridge", "a factor with ridge -1", header(v2, `{"samples":10,"outputs":2,"nodes":3,"recipe_bytes":20,"factor":{"samples":10,"ridge":-1}}`)},
		{"absurd nodes", "too large", header(v1, `{"samples":1,"outputs":1,"nodes":100000000,"recipe_bytes":5}`)},
		{"cut sums", "truncated", v1[:len(v1)-9]},
		{"cut factor", "truncated", v2[:len(v2)-9]},
		{"trailing bytes", "trailing bytes", append(bytes.Clone(v1), 0)},
		{"bit flip v1", "checksum mismatch in the file", mod(v1, func(b []byte) { b[len(b)-10] ^= 1 })},
		{"bit flip in the factor", "checksum mismatch in the factor", mod(v2, func(b []byte) { b[len(b)-10] ^= 1 })},
		{"bit flip in the recipe", "checksum mismatch in the header", mod(v2, func(b []byte) { b[bytes.Index(v2, []byte("model"))] ^= 1 })},
	} {
		for _, size := range []int64{-1, int64(len(tc.data))} {
			_, _, err := read(tc.data, size)
			if !errors.Is(err, ErrStats) || !strings.Contains(err.Error(), tc.want) && !(size >= 0 && strings.Contains(err.Error(), "truncated")) {
				t.Errorf("%s (size %d): %v, want ErrStats with %q", tc.name, size, err, tc.want)
			}
		}
	}
}

// TestNoAllocationBeforeData: a header claiming sums far larger than the
// data is refused against the file's size when known, and read in blocks
// of the data that arrived (never the claim) when not.
func TestNoAllocationBeforeData(t *testing.T) {
	s := newSample(false)
	s.h.Nodes = 20000 // 3.2 GB of G claimed
	s.g = nil
	var buf bytes.Buffer
	if _, err := Write(&buf, s.h, s.recipe, nil, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{-1, int64(buf.Len())} {
		var before, after runtimeMem
		before.read()
		_, _, err := read(buf.Bytes(), size)
		after.read()
		if err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("size %d: %v", size, err)
		}
		if grew := after.total - before.total; grew > 64<<20 {
			t.Errorf("size %d: %d bytes allocated for a file of %d", size, grew, buf.Len())
		}
	}
}

// FuzzRead reads any bytes as a statistics file, of known and of unknown
// size: no panic, errors wrap ErrStats, both ways agree, and what is read
// writes back to a file that reads the same.
func FuzzRead(f *testing.F) {
	f.Add(newSample(false).write(f))
	f.Add(newSample(true).write(f))
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, tr, err := read(data, -1)
		c2, _, err2 := read(data, int64(len(data)))
		if (err == nil) != (err2 == nil) {
			t.Fatalf("known size: %v, unknown: %v", err2, err)
		}
		if err != nil {
			if !errors.Is(err, ErrStats) {
				t.Fatalf("error %v does not wrap ErrStats", err)
			}
			return
		}
		if !reflect.DeepEqual(c.Header, c2.Header) {
			t.Fatal("known and unknown size read different headers")
		}
		var out bytes.Buffer
		var ft Triangle
		if tr != nil {
			ft = tr
		}
		if _, err := Write(&out, c.Header, c.Recipe, c.G, c.HT, c.TT, ft); err != nil {
			t.Fatal(err)
		}
		back, _, err := read(out.Bytes(), -1)
		if err != nil || !reflect.DeepEqual(back.Header, c.Header) || !bytes.Equal(back.Recipe, c.Recipe) {
			t.Fatalf("written back: %v", err)
		}
	})
}
