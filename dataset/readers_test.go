package dataset

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"golang.org/x/image/bmp"
)

// gzipBytes compresses data.
func gzipBytes(data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// writeFile writes data below dir, making folders.
func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantErr checks that err is an error that names every one of names.
func wantErr(t *testing.T, what string, err error, names ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: accepted", what)
		return
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("%s: error %q does not name %q", what, err, n)
		}
	}
}

func TestIDXGzipDetectedByContent(t *testing.T) {
	dir := t.TempDir()
	img := idxBytes(8, []int{2, 1, 3}, []byte{0, 51, 102, 153, 204, 255})
	lab := idxBytes(8, []int{2}, []byte{1, 0})
	// gzip content under a plain name, plain content under a .gz name
	ip := writeFile(t, dir, "images.idx", gzipBytes(img))
	lp := writeFile(t, dir, "labels.gz", lab)
	s, err := ReadIDX(ip, lp)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2 || s.Rows != 1 || s.Cols != 3 || s.Pix[1] != 0.2 || s.Labels[0] != 1 {
		t.Fatalf("read %d images of %d x %d: %v %v", s.Len(), s.Rows, s.Cols, s.Pix, s.Labels)
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

func TestIDXHugeClaimFailsFastWithoutAllocating(t *testing.T) {
	for name, data := range map[string][]byte{
		// 20 bytes claiming 2^31 images of 1 x 1 (2 GiB, under the 4 GiB bound)
		"2^31 of 1x1": append(idxHeader(8, 1<<31, 1, 1), 1, 2, 3, 4),
		// 20 bytes claiming 2^31 images of 28 x 28 (beyond the bound)
		"2^31 of 28x28": append(idxHeader(8, 1<<31, 28, 28), 1, 2, 3, 4),
		// the same claim inside a gzip stream
		"gzip 2^31 of 1x1": gzipBytes(append(idxHeader(8, 1<<31, 1, 1), 1, 2, 3, 4)),
		// 2^31 float64 targets
		"2^31 targets": append(idxHeader(idxFloat64, 1<<31), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12),
	} {
		path := writeFile(t, t.TempDir(), "claim", data)
		var err error
		start := time.Now()
		n := allocated(func() {
			if strings.Contains(name, "targets") {
				_, _, err = ReadIDXTargets(path)
			} else {
				_, err = ReadIDX(path, "")
			}
		})
		took := time.Since(start)
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v", name, err)
		}
		if n > 4<<20 || took > 2*time.Second {
			t.Errorf("%s: allocated %d bytes in %v before refusing", name, n, took)
		}
		t.Logf("%s: %d bytes allocated, %v: %v", name, n, took, err)
	}
}

func TestIDXRefusals(t *testing.T) {
	dir := t.TempDir()
	img := idxBytes(8, []int{2, 2, 2}, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	good := writeFile(t, dir, "good", img)
	three := writeFile(t, dir, "three-labels", idxBytes(8, []int{3}, []byte{0, 1, 2}))
	_, err := ReadIDX(good, three)
	wantErr(t, "label count", err, good, three, "3 labels", "2 images")

	trailing := writeFile(t, dir, "trailing", append(append([]byte(nil), img...), 9))
	_, err = ReadIDX(trailing, "")
	wantErr(t, "trailing data", err, trailing, "more data than its header claims")

	gz := gzipBytes(img)
	gz[len(gz)-8] ^= 0xff // the CRC-32 of the gzip trailer
	badCRC := writeFile(t, dir, "crc.gz", gz)
	_, err = ReadIDX(badCRC, "")
	wantErr(t, "gzip checksum", err, badCRC)

	garbage := writeFile(t, dir, "garbage.gz", append(gzipBytes(img), 'x', 'y'))
	_, err = ReadIDX(garbage, "")
	wantErr(t, "data after the gzip stream", err, garbage)

	labelsAsImages := writeFile(t, dir, "labels-as-images", idxBytes(8, []int{3}, []byte{0, 1, 2}))
	_, err = ReadIDX(labelsAsImages, "")
	wantErr(t, "labels as images", err, labelsAsImages, "N x rows x cols")

	_, err = ReadIDX(good, good)
	wantErr(t, "images as labels", err, good, "labels must be")

	floats := writeFile(t, dir, "nan", idxBytes(idxFloat32, []int{1}, []byte{0x7f, 0xc0, 0, 0}))
	_, _, err = ReadIDXTargets(floats)
	wantErr(t, "NaN target", err, floats, "NaN")
	_, _, err = ReadIDXTargets(good)
	wantErr(t, "bytes as targets", err, good, "float32 or float64")
}

// encoded returns a 4 x 3 colour test picture encoded in format.
func encoded(t testing.TB, format string) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	for y := 0; y < 3; y++ {
		for x := 0; x < 4; x++ {
			img.Set(x, y, color.RGBA{uint8(60 * x), uint8(100 * y), 40, 255})
		}
	}
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var b bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&b, img)
	case "gif":
		// a palette of the picture's own colours: no dithering
		var pal color.Palette
		for y := 0; y < 3; y++ {
			for x := 0; x < 4; x++ {
				pal = append(pal, img.At(x, y))
			}
		}
		pimg := image.NewPaletted(img.Bounds(), pal)
		for y := 0; y < 3; y++ {
			for x := 0; x < 4; x++ {
				pimg.SetColorIndex(x, y, uint8(4*y+x))
			}
		}
		err = gif.Encode(&b, pimg, nil)
	case "jpeg":
		err = jpeg.Encode(&b, img, &jpeg.Options{Quality: 100})
	case "bmp":
		err = bmp.Encode(&b, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDecodeColourFormats(t *testing.T) {
	for _, c := range []struct {
		format string
		tol    float64
	}{{"png", 1e-6}, {"bmp", 1e-6}, {"gif", 1e-6}, {"jpeg", 0.08}} {
		pix, rows, cols, err := DecodeImage(bytes.NewReader(encoded(t, c.format)), c.format)
		if err != nil || rows != 3 || cols != 4 {
			t.Errorf("%s: %d x %d, %v", c.format, rows, cols, err)
			continue
		}
		// pixel (0, 0) is pure red: luma 0.299; pixel (x=3, y=2) is (180, 200, 40)
		want := map[int]float64{0: 0.299, 2*4 + 3: (0.299*180 + 0.587*200 + 0.114*40) / 255}
		for i, w := range want {
			if math.Abs(float64(pix[i])-w) > c.tol {
				t.Errorf("%s: pixel %d is %.4f, want %.4f", c.format, i, pix[i], w)
			}
		}
		// A truncated file is refused, naming it.
		data := encoded(t, c.format)
		_, _, _, err = DecodeImage(bytes.NewReader(data[:len(data)/2]), "half."+c.format)
		wantErr(t, "truncated "+c.format, err, "half."+c.format)
	}
}

func TestDecodeRefusesClaimsBeforeAllocating(t *testing.T) {
	// A PNG header claiming 30000 x 30000 RGBA pixels, without data.
	var b bytes.Buffer
	png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 1, 1)))
	data := b.Bytes()
	ihdr := bytes.Index(data, []byte("IHDR"))
	copy(data[ihdr+4:], []byte{0, 0, 0x75, 0x30, 0, 0, 0x75, 0x30}) // the CRC is now wrong too
	n := allocated(func() {
		_, _, _, err := DecodeImage(bytes.NewReader(data), "huge.png")
		wantErr(t, "huge png", err, "huge.png")
	})
	if n > 16<<20 {
		t.Errorf("a %d-byte PNG made the decoder allocate %d bytes", len(data), n)
	}
	n = allocated(func() {
		_, _, _, err := DecodeImage(strings.NewReader("P5 16000 16000 255\n"), "huge.pgm")
		wantErr(t, "huge pgm", err, "huge.pgm")
	})
	if n > 16<<20 {
		t.Errorf("a PGM header made the decoder allocate %d bytes", n)
	}
}

func TestPNMForms(t *testing.T) {
	for name, c := range map[string]struct {
		data string
		want []float32
	}{
		"P2 comments": {"P2 # a\n2 # b\n1\n# c\n10 0 10\n", []float32{0, 1}},
		"P3 colour":   {"P3\n2 1\n255\n255 0 0  0 0 255\n", []float32{0.299, 0.114}},
		"P5 16 bit":   {"P5\n2 1\n1000\n\x03\xe8\x01\xf4", []float32{1, 0.5}},
		"P6 16 bit":   {"P6 1 1 65535\n\xff\xff\xff\xff\xff\xff", []float32{1}},
		"P5 CR":       {"P5 1 1 255\r\x80", []float32{128.0 / 255}},
	} {
		pix, _, _, err := DecodeImage(strings.NewReader(c.data), name)
		if err != nil || len(pix) != len(c.want) {
			t.Errorf("%s: %v %v", name, pix, err)
			continue
		}
		for i := range pix {
			if math.Abs(float64(pix[i]-c.want[i])) > 1e-3 {
				t.Errorf("%s: %v, want %v", name, pix, c.want)
			}
		}
	}
	for name, data := range map[string]string{
		"P1 bitmap":            "P1 1 1 1",
		"P4 bitmap":            "P4 8 1\n\x00",
		"P2 sample > maxval":   "P2 2 1 10 3 11",
		"P5 sample > maxval":   "P5 1 1 100\n\xc8",
		"P5 no separator":      "P5 1 1 255x\x00",
		"P2 truncated":         "P2 3 1 255 1 2",
		"P6 truncated":         "P6 2 1 255\n\x00\x00\x00\x00",
		"P5 maxval too large":  "P5 1 1 65536\n\x00\x00",
		"P2 zero width":        "P2 0 1 255",
		"P2 negative":          "P2 -1 1 255",
		"P2 number overflow":   "P2 99999999999999999999 1 255",
		"P5 header truncated":  "P5 1",
		"P2 comment to EOF":    "P2 1 1 # no end",
		"wrong magic":          "Q5 1 1 255\n\x00",
		"P7 (PAM) unsupported": "P7\nWIDTH 1\n",
	} {
		_, _, _, err := DecodeImage(strings.NewReader(data), "bad.pnm")
		wantErr(t, name, err, "bad.pnm")
	}
}

func TestFolderRefusalsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	good := pngBytes(t, 4, 4)
	writeFile(t, dir, "mixed/a/1.png", good)
	writeFile(t, dir, "mixed/b/1.png", pngBytes(t, 5, 4))
	writeFile(t, dir, "broken/a/1.png", good)
	writeFile(t, dir, "broken/a/2.png", []byte("not a png"))
	writeFile(t, dir, "cut/a/1.png", good[:len(good)-20])
	writeFile(t, dir, "emptyclass/a/1.png", good)
	writeFile(t, dir, "emptyclass/b/readme.txt", []byte("no image here"))
	writeFile(t, dir, "flat/1.png", good)
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	writeFile(t, dir, "dangling/a/1.png", good)
	if err := os.Symlink(filepath.Join(dir, "nowhere.png"), filepath.Join(dir, "dangling/a/2.png")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "notafolder", good)
	for _, c := range []struct {
		root  string
		names []string
	}{
		{"mixed", []string{filepath.Join(dir, "mixed/b/1.png"), "4 x 5", "4 x 4"}},
		{"broken", []string{filepath.Join(dir, "broken/a/2.png"), "unknown format"}},
		{"cut", []string{filepath.Join(dir, "cut/a/1.png")}},
		{"emptyclass", []string{filepath.Join(dir, "emptyclass/b"), "no image"}},
		{"flat", []string{filepath.Join(dir, "flat"), "no class subfolders"}},
		{"empty", []string{filepath.Join(dir, "empty"), "no class subfolders"}},
		{"dangling", []string{filepath.Join(dir, "dangling/a/2.png")}},
		{"absent", []string{filepath.Join(dir, "absent")}},
		{"notafolder", []string{filepath.Join(dir, "notafolder")}},
	} {
		_, err := ReadFolder(filepath.Join(dir, c.root), Preprocess{})
		wantErr(t, c.root, err, c.names...)
		if err != nil && strings.Count(err.Error(), "dataset:") != 1 {
			t.Errorf("%s: %q repeats its prefix", c.root, err)
		}
	}
	// Hidden folders and other files are ignored.
	writeFile(t, dir, "ok/.ipynb_checkpoints/x.txt", []byte("x"))
	writeFile(t, dir, "ok/a/1.PNG", good)
	writeFile(t, dir, "ok/a/.DS_Store", []byte("x"))
	writeFile(t, dir, "ok/top.png", good)
	s, err := ReadFolder(filepath.Join(dir, "ok"), Preprocess{})
	if err != nil || s.Len() != 1 || fmt.Sprint(s.Classes) != "[a]" {
		t.Fatalf("%v %v", s, err)
	}
	if _, err := ReadFolder(filepath.Join(dir, "ok"), Preprocess{Invert: "sometimes"}); err == nil {
		t.Error("invalid preprocessing accepted")
	}
}

// darkOnLight returns a PNG of a dark bar on a white background.
func darkOnLight(t testing.TB) []byte {
	img := image.NewGray(image.Rect(0, 0, 8, 8))
	for i := range img.Pix {
		img.Pix[i] = 255
		if i%8 == 3 || i%8 == 4 {
			img.Pix[i] = 10
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

// lightOnDark returns a PNG of a bright bar on a black background.
func lightOnDark(t testing.TB) []byte {
	img := image.NewGray(image.Rect(0, 0, 8, 8))
	for i := range img.Pix {
		if i%8 == 3 || i%8 == 4 {
			img.Pix[i] = 245
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

func TestPolarityIsDetectedAndReported(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a/1.png", darkOnLight(t))
	writeFile(t, dir, "a/2.png", darkOnLight(t))
	writeFile(t, dir, "b/1.png", lightOnDark(t))
	raw, err := ReadFolder(dir, Preprocess{})
	if err != nil {
		t.Fatal(err)
	}
	if n := raw.DarkInkCount(); n != 2 || raw.Inverted != 0 {
		t.Errorf("DarkInkCount %d (want 2), Inverted %d (want 0)", n, raw.Inverted)
	}
	auto, err := ReadFolder(dir, Preprocess{Invert: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	if auto.Inverted != 2 || auto.DarkInkCount() != 0 || !strings.Contains(auto.Source, "2 of 3 images were dark ink on light") {
		t.Errorf("auto: Inverted %d, DarkInkCount %d, source %q", auto.Inverted, auto.DarkInkCount(), auto.Source)
	}
	if auto.Pix[0] != 0 || raw.Pix[0] != 1 {
		t.Errorf("background %v after auto inversion, %v before", auto.Pix[0], raw.Pix[0])
	}
	yes, _ := ReadFolder(dir, Preprocess{Invert: "yes"})
	if yes.Inverted != 3 || yes.DarkInkCount() != 1 {
		t.Errorf("yes: Inverted %d, DarkInkCount %d", yes.Inverted, yes.DarkInkCount())
	}
	// Prepare does the same on a set in memory.
	p, err := Prepare(raw, Preprocess{Invert: "auto"})
	if err != nil || p.Inverted != 2 || fmt.Sprint(p.Pix) != fmt.Sprint(auto.Pix) || raw.Pix[0] != 1 {
		t.Errorf("Prepare: %v, Inverted %d", err, p.Inverted)
	}
	if _, err := Prepare(raw, Preprocess{ResizeRows: 3}); err == nil {
		t.Error("half a resize accepted")
	}
	m, err := Prepare(raw, Preprocess{MNIST: true})
	if err != nil || m.Rows != 28 || m.Cols != 28 || m.Inverted != 2 || !strings.Contains(m.Source, "MNIST convention") {
		t.Errorf("MNIST: %v %d x %d, Inverted %d, %q", err, m.Rows, m.Cols, m.Inverted, m.Source)
	}
}

// tarBytes builds a tar archive of files.
func tarBytes(t testing.TB, files map[string][]byte, order ...string) []byte {
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	for _, name := range order {
		if err := w.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		w.Write(files[name])
	}
	w.Close()
	return b.Bytes()
}

func TestReadFolderTar(t *testing.T) {
	files := map[string][]byte{"set/train/0/a.png": lightOnDark(t), "set/train/1/b.png": darkOnLight(t), "set/train/1/c.pgm": []byte("P2 8 8 1" + strings.Repeat(" 0", 64))}
	tr := tarBytes(t, files, "set/train/0/a.png", "set/train/1/b.png", "set/train/1/c.pgm")
	dir := t.TempDir()
	for _, name := range []string{"x.tar.gz", "x.tar"} {
		data := tr
		if strings.HasSuffix(name, ".gz") {
			data = gzipBytes(tr)
		}
		p := writeFile(t, dir, name, data)
		s, err := ReadFolderTarGz(p, "set/train", Preprocess{Invert: "auto"})
		if err != nil || s.Len() != 3 || fmt.Sprint(s.Classes) != "[0 1]" || fmt.Sprint(s.Labels) != "[0 1 1]" || s.Inverted != 1 {
			t.Fatalf("%s: %v %v", name, s, err)
		}
		_, err = ReadFolderTarGz(p, "set/test", Preprocess{})
		wantErr(t, name+" absent folder", err, p+":set/test")
	}
	files["set/train/1/b.png"] = []byte("junk")
	p := writeFile(t, dir, "junk.tar.gz", gzipBytes(tarBytes(t, files, "set/train/0/a.png", "set/train/1/b.png")))
	_, err := ReadFolderTarGz(p, "set/train", Preprocess{})
	wantErr(t, "junk image", err, p+":set/train/1/b.png")
	for _, n := range []int{700, 1024, 1536, len(tr) - 512, len(tr) - 1} {
		p = writeFile(t, dir, "cut.tar.gz", gzipBytes(tr[:n]))
		_, err = ReadFolderTarGz(p, "set/train", Preprocess{})
		wantErr(t, fmt.Sprintf("archive cut at %d of %d bytes", n, len(tr)), err, p)
	}
	p = writeFile(t, dir, "notar.tar.gz", gzipBytes([]byte("hello")))
	_, err = ReadFolderTarGz(p, "set/train", Preprocess{})
	wantErr(t, "not a tar", err, p)
}

func TestCSVFiles(t *testing.T) {
	dir := t.TempDir()
	with := writeFile(t, dir, "with.csv", []byte("label,p1,p2,p3,p4\n3,0,255,255,0\n1,10,20,30,40\n"))
	without := writeFile(t, dir, "without.csv", []byte("3,0,255,255,0\n1,10,20,30,40\n"))
	bom := writeFile(t, dir, "bom.csv", []byte("\ufeff3,0,255,255,0\n1,10,20,30,40\n"))
	var sets []*Set
	for _, p := range []string{with, without, bom} {
		s, err := ReadCSV(p, 0, 0)
		if err != nil || s.Len() != 2 || s.Rows != 2 || s.Cols != 2 || s.Source != p {
			t.Fatalf("%s: %v %v", p, s, err)
		}
		sets = append(sets, s)
	}
	for _, s := range sets[1:] {
		if fmt.Sprint(s.Pix, s.Labels) != fmt.Sprint(sets[0].Pix, sets[0].Labels) {
			t.Errorf("with and without header differ: %v %v / %v %v", s.Pix, s.Labels, sets[0].Pix, sets[0].Labels)
		}
	}
	if sets[0].Pix[4] != 10.0/255 || fmt.Sprint(sets[0].Labels) != "[3 1]" {
		t.Errorf("pixels %v labels %v", sets[0].Pix, sets[0].Labels)
	}
	if s, err := ReadCSV(without, 1, 4); err != nil || s.Rows != 1 || s.Cols != 4 {
		t.Errorf("1 x 4: %v", err)
	}
	for name, c := range map[string]struct{ data, names string }{
		"over 255":        {"1,0,0,0,256\n", "line 1"},
		"negative pixel":  {"1,0,0,0,-1\n", "line 1"},
		"second header":   {"a,b,c,d,e\nf,g,h,i,j\n", "line 2"},
		"ragged":          {"1,0,0,0,0\n2,0,0\n", "line 2"},
		"bare quote":      {"1,0,\"0,0,0\n", ""},
		"header mismatch": {"label,a,b\n1,0,0,0,0\n", ""},
	} {
		p := writeFile(t, dir, strings.ReplaceAll(name, " ", "_")+".csv", []byte(c.data))
		_, err := ReadCSV(p, 0, 0)
		wantErr(t, name, err, p, c.names)
	}
	_, err := ReadCSV(filepath.Join(dir, "absent.csv"), 0, 0)
	wantErr(t, "absent", err, filepath.Join(dir, "absent.csv"))
	_, err = ReadCSV(without, 3, 3)
	wantErr(t, "wrong shape", err, without, "3 x 3")
}

func TestReadFolderFSNamesFiles(t *testing.T) {
	fsys := fstest.MapFS{"d/a/1.png": {Data: pngBytes(t, 3, 3)}, "d/b/x.bmp": {Data: []byte("BM")}}
	_, err := ReadFolderFS(fsys, "d", Preprocess{})
	wantErr(t, "bad bmp", err, "d/b/x.bmp")
}

func TestReadORLRefusals(t *testing.T) {
	face := []byte("P5 3 4 255\n" + strings.Repeat("\x80", 12))
	build := func() string {
		dir := t.TempDir()
		for s := 1; s <= 3; s++ {
			for i := 1; i <= 10; i++ {
				writeFile(t, dir, fmt.Sprintf("s%d/%d.pgm", s, i), face)
			}
		}
		return dir
	}
	dir := build()
	s, err := ReadORL(dir)
	if err != nil || s.Len() != 30 || s.Rows != 4 || s.Cols != 3 || fmt.Sprint(s.Classes) != "[s1 s2 s3]" {
		t.Fatalf("%v %v", s, err)
	}
	dir = build()
	os.Remove(filepath.Join(dir, "s2", "7.pgm"))
	_, err = ReadORL(dir)
	wantErr(t, "missing image", err, filepath.Join(dir, "s2", "7.pgm"))
	dir = build()
	writeFile(t, dir, "s3/4.pgm", []byte("P5 4 3 255\n"+strings.Repeat("\x80", 12)))
	_, err = ReadORL(dir)
	wantErr(t, "other size", err, filepath.Join(dir, "s3", "4.pgm"), "3 x 4")
	dir = build()
	writeFile(t, dir, "s1/1.pgm", face[:14])
	_, err = ReadORL(dir)
	wantErr(t, "truncated", err, filepath.Join(dir, "s1", "1.pgm"), "truncated")
	_, err = ReadORL(t.TempDir())
	wantErr(t, "no subjects", err, "no subject folders")
}

func TestPreprocessValidate(t *testing.T) {
	for _, p := range []Preprocess{{}, {Invert: "auto", MNIST: true}, {Invert: "no", ResizeRows: 28, ResizeCols: 28}} {
		if err := p.Validate(); err != nil {
			t.Errorf("%+v: %v", p, err)
		}
	}
	for _, p := range []Preprocess{{Invert: "true"}, {ResizeRows: 3}, {ResizeRows: -1, ResizeCols: -1}, {ResizeRows: 1 << 32, ResizeCols: 1 << 32}, {ResizeRows: 5000, ResizeCols: 5000}} {
		if err := p.Validate(); err == nil {
			t.Errorf("%+v: valid", p)
		}
	}
	path := writeFile(t, t.TempDir(), "x.png", pngBytes(t, 3, 3))
	if _, _, _, err := LoadImageFile(path, Preprocess{ResizeRows: 1 << 32, ResizeCols: 1 << 32}); err == nil {
		t.Error("LoadImageFile took an absurd resize")
	}
	if pix, rows, cols, err := LoadImageFile(path, Preprocess{ResizeRows: 2, ResizeCols: 5}); err != nil || rows != 2 || cols != 5 || len(pix) != 10 {
		t.Errorf("LoadImageFile: %d x %d, %v", rows, cols, err)
	}
}

func TestImageSize(t *testing.T) {
	for _, c := range []struct {
		data       []byte
		rows, cols int
	}{
		{pngBytes(t, 3, 5), 5, 3}, // pngBytes takes the width first
		{[]byte("P5 7 2 255\n"), 2, 7},
		{[]byte("P2\n# comment\n4 6\n15\n"), 6, 4},
	} {
		r, c2, err := ImageSize(bytes.NewReader(c.data))
		if err != nil || r != c.rows || c2 != c.cols {
			t.Errorf("%.12q: %d x %d (%v), want %d x %d", c.data, r, c2, err, c.rows, c.cols)
		}
	}
	for _, bad := range []string{"", "hello", "P5 7", "P5 x 2 255"} {
		if _, _, err := ImageSize(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
