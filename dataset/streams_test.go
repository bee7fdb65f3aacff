package dataset

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/npy"
)

// streamed puts the shards of one pass of src together as a set.
func streamed(t testing.TB, src Stream) (*Set, error) {
	t.Helper()
	var s *Set
	err := src.Shards(context.Background(), func(sh scn.Shard) error {
		if s == nil {
			s = &Set{Rows: sh.X.Rows, Cols: sh.X.Cols, Channels: sh.X.Channels, Classes: sh.Classes}
		}
		s.Pix = append(s.Pix, sh.X.Pix...)
		s.Labels = append(s.Labels, scn.ArgMax(sh.T, sh.M)...)
		return nil
	})
	return s, err
}

// prepared is the set a whole-file reader gives, prepared with p as the
// command line prepares it.
func prepared(t testing.TB, s *Set, err error, p Preprocess) *Set {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if p.KeepsImages(s) {
		return s
	}
	if s, err = Prepare(s, p); err != nil {
		t.Fatal(err)
	}
	return s
}

// sameStream checks that two passes of src give want: the same float32
// bits, labels, classes, shape, planes, source text and inversions.
func sameStream(t *testing.T, what string, src Stream, want *Set) {
	t.Helper()
	for pass := 0; pass < 2; pass++ {
		got, err := streamed(t, src)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		sh := src.Shape()
		rows, cols := sh.Rows, sh.Cols
		switch {
		case sh != want.Shape():
			t.Fatalf("%s: the source's shape %+v, the set's %+v", what, sh, want.Shape())
		case got.Rows != want.Rows || got.Cols != want.Cols || got.Chans() != want.Chans():
			t.Fatalf("%s: shards of %d x %d x %d, the set's %d x %d x %d", what, got.Chans(), got.Rows, got.Cols, want.Chans(), want.Rows, want.Cols)
		case rows != want.Rows || cols != want.Cols || src.Chans() != want.Chans() || src.Len() != want.Len():
			t.Fatalf("%s: the source says %d images of %d x %d x %d", what, src.Len(), src.Chans(), rows, cols)
		case !equalBits(got.Pix, want.Pix):
			t.Fatalf("%s: the pixels differ", what)
		case !reflect.DeepEqual(got.Labels, want.Labels) || !reflect.DeepEqual(got.Classes, want.Classes) || !reflect.DeepEqual(src.Classes(), want.Classes):
			t.Fatalf("%s: labels %v classes %v, want %v %v", what, got.Labels, got.Classes, want.Labels, want.Classes)
		case src.Describe() != want.Source || src.Inverted() != want.Inverted:
			t.Fatalf("%s: source %q (%d inverted), want %q (%d)", what, src.Describe(), src.Inverted(), want.Source, want.Inverted)
		}
	}
}

// preps are the preprocessings the equality tests try.
var preps = []Preprocess{
	{},
	{Invert: "auto"},
	{Invert: "yes", ResizeRows: 9, ResizeCols: 7, Fit: "pad"},
	{MNIST: true},
	{Invert: "auto", Deskew: true},
}

// randomBytes returns n bytes, some images dark ink on light.
func randomBytes(seed uint64, n, d int) []uint8 {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]uint8, n*d)
	for i := range b {
		b[i] = uint8(r.IntN(256))
		if (i/d)%3 == 0 && r.IntN(4) > 0 {
			b[i] = 250
		}
	}
	return b
}

// TestNumPySourceIsTheSet: the shards of .npy and .npz image arrays (stored
// and deflated) put together are the set ReadNPY and ReadNPZ give and
// Prepare prepares, for uint8, float32 and float64 arrays, grey, channels
// last and channels first, flat arrays given a shape, integer and string
// labels, in chunks that do not divide N.
func TestNumPySourceIsTheSet(t *testing.T) {
	dir := t.TempDir()
	const n = 23
	b := randomBytes(1, n, 3*12*10)
	f32 := make([]float32, len(b))
	f64 := make([]float64, len(b))
	for i, v := range b {
		f32[i] = float32(v) / 255
		f64[i] = float64(v) / 254.3
	}
	labels := make([]int64, n)
	names := make([]string, n)
	for i := range labels {
		labels[i] = int64(i*7) % 5
		names[i] = []string{"cat", "dog", "emu"}[i%3]
	}
	cases := []struct {
		name       string
		x          *npy.Array
		rows, cols int
		first      bool
	}{
		{"u8 grey", mustArray(t, b[:n*120], n, 12, 10), 0, 0, false},
		{"u8 flat", mustArray(t, b[:n*120], n, 120), 12, 0, false},
		{"f32 channels last", mustArray(t, f32, n, 12, 10, 3), 0, 0, false},
		{"f64 channels first", mustArray(t, f64, n, 3, 12, 10), 0, 0, true},
	}
	for k, c := range cases {
		y := mustArray(t, labels, n)
		if k%2 == 1 {
			y = mustArray(t, names, n, 1)
		}
		xp, yp, zp := filepath.Join(dir, "x.npy"), filepath.Join(dir, "y.npy"), filepath.Join(dir, "d.npz")
		if err := npy.WriteFile(xp, c.x); err != nil {
			t.Fatal(err)
		}
		if err := npy.WriteFile(yp, y); err != nil {
			t.Fatal(err)
		}
		ps := append(preps, Preprocess{Channels: 1})
		for _, p := range ps {
			what := fmt.Sprintf("%s, %+v", c.name, p)
			s, err := ReadNPY(xp, yp, "", c.rows, c.cols, c.first)
			want := prepared(t, s, err, p)
			src, err := OpenNPYSource(xp, yp, c.rows, c.cols, c.first, p)
			if err != nil {
				t.Fatal(err)
			}
			src.Chunk = 5
			sameStream(t, what+", npy", src, want)
			for _, compress := range []bool{false, true} {
				if err := npy.WriteNPZFile(zp, compress, npy.Named{Name: "y", Array: y}, npy.Named{Name: "img", Array: c.x}); err != nil {
					t.Fatal(err)
				}
				s, err := ReadNPZ(zp, "img", "y", false, c.rows, c.cols, c.first)
				want := prepared(t, s, err, p)
				src, err := OpenNPZSource(zp, "img", "y", c.rows, c.cols, c.first, p)
				if err != nil {
					t.Fatal(err)
				}
				src.Chunk = 7
				sameStream(t, fmt.Sprintf("%s, npz (deflated %v)", what, compress), src, want)
			}
		}
	}
}

// TestNumPySourceRefuses: labels that do not match the images, a file
// truncated or grown after it was opened, a non-finite pixel in a later
// shard and a Fortran-ordered array are errors naming the file.
func TestNumPySourceRefuses(t *testing.T) {
	dir := t.TempDir()
	xp, yp := filepath.Join(dir, "x.npy"), filepath.Join(dir, "y.npy")
	x := make([]float32, 10*4)
	if err := npy.WriteFile(xp, mustArray(t, x, 10, 2, 2)); err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteFile(yp, mustArray(t, make([]int64, 9), 9)); err != nil {
		t.Fatal(err)
	}
	_, err := OpenNPYSource(xp, yp, 0, 0, false, Preprocess{})
	wantErr(t, "9 labels", err, "x.npy", "y.npy", "10 images")
	npy.WriteFile(yp, mustArray(t, make([]int64, 10), 10))
	src, err := OpenNPYSource(xp, yp, 0, 0, false, Preprocess{})
	if err != nil {
		t.Fatal(err)
	}
	src.Chunk = 3
	raw, _ := os.ReadFile(xp)
	os.WriteFile(xp, raw[:len(raw)-5], 0o644)
	_, err = streamed(t, src)
	wantErr(t, "truncated after opening", err, "x.npy", "truncated")
	_, err = OpenNPYSource(xp, yp, 0, 0, false, Preprocess{})
	wantErr(t, "truncated", err, "x.npy", "truncated")
	os.WriteFile(xp, append(raw, 0), 0o644)
	_, err = OpenNPYSource(xp, yp, 0, 0, false, Preprocess{})
	wantErr(t, "grown", err, "x.npy", "data after the array")
	x[9*4+1] = float32(math.NaN()) // in the last image
	npy.WriteFile(xp, mustArray(t, x, 10, 2, 2))
	src, _ = OpenNPYSource(xp, yp, 0, 0, false, Preprocess{})
	src.Chunk = 4
	_, err = streamed(t, src)
	wantErr(t, "NaN", err, "x.npy (images 8 to 9)", "non-finite")
	_, err = OpenNPYSource(filepath.Join("..", "npy", "testdata", "fortran.npy"), yp, 0, 0, false, Preprocess{})
	wantErr(t, "Fortran", err, "fortran.npy", "Fortran order")
}

// folderOfImages writes class folders of 6 x 5 images: grey PNGs, grey
// pictures saved as RGB, dark ink on light, and (with colour) RGB ones
// from the third image of class b on.
func folderOfImages(t testing.TB, colour bool) string {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	for k, class := range []string{"a", "b", "c"} {
		for i := 0; i < 7; i++ {
			g := image.NewGray(image.Rect(0, 0, 5, 6))
			for j := range g.Pix {
				g.Pix[j] = uint8(r.IntN(256))
				if i%3 == 0 {
					g.Pix[j] = 255 - uint8(r.IntN(30))
				}
			}
			var img image.Image = g
			switch {
			case colour && k == 1 && i == 2, colour && k == 2 && i%2 == 0:
				c := image.NewRGBA(g.Bounds())
				for j := 0; j < 30; j++ {
					c.Set(j%5, j/5, color.RGBA{g.Pix[j], uint8(r.IntN(256)), 7, 255})
				}
				img = c
			case i%2 == 1:
				c := image.NewRGBA(g.Bounds()) // grey, saved as RGB
				for j := 0; j < 30; j++ {
					c.Set(j%5, j/5, color.RGBA{g.Pix[j], g.Pix[j], g.Pix[j], 255})
				}
				img = c
			}
			writeFile(t, dir, fmt.Sprintf("%s/%02d.png", class, i), encodeAs(t, img, "png"))
		}
	}
	return dir
}

// TestFolderSourceIsTheSet: the shards of a folder of class subfolders put
// together are the set ReadFolder gives, grey and colour (the first colour
// image in the middle of the folder), with every preprocessing, --grey and
// colour asked for.
func TestFolderSourceIsTheSet(t *testing.T) {
	for _, colour := range []bool{false, true} {
		dir := folderOfImages(t, colour)
		for _, p := range append(preps, Preprocess{Channels: 1}, Preprocess{Channels: 3, Invert: "auto"}) {
			want, err := ReadFolder(dir, p)
			if err != nil {
				t.Fatal(err)
			}
			src, err := OpenFolderSource(dir, p)
			if err != nil {
				t.Fatal(err)
			}
			src.Chunk = 4
			sameStream(t, fmt.Sprintf("colour %v, %+v", colour, p), src, want)
		}
	}
}

// TestFolderSourceRefuses: an image of another size in the middle of the
// stream stops the pass naming its file; an undecodable file too.
func TestFolderSourceRefuses(t *testing.T) {
	dir := folderOfImages(t, false)
	writeFile(t, dir, "b/03.png", pngBytes(t, 4, 4))
	src, err := OpenFolderSource(dir, Preprocess{})
	if err != nil {
		t.Fatal(err)
	}
	src.Chunk = 5
	n := 0
	_, err = streamed(t, src)
	wantErr(t, "another size", err, filepath.Join(dir, "b", "03.png"), "4 x 4", "6 x 5", "--resize")
	writeFile(t, dir, "b/03.png", []byte("not an image"))
	src, _ = OpenFolderSource(dir, Preprocess{Channels: 1})
	src.Chunk = 5
	err = src.Shards(context.Background(), func(scn.Shard) error { n++; return nil })
	wantErr(t, "undecodable", err, filepath.Join(dir, "b", "03.png"))
	if n != 2 {
		t.Fatalf("%d shards before the bad file (image 10), want 2", n)
	}
	_, err = OpenFolderSource(t.TempDir(), Preprocess{})
	wantErr(t, "empty", err, "no class subfolders")
}

// csvText writes n lines of label and 12 pixels, with a header.
func csvText(n int, scale float64) string {
	r := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("label,p1,p2,p3,p4,p5,p6,p7,p8,p9,p10,p11,p12\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d", (i*3)%4)
		for j := 0; j < 12; j++ {
			fmt.Fprintf(&b, ",%g", float64(r.IntN(256))*scale)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestCSVSourceIsTheSet: the shards of a CSV file put together are the set
// ReadCSV gives and Prepare prepares, for 0-255 values and values in
// [0, 1]; a file that changes between passes is refused.
func TestCSVSourceIsTheSet(t *testing.T) {
	dir := t.TempDir()
	for _, scale := range []float64{1, 1.0 / 255} {
		path := writeFile(t, dir, "d.csv", []byte(csvText(17, scale)))
		for _, p := range preps {
			s, err := ReadCSV(path, 3, 4)
			want := prepared(t, s, err, p)
			src, err := OpenCSVSource(path, 3, 4, p)
			if err != nil {
				t.Fatal(err)
			}
			src.Chunk = 5
			sameStream(t, fmt.Sprintf("scale %v, %+v", scale, p), src, want)
		}
	}
	path := writeFile(t, dir, "d.csv", []byte(csvText(17, 1.0/255)))
	src, err := OpenCSVSource(path, 3, 4, Preprocess{})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{csvText(16, 1.0/255), csvText(18, 1.0/255), csvText(17, 1)} {
		writeFile(t, dir, "d.csv", []byte(text))
		_, err = streamed(t, src)
		wantErr(t, "changed", err, "d.csv", "changed while it was read")
	}
	writeFile(t, dir, "d.csv", []byte(csvText(17, 1)+"3,1,2\n"))
	_, err = OpenCSVSource(path, 3, 4, Preprocess{})
	wantErr(t, "short line", err, "d.csv", "line 19")
}

// FuzzCSVSource: any bytes as a CSV file give the set ReadCSVFrom reads,
// or an error from both.
func FuzzCSVSource(f *testing.F) {
	f.Add([]byte(csvText(5, 1)), uint8(2))
	f.Add([]byte("1,0.5,1\n2,0,0.25\n"), uint8(1))
	f.Add([]byte("1,0.5,1\n2,0\n"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		want, err := ReadCSVFrom(bytes.NewReader(data), 0, 0)
		open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
		src, serr := openCSVSource("f.csv", open, 0, 0, Preprocess{})
		if (err == nil) != (serr == nil) {
			t.Fatalf("whole: %v; stream: %v", err, serr)
		}
		if err != nil {
			return
		}
		src.Chunk = max(int(k), 1)
		got, err := streamed(t, src)
		if err != nil {
			t.Fatal(err)
		}
		if !equalBits(got.Pix, want.Pix) || !reflect.DeepEqual(got.Labels, want.Labels) || !reflect.DeepEqual(got.Classes, want.Classes) {
			t.Fatal("the stream differs from the whole read")
		}
	})
}
