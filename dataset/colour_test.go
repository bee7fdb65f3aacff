package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scn2d/scn"
	"golang.org/x/image/bmp"
)

// colourPicture is a 5 x 4 RGB test picture with one grey pixel.
func colourPicture() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 5, 4))
	for y := 0; y < 4; y++ {
		for x := 0; x < 5; x++ {
			img.SetRGBA(x, y, color.RGBA{uint8(50 * x), uint8(80 * y), uint8(200 - 30*x), 255})
		}
	}
	img.SetRGBA(2, 1, color.RGBA{90, 90, 90, 255})
	return img
}

// encodeAs encodes img in a format: png, jpeg, bmp, gif (the picture's own
// palette), ppm (P6) or ppm-text (P3).
func encodeAs(t testing.TB, img image.Image, format string) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	bo := img.Bounds()
	switch format {
	case "png":
		err = png.Encode(&b, img)
	case "jpeg":
		err = jpeg.Encode(&b, img, &jpeg.Options{Quality: 100})
	case "bmp":
		err = bmp.Encode(&b, img)
	case "gif":
		var pal color.Palette
		idx := map[color.Color]uint8{}
		for y := bo.Min.Y; y < bo.Max.Y; y++ {
			for x := bo.Min.X; x < bo.Max.X; x++ {
				c := img.At(x, y)
				if _, ok := idx[c]; !ok {
					idx[c] = uint8(len(pal))
					pal = append(pal, c)
				}
			}
		}
		p := image.NewPaletted(bo, pal)
		for y := bo.Min.Y; y < bo.Max.Y; y++ {
			for x := bo.Min.X; x < bo.Max.X; x++ {
				p.SetColorIndex(x, y, idx[img.At(x, y)])
			}
		}
		err = gif.Encode(&b, p, nil)
	case "ppm", "ppm-text":
		magic := "P6"
		if format == "ppm-text" {
			magic = "P3"
		}
		fmt.Fprintf(&b, "%s\n%d %d\n255\n", magic, bo.Dx(), bo.Dy())
		for y := bo.Min.Y; y < bo.Max.Y; y++ {
			for x := bo.Min.X; x < bo.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if magic == "P6" {
					b.Write([]byte{byte(r >> 8), byte(g >> 8), byte(bl >> 8)})
				} else {
					fmt.Fprintf(&b, "%d %d %d\n", r>>8, g>>8, bl>>8)
				}
			}
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// oldGrey is the grey reading of the readers before colour existed (luma
// of the 16-bit, alpha-premultiplied colours), kept to prove that the grey
// reading has not changed.
func oldGrey(img image.Image) []float32 {
	b := img.Bounds()
	pix := make([]float32, b.Dx()*b.Dy())
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			pix[y*b.Dx()+x] = float32((0.299*float64(r) + 0.587*float64(g) + 0.114*float64(bl)) / 65535)
		}
	}
	return pix
}

// TestColourRoundTrip writes a colour picture in every format, reads it
// back as colour (three planes, red, green, blue) and as grey (the values
// of the reading before colour, bit for bit).
func TestColourRoundTrip(t *testing.T) {
	img := colourPicture()
	for _, c := range []struct {
		format string
		tol    float64
	}{{"png", 0}, {"bmp", 0}, {"gif", 0}, {"ppm", 0}, {"ppm-text", 0}} {
		data := encodeAs(t, img, c.format)
		pic, err := DecodePicture(bytes.NewReader(data), c.format, 0)
		if err != nil || pic.Channels != 3 || pic.Rows != 4 || pic.Cols != 5 || len(pic.Pix) != 60 {
			t.Fatalf("%s: %d planes of %d x %d, %v", c.format, pic.Channels, pic.Rows, pic.Cols, err)
		}
		for y := 0; y < 4; y++ {
			for x := 0; x < 5; x++ {
				want := img.RGBAAt(x, y)
				for k, w := range []uint8{want.R, want.G, want.B} {
					got := float64(pic.Pix[k*20+y*5+x])
					if math.Abs(got-float64(w)/255) > c.tol+1e-7 {
						t.Errorf("%s: plane %d at (%d, %d) is %.4f, want %.4f", c.format, k, x, y, got, float64(w)/255)
					}
				}
			}
		}
		grey, err := DecodePicture(bytes.NewReader(data), c.format, 1)
		if err != nil || grey.Channels != 1 || len(grey.Pix) != 20 {
			t.Fatalf("%s as grey: %+v %v", c.format, grey, err)
		}
		if c.format == "png" || c.format == "bmp" || c.format == "gif" {
			if fmt.Sprint(grey.Pix) != fmt.Sprint(oldGrey(img)) {
				t.Errorf("%s: the grey reading changed:\n%v\n%v", c.format, grey.Pix, oldGrey(img))
			}
		}
		old, _, _, _ := DecodeImage(bytes.NewReader(data), c.format)
		if !equalBits(old, grey.Pix) {
			t.Errorf("%s: DecodeImage and the grey DecodePicture differ", c.format)
		}
	}
}

// TestColourJPEG writes a 16 x 16 JPEG of four 8 x 8 squares of one
// colour each (JPEG halves the colour resolution, so sharper pictures do
// not survive) and reads its colours back.
func TestColourJPEG(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	cols := []color.RGBA{{200, 30, 40, 255}, {20, 180, 60, 255}, {30, 50, 220, 255}, {120, 120, 120, 255}}
	for y := 0; y < 16; y++ {
		for x := 0; x < 16; x++ {
			img.SetRGBA(x, y, cols[2*(y/8)+x/8])
		}
	}
	pic, err := DecodePicture(bytes.NewReader(encodeAs(t, img, "jpeg")), "q.jpeg", 0)
	if err != nil || pic.Channels != 3 {
		t.Fatalf("%d planes, %v", pic.Channels, err)
	}
	for q, c := range cols {
		i := (8*(q/2)+4)*16 + 8*(q%2) + 4 // the centre of square q
		for k, w := range []uint8{c.R, c.G, c.B} {
			if got := float64(pic.Pix[k*256+i]); math.Abs(got-float64(w)/255) > 0.03 {
				t.Errorf("square %d, plane %d: %.3f, want %.3f", q, k, got, float64(w)/255)
			}
		}
	}
}

// equalBits reports whether two slices hold the same float32 bits.
func equalBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestGreyFilesStayGrey checks that a grey image, whatever its file's
// colour model (grey PNG, RGB PNG of equal samples, grey JPEG, PGM), reads
// as one plane by default, the values of the grey reading; and as three
// equal planes when colour is asked for.
func TestGreyFilesStayGrey(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 4, 3))
	rgb := image.NewRGBA(g.Bounds())
	for i := range g.Pix {
		g.Pix[i] = uint8(20 * i)
		rgb.SetRGBA(i%4, i/4, color.RGBA{uint8(20 * i), uint8(20 * i), uint8(20 * i), 255})
	}
	pgm := []byte("P5 4 3 255\n")
	pgm = append(pgm, g.Pix...)
	for name, data := range map[string][]byte{
		"grey png": encodeAs(t, g, "png"), "rgb png": encodeAs(t, rgb, "png"), "grey jpeg": encodeAs(t, g, "jpeg"),
		"ppm of greys": encodeAs(t, rgb, "ppm"), "pgm": pgm,
	} {
		pic, err := DecodePicture(bytes.NewReader(data), name, 0)
		old, _, _, _ := DecodeImage(bytes.NewReader(data), name)
		if err != nil || pic.Channels != 1 || !equalBits(pic.Pix, old) {
			t.Errorf("%s: %d planes, %v; want one plane, the grey reading", name, pic.Channels, err)
		}
		three, err := DecodePicture(bytes.NewReader(data), name, 3)
		if err != nil || three.Channels != 3 || !equalBits(three.Pix[:12], old) || !equalBits(three.Pix[12:24], old) || !equalBits(three.Pix[24:], old) {
			t.Errorf("%s as colour: %+v %v", name, three, err)
		}
	}
	if _, err := DecodePicture(bytes.NewReader(pgm), "x.pgm", 2); err == nil {
		t.Error("2 planes from an image file accepted")
	}
}

// TestUnusualImages reads a 16-bit PNG (grey and RGB), palette PNG and GIF
// (grey and colour palettes), an image with alpha (composited on black)
// and CMYK colours (converted as image/color does).
func TestUnusualImages(t *testing.T) {
	g16 := image.NewGray16(image.Rect(0, 0, 2, 1))
	g16.SetGray16(0, 0, color.Gray16{Y: 0x1234})
	g16.SetGray16(1, 0, color.Gray16{Y: 0xffff})
	pic, err := DecodePicture(bytes.NewReader(encodeAs(t, g16, "png")), "g16.png", 0)
	if err != nil || pic.Channels != 1 || pic.Pix[0] != float32(float64(0x1234)/65535) || pic.Pix[1] != 1 {
		t.Errorf("16-bit grey PNG: %+v %v (want %v, 1: 16 bits kept)", pic, err, float32(float64(0x1234)/65535))
	}
	c16 := image.NewRGBA64(image.Rect(0, 0, 1, 1))
	c16.SetRGBA64(0, 0, color.RGBA64{0x0101, 0x8001, 0xfffe, 0xffff})
	pic, err = DecodePicture(bytes.NewReader(encodeAs(t, c16, "png")), "c16.png", 0)
	if err != nil || pic.Channels != 3 || pic.Pix[0] != float32(float64(0x0101)/65535) || pic.Pix[1] != float32(float64(0x8001)/65535) || pic.Pix[2] != float32(float64(0xfffe)/65535) {
		t.Errorf("16-bit RGB PNG: %+v %v", pic, err)
	}

	greyPal := image.NewPaletted(image.Rect(0, 0, 2, 1), color.Palette{color.Gray{10}, color.Gray{200}})
	greyPal.SetColorIndex(1, 0, 1)
	colPal := image.NewPaletted(image.Rect(0, 0, 2, 1), color.Palette{color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}})
	colPal.SetColorIndex(1, 0, 1)
	for _, format := range []string{"png", "gif"} {
		var b bytes.Buffer
		if format == "png" {
			png.Encode(&b, greyPal)
		} else {
			gif.Encode(&b, greyPal, nil)
		}
		pic, err := DecodePicture(&b, "grey palette."+format, 0)
		if err != nil || pic.Channels != 1 || math.Abs(float64(pic.Pix[1])-200.0/255) > 1e-6 {
			t.Errorf("grey palette %s: %+v %v", format, pic, err)
		}
		b.Reset()
		if format == "png" {
			png.Encode(&b, colPal)
		} else {
			gif.Encode(&b, colPal, nil)
		}
		pic, err = DecodePicture(&b, "colour palette."+format, 0)
		if err != nil || pic.Channels != 3 || pic.Pix[0] != 1 || pic.Pix[1] != 0 || pic.Pix[4] != 0 || pic.Pix[5] != 1 {
			t.Errorf("colour palette %s: %+v %v", format, pic, err)
		}
	}

	// Alpha: composited on black. Opaque red, half-transparent green,
	// fully transparent white.
	a := image.NewNRGBA(image.Rect(0, 0, 3, 1))
	a.SetNRGBA(0, 0, color.NRGBA{255, 0, 0, 255})
	a.SetNRGBA(1, 0, color.NRGBA{0, 255, 0, 128})
	a.SetNRGBA(2, 0, color.NRGBA{255, 255, 255, 0})
	pic, err = DecodePicture(bytes.NewReader(encodeAs(t, a, "png")), "alpha.png", 0)
	want := []float64{1, 0, 0, 0, 128.0 / 255, 0, 0, 0, 0}
	if err != nil || pic.Channels != 3 {
		t.Fatalf("alpha PNG: %+v %v", pic, err)
	}
	for i, w := range want {
		if math.Abs(float64(pic.Pix[i])-w) > 1e-6 {
			t.Errorf("alpha PNG: value %d is %v, want %v (composited on black)", i, pic.Pix[i], w)
		}
	}

	// CMYK: the colour image/color's conversion gives.
	for _, c := range []color.CMYK{{0, 0, 0, 0}, {255, 0, 0, 0}, {0, 128, 255, 0}, {10, 20, 30, 40}, {0, 0, 0, 255}} {
		r, g, b := colourOf(c)
		wr, wg, wb := color.CMYKToRGB(c.C, c.M, c.Y, c.K)
		// CMYKToRGB rounds to 8 bits; the readers keep 16.
		if math.Abs(float64(r)-float64(wr)/255) > 1.0/255 || math.Abs(float64(g)-float64(wg)/255) > 1.0/255 || math.Abs(float64(b)-float64(wb)/255) > 1.0/255 {
			t.Errorf("CMYK %v: %v %v %v, want %v %v %v", c, r, g, b, wr, wg, wb)
		}
	}
}

// TestCMYKJPEG reads a real CMYK JPEG (Adobe, inverted; from Go's
// image/testdata) and compares it with the PNG of its colours that Go's
// tests use.
func TestCMYKJPEG(t *testing.T) {
	jp, err := os.ReadFile(filepath.Join("testdata", "cmyk", "video-001.cmyk.jpeg"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile(filepath.Join("testdata", "cmyk", "video-001.cmyk.png"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodePicture(bytes.NewReader(jp), "cmyk.jpeg", 0)
	if err != nil || got.Channels != 3 {
		t.Fatalf("CMYK JPEG: %d planes, %v", got.Channels, err)
	}
	want, err := DecodePicture(bytes.NewReader(ref), "cmyk.png", 3)
	if err != nil || want.Rows != got.Rows || want.Cols != got.Cols {
		t.Fatalf("reference: %d x %d, %v", want.Rows, want.Cols, err)
	}
	var worst float64
	for i := range got.Pix {
		worst = max(worst, math.Abs(float64(got.Pix[i]-want.Pix[i])))
	}
	// Go's own test allows a difference of 8/255 per sample.
	if worst > 8.0/255 {
		t.Errorf("CMYK JPEG differs from its reference by %.4f", worst)
	}
}

// TestFolderColourPerFolder checks that a folder with one colour image is
// colour, its grey images three equal planes (before and after the colour
// one), and that Channels 1 reads it grey as before.
func TestFolderColourPerFolder(t *testing.T) {
	dir := t.TempDir()
	g := image.NewGray(image.Rect(0, 0, 5, 4))
	for i := range g.Pix {
		g.Pix[i] = uint8(11 * i)
	}
	writeFile(t, dir, "a/1.png", encodeAs(t, g, "png"))
	writeFile(t, dir, "a/2.ppm", encodeAs(t, colourPicture(), "ppm"))
	writeFile(t, dir, "b/3.pgm", append([]byte("P5 5 4 255\n"), g.Pix...))
	s, err := ReadFolder(dir, Preprocess{})
	if err != nil || s.Channels != 3 || s.Len() != 3 || s.Dim() != 60 {
		t.Fatalf("colour folder: %d images of %d planes, %v", s.Len(), s.Chans(), err)
	}
	grey, _, _, _ := DecodeImage(bytes.NewReader(encodeAs(t, g, "png")), "g")
	for _, i := range []int{0, 2} {
		img := s.Image(i)
		for k := 0; k < 3; k++ {
			if !equalBits(img[k*20:(k+1)*20], grey) {
				t.Errorf("grey image %d, plane %d: not the grey image", i, k)
			}
		}
	}
	pic, _ := DecodePicture(bytes.NewReader(encodeAs(t, colourPicture(), "ppm")), "c", 0)
	if !equalBits(s.Image(1), pic.Pix) {
		t.Error("the colour image's planes differ from DecodePicture's")
	}
	gs, err := ReadFolder(dir, Preprocess{Channels: 1})
	if err != nil || gs.Channels != 0 || gs.Dim() != 20 {
		t.Fatalf("grey reading: %v", err)
	}
	for i, name := range []string{"a/1.png", "a/2.ppm", "b/3.pgm"} {
		f, _ := os.ReadFile(filepath.Join(dir, name))
		want, _, _, _ := DecodeImage(bytes.NewReader(f), name)
		if !equalBits(gs.Image(i), want) {
			t.Errorf("%s: the grey reading differs from DecodeImage", name)
		}
	}
	// A grey folder stays grey, bit for bit.
	gdir := t.TempDir()
	writeFile(t, gdir, "a/1.png", encodeAs(t, g, "png"))
	writeFile(t, gdir, "b/1.png", encodeAs(t, g, "png"))
	s1, err1 := ReadFolder(gdir, Preprocess{})
	s2, err2 := ReadFolder(gdir, Preprocess{Channels: 1})
	if err1 != nil || err2 != nil || s1.Channels != 0 || !equalBits(s1.Pix, s2.Pix) || !equalBits(s1.Pix[:20], grey) {
		t.Errorf("grey folder: %v %v", err1, err2)
	}
}

// TestMixedSizesPointToResize checks that images of different sizes in one
// folder are refused with a message that names --resize and --fit, and
// that a resize with any fit reads them.
func TestMixedSizesPointToResize(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a/1.png", pngBytes(t, 4, 4))
	writeFile(t, dir, "b/1.png", pngBytes(t, 6, 3))
	_, err := ReadFolder(dir, Preprocess{})
	wantErr(t, "mixed sizes", err, "1.png", "--resize", "--fit", "3 x 6", "4 x 4")
	for _, fit := range []string{"pad", "crop", "stretch", ""} {
		s, err := ReadFolder(dir, Preprocess{ResizeRows: 4, ResizeCols: 4, Fit: fit})
		if err != nil || s.Rows != 4 || s.Cols != 4 || s.Len() != 2 {
			t.Errorf("fit %q: %v", fit, err)
		}
	}
}

// TestFitGeometry resizes a 2 x 4 image to 4 x 4 and to 2 x 2 with each
// fit and checks every pixel.
func TestFitGeometry(t *testing.T) {
	img := []float32{1, 2, 3, 4, 5, 6, 7, 8} // 2 rows x 4 columns
	for _, c := range []struct {
		fit        string
		rows, cols int
		want       []float32
	}{
		// pad: scale 1 fits 2 x 4 inside 4 x 4, centred: a black row above and below
		{"pad", 4, 4, []float32{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0}},
		// crop: scale 1 covers 2 x 2 with the centre columns
		{"crop", 2, 2, []float32{2, 3, 6, 7}},
		// pad to 2 x 2: scale 1/2 gives 1 x 2 (pairs averaged), on the upper row
		{"pad", 2, 2, []float32{3.5, 5.5, 0, 0}},
		// crop to 4 x 4: scale 2 covers it with the centre 2 x 2, each pixel doubled
		{"crop", 4, 4, []float32{2, 2, 3, 3, 2, 2, 3, 3, 6, 6, 7, 7, 6, 6, 7, 7}},
		// stretch: area averaging of each pair of columns
		{"stretch", 2, 2, []float32{1.5, 3.5, 5.5, 7.5}},
		// same aspect ratio: every fit is the plain resize
		{"pad", 1, 2, Resize(img, 2, 4, 1, 2)},
		{"crop", 4, 8, Resize(img, 2, 4, 4, 8)},
	} {
		got := ResizeFit(img, 2, 4, c.rows, c.cols, c.fit)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s to %d x %d: %v, want %v", c.fit, c.rows, c.cols, got, c.want)
		}
	}
	// Through Preprocess, on every plane of a colour image.
	pic := Picture{Pix: append(append([]float32{}, img...), img...), Channels: 2, Rows: 2, Cols: 4}
	out, err := Preprocess{ResizeRows: 2, ResizeCols: 2, Fit: "crop"}.ApplyPicture(pic)
	if err != nil || out.Channels != 2 || fmt.Sprint(out.Pix) != "[2 3 6 7 2 3 6 7]" {
		t.Errorf("crop of two planes: %+v %v", out, err)
	}
}

// TestModelPlanes checks that a model's recorded preprocessing converts new
// images to its planes: colour to grey for a grey model (old records too),
// grey to three equal planes for a colour model, and refuses what cannot
// be converted.
func TestModelPlanes(t *testing.T) {
	colour := Picture{Pix: []float32{1, 0, 0, 0, 1, 0, 0, 0, 1}, Channels: 3, Rows: 1, Cols: 3}
	greyModel, err := RecordedPreprocess(&scn.Model{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := greyModel.ApplyPicture(colour)
	if err != nil || got.Channels != 1 || fmt.Sprint(got.Pix) != fmt.Sprint([]float32{lumaPlanes(1, 0, 0), lumaPlanes(0, 1, 0), lumaPlanes(0, 0, 1)}) {
		t.Errorf("colour to a grey model: %+v %v", got, err)
	}
	colourModel, _ := RecordedPreprocess(&scn.Model{Preprocessing: scn.PreprocessRecord{Channels: 3}})
	got, err = colourModel.ApplyPicture(Picture{Pix: []float32{0.25, 0.5}, Channels: 1, Rows: 1, Cols: 2})
	if err != nil || got.Channels != 3 || fmt.Sprint(got.Pix) != "[0.25 0.5 0.25 0.5 0.25 0.5]" {
		t.Errorf("grey to a colour model: %+v %v", got, err)
	}
	four, _ := RecordedPreprocess(&scn.Model{Preprocessing: scn.PreprocessRecord{Channels: 4}})
	_, err = four.ApplyPicture(colour)
	wantErr(t, "colour to a 4-plane model", err, "3 planes cannot become 4")
	_, err = colourModel.ApplyPicture(Picture{Pix: []float32{1, 2}, Channels: 3, Rows: 1, Cols: 2})
	wantErr(t, "short picture", err, "not an image of 3 x 1 x 2")

	// A model file's record: old JSON (no channels) means grey; a grey
	// model records no channels, a colour one 3.
	var old scn.PreprocessRecord
	if err := json.Unmarshal([]byte(`{"invert":"auto","resize_rows":28,"resize_cols":28}`), &old); err != nil {
		t.Fatal(err)
	}
	if p, _ := RecordedPreprocess(&scn.Model{Preprocessing: old}); p.Channels != 1 || p.Fit != "" {
		t.Errorf("old record: %+v", p)
	}
	if r := (Preprocess{Channels: 1}).Record(&Set{Rows: 1, Cols: 1, Pix: []float32{0}}); r.Channels != 0 {
		t.Errorf("grey record: %+v", r)
	}
	if js, _ := json.Marshal(Preprocess{}.Record(&Set{Rows: 1, Cols: 1})); string(js) != "{}" {
		t.Errorf("grey record in JSON: %s", js)
	}
	if r := (Preprocess{}).Record(&Set{Rows: 1, Cols: 1, Channels: 3}); r.Channels != 3 {
		t.Errorf("colour record: %+v", r)
	}
	for _, bad := range []Preprocess{{Channels: -1}, {Channels: 5000}, {Fit: "pad"}, {Fit: "zoom", ResizeRows: 2, ResizeCols: 2}, {MNIST: true, Channels: 3}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v accepted", scn.PreprocessRecord(bad))
		}
	}
}

// TestPrepareConvertsPlanes checks Prepare on a colour set: grey by luma,
// and a resize of every plane.
func TestPrepareConvertsPlanes(t *testing.T) {
	s := &Set{Rows: 1, Cols: 2, Channels: 3, Pix: []float32{1, 0, 0, 1, 0.5, 0.5}, Labels: []int{0}, Classes: []string{"a", "b"}}
	g, err := Prepare(s, Preprocess{Channels: 1})
	if err != nil || g.Channels != 0 || len(g.Pix) != 2 || g.Pix[0] != lumaPlanes(1, 0, 0.5) {
		t.Fatalf("grey: %+v %v", g, err)
	}
	r, err := Prepare(s, Preprocess{ResizeRows: 1, ResizeCols: 1})
	if err != nil || r.Channels != 3 || fmt.Sprint(r.Pix) != "[0.5 0.5 0.5]" {
		t.Fatalf("resize: %+v %v", r, err)
	}
	if _, err := Prepare(s, Preprocess{Channels: 4}); err == nil {
		t.Error("3 planes made 4")
	}
}

// TestHueGreyIdentity checks the hue set's promise: every tint has exactly
// its grey's luma, and read as grey (from PNG files and from the derived
// IDX files) the classes' versions of an image are the same bits, while
// read as colour they differ.
func TestHueGreyIdentity(t *testing.T) {
	for _, k := range []int{2, 3, 5} {
		tints := HueTints(k)
		for h := range tints {
			for g, c := range tints[h] {
				if 299*int(c[0])+587*int(c[1])+114*int(c[2]) != 1000*g {
					t.Fatalf("k=%d hue %d level %d: %v has another luma", k, h, g, c)
				}
			}
		}
	}
	train, test, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	train, test = train.Subset([]int{0, 1, 2, 3, 4, 5}), test.Subset([]int{0, 1, 2})
	tints := HueTints(3)
	img := train.Image(0)
	dir := t.TempDir()
	var greys [][]float32
	for h := 0; h < 3; h++ {
		s := &Set{Rows: 28, Cols: 28, Channels: 3, Pix: Tint(img, &tints[h]), Labels: []int{0}, Classes: []string{fmt.Sprint("hue", h)}}
		sub := filepath.Join(dir, fmt.Sprint(h))
		if err := WritePNGFolder(sub, s); err != nil {
			t.Fatal(err)
		}
		col, err := ReadFolder(sub, Preprocess{})
		if err != nil || col.Channels != 3 || !equalBits(col.Pix, s.Pix) {
			t.Fatalf("hue %d: the PNG does not read back as written: %v", h, err)
		}
		grey, err := ReadFolder(sub, Preprocess{Channels: 1})
		if err != nil {
			t.Fatal(err)
		}
		planes, err := Prepare(s, Preprocess{Channels: 1})
		if err != nil {
			t.Fatal(err)
		}
		greys = append(greys, grey.Pix, planes.Pix)
	}
	for i := 2; i < len(greys); i++ {
		if !equalBits(greys[i], greys[i%2]) {
			t.Errorf("hue %d, reading %d: the grey image differs from hue 0's", i/2, i%2)
		}
	}
	d, err := BuildHue(train, test, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Write(dir); err != nil {
		t.Fatal(err)
	}
	back, err := ReadDerived(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range d.Parts {
		if msg := sameSet(p.Set, back.Parts[i].Set); msg != "" {
			t.Errorf("part %s: %s", p.Name, msg)
		}
	}
	tr := back.Part("train")
	if tr.Channels != 3 || fmt.Sprint(tr.Classes) != "[hue000 hue120 hue240]" || !strings.Contains(tr.Source, "3 hues") {
		t.Errorf("train part: %d planes, classes %v, source %q", tr.Chans(), tr.Classes, tr.Source)
	}
}
