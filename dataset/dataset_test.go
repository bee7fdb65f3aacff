package dataset

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// dataDir locates ../shared/data (or $SCN_DATA), skipping the test when it
// is absent.
func dataDir(t *testing.T, sub string) string {
	t.Helper()
	dir := os.Getenv("SCN_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "data")
	}
	p := filepath.Join(dir, sub)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("integration test: %s is absent (set SCN_DATA to the data folder)", p)
	}
	return p
}

func TestDefaultIsBalanced(t *testing.T) {
	train, test, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    *Set
		n, k int
	}{{train, 3000, 300}, {test, 1000, 100}} {
		if c.s.Len() != c.n || c.s.Rows != 28 || c.s.Cols != 28 || c.s.Validate() != nil {
			t.Fatalf("default set: %d images of %d x %d", c.s.Len(), c.s.Rows, c.s.Cols)
		}
		for d, n := range c.s.ClassCounts() {
			if n != c.k {
				t.Errorf("digit %d: %d images, want %d", d, n, c.k)
			}
		}
	}
}

func TestMNISTCounts(t *testing.T) {
	dir := dataDir(t, "mnist")
	train, err := ReadIDX(filepath.Join(dir, "train-images-idx3-ubyte.gz"), filepath.Join(dir, "train-labels-idx1-ubyte.gz"))
	if err != nil {
		t.Fatal(err)
	}
	test, err := ReadIDX(filepath.Join(dir, "t10k-images-idx3-ubyte.gz"), filepath.Join(dir, "t10k-labels-idx1-ubyte.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 60000 || test.Len() != 10000 || train.Rows != 28 || train.Cols != 28 {
		t.Fatalf("MNIST: %d / %d images of %d x %d", train.Len(), test.Len(), train.Rows, train.Cols)
	}
	want := []int{5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949}
	if got := train.ClassCounts(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("training class counts %v, want %v", got, want)
	}
	want = []int{980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}
	if got := test.ClassCounts(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("test class counts %v, want %v", got, want)
	}
	// MNIST is bright ink on dark: nothing to invert.
	if n := train.Subset([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}).DarkInkCount(); n != 0 {
		t.Errorf("%d of 10 MNIST digits look dark on light", n)
	}
}

func TestFashionMNISTCounts(t *testing.T) {
	dir := dataDir(t, "fashion-mnist")
	for _, c := range []struct {
		prefix string
		n      int
	}{{"train", 60000}, {"t10k", 10000}} {
		s, err := ReadIDX(filepath.Join(dir, c.prefix+"-images-idx3-ubyte.gz"), filepath.Join(dir, c.prefix+"-labels-idx1-ubyte.gz"))
		if err != nil {
			t.Fatal(err)
		}
		if s.Len() != c.n || s.Rows != 28 || s.Cols != 28 || len(s.Classes) != 10 {
			t.Fatalf("%s: %d images of %d x %d, %d classes", c.prefix, s.Len(), s.Rows, s.Cols, len(s.Classes))
		}
		for k, n := range s.ClassCounts() {
			if n != c.n/10 {
				t.Errorf("%s: class %d has %d images", c.prefix, k, n)
			}
		}
	}
}

func TestORLFaces(t *testing.T) {
	s, err := ReadORL(dataDir(t, "orl_faces"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Classes) != 40 || s.Len() != 400 || s.Rows != 112 || s.Cols != 92 {
		t.Fatalf("ORL: %d classes, %d images of %d x %d", len(s.Classes), s.Len(), s.Rows, s.Cols)
	}
	for c, n := range s.ClassCounts() {
		if n != 10 {
			t.Errorf("subject %s has %d images", s.Classes[c], n)
		}
	}
	tr, te, err := SplitPerClass(s, 5, 1)
	if err != nil || tr.Len() != 200 || te.Len() != 200 {
		t.Fatalf("split: %v", err)
	}
}

// inkBox returns the bounding box size and centre of mass of an image.
func inkBox(pix []float32, rows, cols int) (h, w int, cy, cx float64) {
	top, left, bottom, right := rows, cols, -1, -1
	var m float64
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			v := float64(pix[r*cols+c])
			if v > 0.05 {
				top, bottom, left, right = min(top, r), max(bottom, r), min(left, c), max(right, c)
			}
			m += v
			cy += v * (float64(r) + 0.5)
			cx += v * (float64(c) + 0.5)
		}
	}
	return bottom - top + 1, right - left + 1, cy / m, cx / m
}

func TestNormalizeMNISTOnCVL(t *testing.T) {
	archive := dataDir(t, "cvl-digits.tar.gz")
	s, err := ReadFolderTarGz(archive, "cvl-digits/test", Preprocess{Invert: "auto", MNIST: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 28 || s.Cols != 28 || len(s.Classes) != 10 || s.Len() != 21780 {
		t.Fatalf("CVL test: %d images of %d x %d, %d classes", s.Len(), s.Rows, s.Cols, len(s.Classes))
	}
	// CVL is dark ink on white: every image is detected as such, and said so.
	if s.Inverted != s.Len() || !strings.Contains(s.Source, "21780 of 21780 images were dark ink on light") {
		t.Errorf("%d of %d images inverted; source %q", s.Inverted, s.Len(), s.Source)
	}
	var worst float64
	for i := 0; i < s.Len(); i++ {
		img := s.Image(i)
		if DarkInk(img, 28, 28) {
			t.Fatalf("image %d is still dark on light", i)
		}
		// bright on dark: the border is black (a stroke may touch it, as
		// in MNIST), the ink bright
		var border, peak float32
		for r := 0; r < 28; r++ {
			for c := 0; c < 28; c++ {
				peak = max(peak, img[r*28+c])
				if r == 0 || c == 0 || r == 27 || c == 27 {
					border += img[r*28+c] / 108
				}
			}
		}
		// the digit fits 20 x 20 and fills it along its longer side; its
		// centre of mass is where MNIST puts it, the centre of pixel (14, 14)
		h, w, cy, cx := inkBox(img, 28, 28)
		off := max(math.Abs(cy-14.5), math.Abs(cx-14.5))
		worst = max(worst, off)
		if border > 0.05 || peak < 0.5 || h > 20 || w > 20 || max(h, w) < 19 || off > 0.5+1e-9 {
			t.Fatalf("image %d: border %.2f, peak %.2f, ink box %d x %d, centre of mass (%.2f, %.2f)", i, border, peak, h, w, cy, cx)
		}
	}
	t.Logf("worst centre of mass offset %.3f pixels", worst)
}

func TestNormalizeMNISTChangesMNISTLittle(t *testing.T) {
	// The built-in set is 3000 real MNIST training digits, unchanged.
	train, _, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	var diff, mass float64
	moved := 0
	for i := 0; i < train.Len(); i++ {
		img := train.Image(i)
		out := NormalizeMNIST(img, 28, 28)
		_, _, cy0, cx0 := inkBox(img, 28, 28)
		_, _, cy1, cx1 := inkBox(out, 28, 28)
		if math.Abs(cy1-cy0) > 0.5 || math.Abs(cx1-cx0) > 0.5 {
			moved++
		}
		for j := range img {
			diff += math.Abs(float64(out[j] - img[j]))
			mass += float64(img[j])
		}
	}
	// Measured: 0.26% of the ink changes, 13 of 3000 digits move by a pixel.
	t.Logf("%.4f of the ink changed; %d of %d digits moved", diff/mass, moved, train.Len())
	if diff/mass > 0.01 || moved > train.Len()/100 {
		t.Errorf("MNIST normalisation changed %.4f of MNIST's ink and moved %d of %d digits", diff/mass, moved, train.Len())
	}
}

func TestRotate(t *testing.T) {
	train, _, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	img := train.Image(7)
	if got := Rotate(img, 28, 28, 0); fmt.Sprint(got) != fmt.Sprint(img) {
		t.Fatal("rotation by 0 changed the image")
	}
	// Half and quarter turns of a square image land on pixel centres:
	// exact, up to rounding.
	half := Rotate(img, 28, 28, 180)
	quarter := Rotate(Rotate(img, 28, 28, 90), 28, 28, 90)
	for j := range img {
		if math.Abs(float64(half[j]-img[783-j])) > 1e-5 || math.Abs(float64(quarter[j]-half[j])) > 1e-5 {
			t.Fatalf("half turn: pixel %d is %v / %v, want %v", j, half[j], quarter[j], img[783-j])
		}
	}
	// Positive angles turn counter-clockwise as displayed: a dot right of
	// the centre goes to the top under +90 degrees.
	dot := make([]float32, 5*5)
	dot[2*5+4] = 1
	if got := Rotate(dot, 5, 5, 90); got[0*5+2] < 0.999 {
		t.Errorf("+90 degrees took the dot at (2, 4) elsewhere: %v", got)
	}
	// +a then -a returns nearly the image. Measured (bilinear, twice): on
	// MNIST strokes 20% of the ink moves (RMSE 0.064) at any angle from 5
	// to 45 degrees; on a smooth blob the largest error is 0.024.
	blob := make([]float32, 28*28)
	for y := 0; y < 28; y++ {
		for x := 0; x < 28; x++ {
			dy, dx := float64(y)-13.5, float64(x)-13.5
			blob[y*28+x] = float32(math.Exp(-(dy*dy + dx*dx) / 32))
		}
	}
	for _, a := range []float64{5, 15, 30, 45} {
		var diff, sq, mass, turned float64
		for i := 0; i < 300; i++ {
			im := train.Image(i)
			once := Rotate(im, 28, 28, a)
			back := Rotate(once, 28, 28, -a)
			for j := range im {
				d := float64(back[j] - im[j])
				diff += math.Abs(d)
				sq += d * d
				mass += float64(im[j])
				turned += float64(once[j])
			}
		}
		rel, rmse := diff/mass, math.Sqrt(sq/(300*784))
		if rel > 0.25 || rmse > 0.08 {
			t.Errorf("+%v then -%v degrees: %.3f of the ink moved, RMSE %.4f", a, a, rel, rmse)
		}
		// The digits lie inside the inscribed disc: turning keeps their ink.
		if math.Abs(turned/mass-1) > 0.01 {
			t.Errorf("turning by %v degrees changed the ink by %.2f%%", a, 100*(turned/mass-1))
		}
		back := Rotate(Rotate(blob, 28, 28, a), 28, 28, -a)
		for j := range blob {
			if math.Abs(float64(back[j]-blob[j])) > 0.03 {
				t.Fatalf("smooth blob, +%v then -%v degrees: pixel %d off by %v", a, a, j, back[j]-blob[j])
			}
		}
	}
	// A quarter turn of a square image is exact.
	sq := []float32{1, 2, 3, 4}
	if got := Rotate(sq, 2, 2, 90); math.Abs(float64(got[0]-2)) > 1e-5 || math.Abs(float64(got[3]-3)) > 1e-5 {
		t.Errorf("quarter turn of [1 2; 3 4] gave %v", got)
	}
}

func TestRotatedDigitAnglesAreUniform(t *testing.T) {
	train, test, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	tr, te, err := RotatedDigits(train, test, 2000, 1000, 42)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Len() != 2000 || te.Len() != 1000 || tr.TargetDim != 1 || tr.Labels == nil {
		t.Fatal("wrong sizes")
	}
	for _, part := range []*Set{tr, te} {
		// Kolmogorov-Smirnov against U[-45, 45]: D_n < 1.63/sqrt(n) at the 1% level.
		a := append([]float64(nil), part.Targets...)
		sort.Float64s(a)
		var d float64
		for i, v := range a {
			f := (v + 45) / 90
			d = max(d, math.Abs(f-float64(i)/float64(len(a))), math.Abs(f-float64(i+1)/float64(len(a))))
		}
		if lim := 1.63 / math.Sqrt(float64(len(a))); d > lim || a[0] < -45 || a[len(a)-1] > 45 {
			t.Errorf("KS distance %.4f exceeds %.4f (or angles out of range)", d, lim)
		}
		// Chi-square over 9 bins of 10 degrees: below 20.09 (8 degrees of
		// freedom, 1% level).
		bins := make([]float64, 9)
		for _, v := range a {
			bins[min(int((v+45)/10), 8)]++
		}
		var chi float64
		e := float64(len(a)) / 9
		for _, b := range bins {
			chi += (b - e) * (b - e) / e
		}
		if chi > 20.09 {
			t.Errorf("chi-square %.2f over 9 bins: %v", chi, bins)
		}
		t.Logf("%d angles: KS %.4f, chi-square %.2f", len(a), d, chi)
	}
	// The angle is not tied to the digit: mean angle per digit near 0
	// (standard error 26/sqrt(200) = 1.8 degrees).
	sum, n := make([]float64, 10), make([]float64, 10)
	for i, l := range tr.Labels {
		sum[l] += tr.Targets[i]
		n[l]++
	}
	for l := range sum {
		if m := sum[l] / n[l]; math.Abs(m) > 4*26/math.Sqrt(n[l]) {
			t.Errorf("digit %d: mean angle %.2f over %v images", l, m, n[l])
		}
	}
	again, _, _ := RotatedDigits(train, test, 2000, 1000, 42)
	if fmt.Sprint(again.Targets[:20]) != fmt.Sprint(tr.Targets[:20]) {
		t.Error("the same seed gave different angles")
	}
}

// idxBytes encodes an IDX file.
func idxBytes(kind byte, dims []int, data []byte) []byte {
	return append(idxHeader(kind, dims...), data...)
}

func TestIDXRoundTripAndBadFiles(t *testing.T) {
	train, _, _ := Default()
	s := train.Subset([]int{0, 1, 2, 3, 4})
	dir := t.TempDir()
	for _, ext := range []string{"", ".gz"} {
		ip, lp := filepath.Join(dir, "i"+ext), filepath.Join(dir, "l"+ext)
		if err := WriteIDX(ip, lp, s); err != nil {
			t.Fatal(err)
		}
		back, err := ReadIDX(ip, lp)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(back.Pix) != fmt.Sprint(s.Pix) || fmt.Sprint(back.Labels) != fmt.Sprint(s.Labels) {
			t.Fatalf("%q: round trip changed the set", ext)
		}
	}
	s.Targets, s.TargetDim = []float64{1.5, -2, 3, 4.25, 45}, 1
	tp := filepath.Join(dir, "t")
	if err := WriteIDXTargets(tp, s); err != nil {
		t.Fatal(err)
	}
	if got, dim, err := ReadIDXTargets(tp); err != nil || dim != 1 || fmt.Sprint(got) != fmt.Sprint(s.Targets) {
		t.Fatalf("targets round trip: %v %d %v", got, dim, err)
	}
	good, _ := os.ReadFile(filepath.Join(dir, "i"))
	labels := idxBytes(8, []int{5}, []byte{1, 2, 3, 4, 5})
	huge := make([]byte, 16)
	copy(huge, idxHeader(8, 1<<31-1, 28, 28)) // 20 bytes claiming 2^31 images
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(idxHeader(8, 1<<20, 28, 28))
	zw.Close()
	bad := map[string][]byte{
		"empty":       {},
		"wrong magic": append([]byte{1, 2, 8, 3}, good[4:]...),
		"bad type":    append([]byte{0, 0, 9, 3}, good[4:]...),
		"truncated":   good[:len(good)-10],
		"cut header":  good[:9],
		"absurd size": huge,
		"gzip claims": gz.Bytes(),
		"zero dim":    idxBytes(8, []int{0, 28, 28}, nil),
	}
	for name, data := range bad {
		_, err := ReadIDXFrom(bytes.NewReader(data), bytes.NewReader(labels), name)
		if err == nil || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v", name, err)
		}
	}
	if _, err := ReadIDXFrom(bytes.NewReader(good), bytes.NewReader(idxBytes(8, []int{4}, []byte{1, 2, 3, 4})), "count"); err == nil {
		t.Error("4 labels for 5 images accepted")
	}
	if _, err := ReadIDX(filepath.Join(dir, "missing"), ""); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: %v", err)
	}
}

func FuzzReadIDX(f *testing.F) {
	f.Add(idxBytes(8, []int{2, 2, 2}, []byte{0, 1, 2, 3, 4, 5, 6, 255}))
	f.Add(idxBytes(8, []int{1}, []byte{7}))
	f.Add(idxBytes(0x0D, []int{1}, []byte{0, 0, 0, 0}))
	f.Add(idxHeader(8, 1<<31-1, 28, 28))
	f.Add([]byte{0x1f, 0x8b, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if s, err := ReadIDXFrom(bytes.NewReader(data), nil, "fuzz"); err == nil {
			if err := s.Validate(); err != nil {
				t.Fatalf("accepted an invalid set: %v", err)
			}
		}
	})
}

func pngBytes(t testing.TB, w, h int) []byte {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDecodeImages(t *testing.T) {
	cases := map[string]struct {
		data       string
		rows, cols int
		first      float32
	}{
		"P2":       {"P2\n# comment\n3 2\n4\n0 1 2\n3 4 4\n", 2, 3, 0},
		"P5":       {"P5 2 1 255\n\x00\xff", 1, 2, 0},
		"P5 16bit": {"P5 1 1 65535\n\xff\xff", 1, 1, 1},
		"P3":       {"P3 1 1 255 255 255 255", 1, 1, 1},
		"P6":       {"P6 1 1 255\n\xff\x00\x00", 1, 1, 0.299},
	}
	for name, c := range cases {
		pix, rows, cols, err := DecodeImage(strings.NewReader(c.data), name)
		if err != nil || rows != c.rows || cols != c.cols || math.Abs(float64(pix[0]-c.first)) > 1e-3 {
			t.Errorf("%s: %v %dx%d %v", name, pix, rows, cols, err)
		}
	}
	if _, rows, cols, err := DecodeImage(bytes.NewReader(pngBytes(t, 5, 3)), "png"); err != nil || rows != 3 || cols != 5 {
		t.Errorf("png: %dx%d %v", rows, cols, err)
	}
	for name, data := range map[string]string{
		"truncated P5": "P5 4 4 255\n\x00\x00",
		"huge P5":      "P5 100000 100000 255\n",
		"maxval 0":     "P2 1 1 0 0",
		"garbage":      "hello world",
		"P2 letter":    "P2 1 1 255 x",
		"empty":        "",
	} {
		if _, _, _, err := DecodeImage(strings.NewReader(data), name); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzDecodeImage(f *testing.F) {
	f.Add(pngBytes(f, 3, 2))
	f.Add([]byte("P5 2 1 255\n\x00\xff"))
	f.Add([]byte("P3 1 1 255 1 2 3"))
	f.Add([]byte("P6 1 1 255\n\x01\x02\x03"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pix, rows, cols, err := DecodeImage(bytes.NewReader(data), "fuzz")
		if err == nil && len(pix) != rows*cols {
			t.Fatalf("%d pixels for %d x %d", len(pix), rows, cols)
		}
		pic, err := DecodePicture(bytes.NewReader(data), "fuzz", 0)
		if err == nil && (len(pic.Pix) != pic.Channels*pic.Rows*pic.Cols || pic.Channels != 1 && pic.Channels != 3) {
			t.Fatalf("%d values for %d x %d x %d", len(pic.Pix), pic.Channels, pic.Rows, pic.Cols)
		}
	})
}

func FuzzReadPNM(f *testing.F) {
	f.Add([]byte("P2\n# c\n3 2\n4\n0 1 2\n3 4 4\n"))
	f.Add([]byte("P6 1 1 65535\n\x00\x01\x00\x02\x00\x03"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !bytes.HasPrefix(data, []byte("P")) {
			data = append([]byte("P5 "), data...)
		}
		pix, rows, cols, err := DecodeImage(bytes.NewReader(data), "fuzz")
		if err == nil {
			for _, v := range pix {
				if v < 0 || v > 1 {
					t.Fatalf("grey level %v outside [0, 1]", v)
				}
			}
			if len(pix) != rows*cols {
				t.Fatal("size mismatch")
			}
		}
	})
}

func TestCSV(t *testing.T) {
	s, err := ReadCSVFrom(strings.NewReader("label,p1,p2,p3,p4\n3,0,255,255,0\n1,10,20,30,40\n"), 0, 0)
	if err != nil || s.Len() != 2 || s.Rows != 2 || s.Labels[0] != 3 || s.Pix[1] != 1 || len(s.Classes) != 4 {
		t.Fatalf("%+v %v", s, err)
	}
	if s, err := ReadCSVFrom(strings.NewReader("0,0.5,1,0\n1,0,0,1\n"), 1, 3); err != nil || s.Pix[0] != 0.5 || s.Cols != 3 {
		t.Fatalf("unscaled CSV: %v", err)
	}
	for name, data := range map[string]string{
		"empty":       "",
		"header only": "label,a,b,c,d\n",
		"ragged":      "1,0,0,0,0\n2,0,0\n",
		"NaN":         "1,0,NaN,0,0\n",
		"Inf":         "1,0,+Inf,0,0\n",
		"text":        "1,0,x,0,0\n2,1,1,1,1\n",
		"bad label":   "1,0,0,0,0\nx,0,0,0,0\n",
		"not square":  "1,0,0,0\n",
		"negative":    "-1,0,0,0,0\n",
	} {
		if _, err := ReadCSVFrom(strings.NewReader(data), 0, 0); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzReadCSV(f *testing.F) {
	f.Add("label,a,b,c,d\n1,0,1,0,1\n")
	f.Add("0,0.5,0.25,1,0\n")
	f.Fuzz(func(t *testing.T, data string) {
		if s, err := ReadCSVFrom(strings.NewReader(data), 0, 0); err == nil {
			if err := s.Validate(); err != nil {
				t.Fatalf("accepted an invalid set: %v", err)
			}
		}
	})
}

func TestReadFolder(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, data, 0o644)
	}
	write("good/cat/1.png", pngBytes(t, 4, 4))
	write("good/cat/2.pgm", []byte("P2 4 4 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1"))
	write("good/dog/a.png", pngBytes(t, 4, 4))
	write("good/dog/notes.txt", []byte("ignored"))
	s, err := ReadFolder(filepath.Join(dir, "good"), Preprocess{})
	if err != nil || s.Len() != 3 || fmt.Sprint(s.Classes) != "[cat dog]" || fmt.Sprint(s.Labels) != "[0 0 1]" {
		t.Fatalf("%v %v", s, err)
	}
	if s, err := ReadFolder(filepath.Join(dir, "good"), Preprocess{ResizeRows: 2, ResizeCols: 3}); err != nil || s.Rows != 2 || s.Cols != 3 {
		t.Fatalf("resize: %v", err)
	}
	write("mixed/a/1.png", pngBytes(t, 4, 4))
	write("mixed/b/1.png", pngBytes(t, 5, 4))
	write("broken/a/1.png", []byte("not a png"))
	os.MkdirAll(filepath.Join(dir, "empty", "a"), 0o755)
	for _, name := range []string{"mixed", "broken", "empty", "absent"} {
		if _, err := ReadFolder(filepath.Join(dir, name), Preprocess{}); err == nil {
			t.Errorf("%s folder accepted", name)
		} else {
			t.Log(err)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := &Set{Rows: 1, Cols: 2, Pix: []float32{0, 1}, Labels: []int{1}, Classes: []string{"a", "b"}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*Set{
		"no shape":    {Pix: []float32{1}},
		"ragged":      {Rows: 1, Cols: 2, Pix: []float32{1, 2, 3}},
		"NaN":         {Rows: 1, Cols: 1, Pix: []float32{float32(math.NaN())}},
		"label range": {Rows: 1, Cols: 1, Pix: []float32{1}, Labels: []int{2}, Classes: []string{"a", "b"}},
		"label count": {Rows: 1, Cols: 1, Pix: []float32{1}, Labels: []int{0, 1}, Classes: []string{"a", "b"}},
		"targets":     {Rows: 1, Cols: 1, Pix: []float32{1}, Targets: []float64{1, 2}, TargetDim: 1},
	} {
		if s.Validate() == nil {
			t.Errorf("%s: valid", name)
		}
	}
	_ = binary.BigEndian
}
