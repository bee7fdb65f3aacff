package dataset

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/color"
	_ "image/gif"  // GIF decoder
	_ "image/jpeg" // JPEG decoder
	_ "image/png"  // PNG decoder
	"io"

	_ "golang.org/x/image/bmp" // BMP decoder
)

// maxPixels bounds the size of one image (a 4096 x 4096 picture, far more
// than the learners take): a header claiming more is refused before the
// decoder allocates for it.
const maxPixels = 1 << 24

// MaxChannels bounds the planes of one image (a NumPy array's channel
// axis; image files have 1 or 3).
const MaxChannels = 1024

// Picture is one image: Channels planes (1: grey; 3: red, green, blue) of
// Rows x Cols values in [0, 1], each plane row-major, one after the other
// (C x H x W, the layout of a Set's images).
type Picture struct {
	Pix                  []float32
	Channels, Rows, Cols int
}

// DecodeImage decodes one image (PNG, JPEG, GIF, BMP, or PGM/PPM in the
// P2, P3, P5 and P6 forms) into grey levels in [0, 1], row-major; colours
// become luma (ITU-R BT.601). name is used in errors. It is
// DecodePicture(r, name, 1): the grey reading of --grey.
func DecodeImage(r io.Reader, name string) (pix []float32, rows, cols int, err error) {
	p, err := DecodePicture(r, name, 1)
	return p.Pix, p.Rows, p.Cols, err
}

// DecodePicture decodes one image file (the formats of DecodeImage) into
// planes of values in [0, 1]. channels says which planes:
//
//   - 0: as the file is: three planes (red, green, blue) when the image is
//     colour, one when it is grey. An image is colour when any pixel's red,
//     green and blue differ, whatever its file's colour model (a grey
//     picture saved as RGB is grey);
//   - 1: grey: colours become luma, 0.299 R + 0.587 G + 0.114 B (ITU-R
//     BT.601), the values DecodeImage gives;
//   - 3: red, green, blue; a grey image gives three equal planes.
//
// Samples of 16 bits (PNG, PGM/PPM with maxval above 255) keep their
// precision; palette images (PNG, GIF) give their palette's colours; a CMYK
// JPEG is converted to RGB (image/color's CMYK conversion); transparency is
// composited on black (a transparent pixel is 0 in every plane, a half
// transparent one half its colour), the background padding and zero
// pixels have. name is used in errors.
func DecodePicture(r io.Reader, name string, channels int) (Picture, error) {
	if channels != 0 && channels != 1 && channels != 3 {
		return Picture{}, fmt.Errorf("dataset: %s: an image file gives 1 (grey) or 3 (RGB) planes, not %d", name, channels)
	}
	raw, err := decodeRaw(r)
	if err != nil {
		return Picture{}, fmt.Errorf("dataset: %s: %w", name, err)
	}
	return picture(raw, channels), nil
}

// rawImage is a decoded file before it becomes planes.
type rawImage interface {
	size() (rows, cols int)
	// colour reports whether any pixel's red, green and blue differ.
	colour() bool
	// grey fills rows*cols luma values; rgb fills three planes.
	grey(pix []float32)
	rgb(pix []float32)
}

// picture makes the planes channels asks for (see DecodePicture).
func picture(raw rawImage, channels int) Picture {
	rows, cols := raw.size()
	colour := channels != 1 && raw.colour()
	if channels == 0 {
		channels = 1
		if colour {
			channels = 3
		}
	}
	p := Picture{Channels: channels, Rows: rows, Cols: cols, Pix: make([]float32, channels*rows*cols)}
	switch {
	case channels == 1:
		raw.grey(p.Pix)
	case colour:
		raw.rgb(p.Pix)
	default:
		// A grey image as three planes: its grey levels, three times.
		n := rows * cols
		raw.grey(p.Pix[:n])
		copy(p.Pix[n:], p.Pix[:n])
		copy(p.Pix[2*n:], p.Pix[:n])
	}
	return p
}

// decodeRaw decodes a file; the format is told by content.
func decodeRaw(r io.Reader) (rawImage, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0] == 'P' && head[1] >= '1' && head[1] <= '6' {
		return readPNM(br)
	}
	return decodeStd(br)
}

// decodeStd decodes with Go's image packages, checking the size the header
// claims before decoding the pixels.
func decodeStd(r *bufio.Reader) (rawImage, error) {
	var buf bytes.Buffer
	cfg, _, err := image.DecodeConfig(io.TeeReader(r, &buf))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxPixels {
		return nil, fmt.Errorf("%w: image of %d x %d", ErrFormat, cfg.Width, cfg.Height)
	}
	img, _, err := image.Decode(io.MultiReader(&buf, r))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	b := img.Bounds()
	rows, cols := b.Dy(), b.Dx()
	// The pixels can have other bounds than the header (a GIF's first frame
	// may be empty inside a non-empty screen).
	if rows <= 0 || cols <= 0 || rows*cols > maxPixels {
		return nil, fmt.Errorf("%w: decoded image of %d x %d (header: %d x %d)", ErrFormat, cols, rows, cfg.Width, cfg.Height)
	}
	return stdImage{img}, nil
}

// stdImage is an image of Go's image packages. Its colours are read with
// RGBA: 16 bits per sample, alpha-premultiplied (composited on black).
type stdImage struct{ img image.Image }

func (s stdImage) size() (int, int) { b := s.img.Bounds(); return b.Dy(), b.Dx() }

func (s stdImage) colour() bool {
	switch s.img.(type) {
	case *image.Gray, *image.Gray16:
		return false
	}
	b := s.img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := s.img.At(x, y).RGBA()
			if r != g || g != bl {
				return true
			}
		}
	}
	return false
}

func (s stdImage) grey(pix []float32) {
	b := s.img.Bounds()
	rows, cols := b.Dy(), b.Dx()
	for y := 0; y < rows; y++ {
		for x := 0; x < cols; x++ {
			r, g, bl, _ := s.img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			pix[y*cols+x] = lumaRGBA(r, g, bl)
		}
	}
}

// lumaRGBA is the grey level of 16-bit red, green and blue (BT.601).
func lumaRGBA(r, g, b uint32) float32 {
	return float32((0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)) / 65535)
}

func (s stdImage) rgb(pix []float32) {
	b := s.img.Bounds()
	rows, cols := b.Dy(), b.Dx()
	n := rows * cols
	for y := 0; y < rows; y++ {
		for x := 0; x < cols; x++ {
			r, g, bl, _ := s.img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			i := y*cols + x
			pix[i] = float32(float64(r) / 65535)
			pix[n+i] = float32(float64(g) / 65535)
			pix[2*n+i] = float32(float64(bl) / 65535)
		}
	}
}

// colourOf returns the planes of one colour, for tests of the conversion
// of a colour model (CMYK, alpha, 16 bits): red, green, blue in [0, 1].
func colourOf(c color.Color) (r, g, b float32) {
	p := picture(stdImage{&single{c}}, 3)
	return p.Pix[0], p.Pix[1], p.Pix[2]
}

// single is a 1 x 1 image of one colour.
type single struct{ c color.Color }

func (s *single) ColorModel() color.Model { return color.RGBA64Model }
func (s *single) Bounds() image.Rectangle { return image.Rect(0, 0, 1, 1) }
func (s *single) At(int, int) color.Color { return s.c }

// ImageSize reads only the header of an image (any format DecodeImage
// takes) and returns the size it claims, so that a caller can refuse a large
// image before anything is decoded or allocated for it.
func ImageSize(r io.Reader) (rows, cols int, err error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0] == 'P' && head[1] >= '1' && head[1] <= '6' {
		br.Discard(2)
		c, err := pnmInt(br)
		if err != nil {
			return 0, 0, err
		}
		r, err := pnmInt(br)
		if err != nil {
			return 0, 0, err
		}
		return r, c, nil
	}
	cfg, _, err := image.DecodeConfig(br)
	if err != nil {
		return 0, 0, fmt.Errorf("dataset: %w: %v", ErrFormat, err)
	}
	return cfg.Height, cfg.Width, nil
}

// LoadImageFile reads one image file as grey (colours become luma, as
// DecodeImage gives them) and prepares it with p, whose Channels must be 0
// or 1; LoadPicture reads colour too.
func LoadImageFile(path string, p Preprocess) (pix []float32, rows, cols int, err error) {
	if p.Channels == 0 {
		p.Channels = 1
	}
	pic, err := LoadPicture(path, p)
	if err != nil {
		return nil, 0, 0, err
	}
	if pic.Channels != 1 {
		return nil, 0, 0, fmt.Errorf("dataset: %s: a colour image (%d planes): read it with LoadPicture, or ask for grey (Channels 1)", path, pic.Channels)
	}
	return pic.Pix, pic.Rows, pic.Cols, nil
}

// LoadPicture reads one image file and prepares it with p: the planes p
// asks for (Preprocess.Channels; 0: as the file is), then its resizing and
// the rest.
func LoadPicture(path string, p Preprocess) (Picture, error) {
	if err := p.Validate(); err != nil {
		return Picture{}, err
	}
	f, err := openFile(path)
	if err != nil {
		return Picture{}, err
	}
	defer f.Close()
	pic, err := DecodePicture(f, path, p.decodeChannels())
	if err != nil {
		return Picture{}, err
	}
	return p.ApplyPicture(pic)
}
