package dataset

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/scn2d/scn/internal/atomicfile"
)

// The hue set: grey images tinted with one of k hues of equal luma, the
// class being the hue. Read as colour, the class is plain to see; read as
// grey (--grey), every class's version of an image is the same image, bit
// for bit, so that no learner can do better than chance: the set shows
// whether a learner uses colour.

// hueLevel scales the grey levels before tinting: a pixel of grey level v
// becomes a colour of luma hueLevel*v, which leaves room for saturated
// colours of equal luma (white has no hue).
const hueLevel = 0.5

// hueChroma is the tint's chroma relative to its luma (the U, V amplitude
// of BT.601's YUV over Y); at luma hueLevel every hue stays within [0, 1].
const hueChroma = 0.45

// HueTints returns, for k hues, the tint of every grey level g (0 to 255):
// tints[h][g] is an 8-bit red, green, blue of luma exactly g/255 as the
// readers compute it, both from a file (DecodePicture with 1 channel) and
// from planes (ApplyPicture with Channels 1), and of hue 360 h/k degrees in
// BT.601's U, V plane (chroma hueChroma times the luma). Where no colour
// of that exact luma lies near the ideal tint (the darkest levels), the
// tint is the grey itself.
func HueTints(k int) [][256][3]uint8 {
	tints := make([][256][3]uint8, k)
	for h := range tints {
		a := 2 * math.Pi * float64(h) / float64(k)
		for g := 0; g < 256; g++ {
			y := float64(g)
			u, v := hueChroma*y*math.Cos(a), hueChroma*y*math.Sin(a)
			ideal := [3]float64{y + 1.13983*v, y - 0.39465*u - 0.58060*v, y + 2.03211*u}
			tints[h][g] = exactLuma(g, ideal)
		}
	}
	return tints
}

// exactLuma returns the 8-bit colour nearest to ideal whose luma, as both
// readers compute it, is that of the grey g (so that the grey readings are
// the same bits); the grey itself if none lies within 24 levels.
func exactLuma(g int, ideal [3]float64) [3]uint8 {
	best, bestD := [3]uint8{uint8(g), uint8(g), uint8(g)}, math.Inf(1)
	wantFile := lumaRGBA(uint32(g)*257, uint32(g)*257, uint32(g)*257)
	gp := float32(g) / 255
	wantPlanes := lumaPlanes(gp, gp, gp)
	r0, g0 := int(math.Round(ideal[0])), int(math.Round(ideal[1]))
	for r := max(r0-24, 0); r <= min(r0+24, 255); r++ {
		for gr := max(g0-24, 0); gr <= min(g0+24, 255); gr++ {
			// 299 r + 587 g + 114 b = 1000 g exactly.
			rest := 1000*g - 299*r - 587*gr
			if rest < 0 || rest%114 != 0 || rest/114 > 255 {
				continue
			}
			b := rest / 114
			if lumaRGBA(uint32(r)*257, uint32(gr)*257, uint32(b)*257) != wantFile ||
				lumaPlanes(float32(r)/255, float32(gr)/255, float32(b)/255) != wantPlanes {
				continue
			}
			d := sq(float64(r)-ideal[0]) + sq(float64(gr)-ideal[1]) + sq(float64(b)-ideal[2])
			if d < bestD {
				best, bestD = [3]uint8{uint8(r), uint8(gr), uint8(b)}, d
			}
		}
	}
	return best
}

func sq(x float64) float64 { return x * x }

// Tint returns the grey image pix (rows x cols, one plane) as three planes
// tinted with tints (one hue of HueTints): each pixel's grey level, scaled
// by hueLevel and rounded to 8 bits, becomes the tint of that level.
func Tint(pix []float32, tints *[256][3]uint8) []float32 {
	n := len(pix)
	out := make([]float32, 3*n)
	for i, v := range pix {
		g := int(math.Round(float64(pixelByte(v)) * hueLevel))
		for c := 0; c < 3; c++ {
			out[c*n+i] = float32(tints[g][c]) / 255
		}
	}
	return out
}

// hueNames names k hues by their angle in the U, V plane.
func hueNames(k int) []string {
	names := make([]string, k)
	for h := range names {
		names[h] = fmt.Sprintf("hue%03d", int(math.Round(360*float64(h)/float64(k))))
	}
	return names
}

// HueSet tints each image of the grey set s with one of k hues (Tint),
// the hue being its class: the images are dealt to the hues at random
// (seeded), as evenly as they go (the first len % k hues get one more),
// whatever their own labels. Origin gives each image's index in s.
func HueSet(s *Set, k int, seed uint64, stream uint64) (*Set, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Chans() != 1 {
		return nil, fmt.Errorf("dataset: the hue set tints grey images, not images of %d planes", s.Chans())
	}
	if k < 2 || k > 64 {
		return nil, fmt.Errorf("dataset: %d hues: want 2 to 64", k)
	}
	tints := HueTints(k)
	n := s.Len()
	perm := rng(seed, stream).Perm(n)
	out := &Set{Rows: s.Rows, Cols: s.Cols, Channels: 3, Classes: hueNames(k),
		Pix: make([]float32, 0, 3*n*s.Rows*s.Cols), Labels: make([]int, n), Origin: make([]int, n)}
	for i := 0; i < n; i++ {
		out.Pix = append(out.Pix, Tint(s.Image(i), &tints[perm[i]%k])...)
		out.Labels[i] = perm[i] % k
		out.Origin[i] = i
		if s.Origin != nil {
			out.Origin[i] = s.Origin[i]
		}
	}
	out.Source = fmt.Sprintf("%s; each image tinted with one of %d hues of equal luma (its class), dealt at random (seed %d)", s.Source, k, seed)
	return out, nil
}

// BuildHue builds the hue data set from the grey training and test sets
// of a source (the built-in digits, say): HueSet on each with k hues, the
// class being the hue, not the source's label. See HueTints for the
// colours. Read as grey, all classes of an image are the same bits.
func BuildHue(train, test *Set, k int, seed uint64) (*Derived, error) {
	tr, err := HueSet(train, k, seed, 0x40e)
	if err != nil {
		return nil, err
	}
	te, err := HueSet(test, k, seed, 0x40f)
	if err != nil {
		return nil, err
	}
	return &Derived{
		Manifest: Manifest{
			Name: "hue",
			Description: fmt.Sprintf("Classes that differ in hue only: each grey image of the source is tinted with one of %d hues (the class), dealt at random. "+
				"A pixel of grey level v becomes the 8-bit colour of luma %.1f v, of hue 360 h / %d degrees in BT.601's U, V plane (chroma %.2f times the luma), "+
				"chosen so that its luma 0.299 R + 0.587 G + 0.114 B is exactly that of the grey: read as grey (scn --grey), "+
				"every class's version of an image is the same image, bit for bit, and no learner can beat chance; read as colour the hue is plain. "+
				"Images are N x 3 x rows x cols (red, green, blue planes). origin gives each image's index in the source set.", k, hueLevel, k, hueChroma),
			Generator: generator("BuildHue"),
			Seed:      seed,
			Params:    map[string]string{"hues": fmt.Sprint(k), "level": fmt.Sprint(hueLevel), "chroma": fmt.Sprint(hueChroma)},
			Sources:   sources([]*Set{train, test}),
		},
		Parts: []Part{{"train", tr}, {"test", te}},
	}, nil
}

// WritePNGFolder writes the images of s as PNG files in the layout
// ReadFolder reads: dir/<class>/<index>.png, the index of the image in s
// with six digits; 8 bits per sample, grey or (3 planes) RGB. Each file is
// written atomically. Reading the folder back gives s with its pixels
// rounded to bytes (Quantize), classes sorted by name.
func WritePNGFolder(dir string, s *Set) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if s.Labels == nil {
		return fmt.Errorf("dataset: %s: a folder of class subfolders needs labels", dir)
	}
	if c := s.Chans(); c != 1 && c != 3 {
		return fmt.Errorf("dataset: %s: PNG files hold grey or RGB, not %d planes", dir, c)
	}
	for i := 0; i < s.Len(); i++ {
		class := s.Classes[s.Labels[i]]
		if class == "" || class == "." || class == ".." || filepath.Base(class) != class || class[0] == '.' {
			return fmt.Errorf("dataset: %s: class name %q cannot be a folder name", dir, class)
		}
		sub := filepath.Join(dir, class)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return fmt.Errorf("dataset: %w", err)
		}
		var b bytes.Buffer
		if err := png.Encode(&b, pngImage(s.Image(i), s.Chans(), s.Rows, s.Cols)); err != nil {
			return fmt.Errorf("dataset: %w", err)
		}
		path := filepath.Join(sub, fmt.Sprintf("%06d.png", i))
		if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err }); err != nil {
			return fmt.Errorf("dataset: write %s: %w", path, err)
		}
	}
	return nil
}

// pngImage makes an 8-bit image of one grey or three RGB planes.
func pngImage(pix []float32, c, rows, cols int) image.Image {
	n := rows * cols
	if c == 1 {
		img := image.NewGray(image.Rect(0, 0, cols, rows))
		for i, v := range pix {
			img.Pix[i] = pixelByte(v)
		}
		return img
	}
	img := image.NewRGBA(image.Rect(0, 0, cols, rows))
	for i := 0; i < n; i++ {
		img.SetRGBA(i%cols, i/cols, color.RGBA{pixelByte(pix[i]), pixelByte(pix[n+i]), pixelByte(pix[2*n+i]), 255})
	}
	return img
}
