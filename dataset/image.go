package dataset

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
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

// DecodeImage decodes one image (PNG, JPEG, GIF, BMP, or PGM/PPM in the
// P2, P3, P5 and P6 forms) into grey levels in [0, 1], row-major; colours
// become luma (ITU-R BT.601). name is used in errors.
func DecodeImage(r io.Reader, name string) (pix []float32, rows, cols int, err error) {
	pix, rows, cols, err = decodeImage(r)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("dataset: %s: %w", name, err)
	}
	return pix, rows, cols, nil
}

// decodeImage is DecodeImage without the name; the format is told by
// content.
func decodeImage(r io.Reader) (pix []float32, rows, cols int, err error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0] == 'P' && head[1] >= '1' && head[1] <= '6' {
		return readPNM(br)
	}
	return decodeStd(br)
}

// decodeStd decodes with Go's image packages, checking the size the header
// claims before decoding the pixels.
func decodeStd(r *bufio.Reader) ([]float32, int, int, error) {
	var buf bytes.Buffer
	cfg, _, err := image.DecodeConfig(io.TeeReader(r, &buf))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxPixels {
		return nil, 0, 0, fmt.Errorf("%w: image of %d x %d", ErrFormat, cfg.Width, cfg.Height)
	}
	img, _, err := image.Decode(io.MultiReader(&buf, r))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	b := img.Bounds()
	rows, cols := b.Dy(), b.Dx()
	// The pixels can have other bounds than the header (a GIF's first frame
	// may be empty inside a non-empty screen).
	if rows <= 0 || cols <= 0 || rows*cols > maxPixels {
		return nil, 0, 0, fmt.Errorf("%w: decoded image of %d x %d (header: %d x %d)", ErrFormat, cols, rows, cfg.Width, cfg.Height)
	}
	pix := make([]float32, rows*cols)
	for y := 0; y < rows; y++ {
		for x := 0; x < cols; x++ {
			r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			pix[y*cols+x] = float32((0.299*float64(r) + 0.587*float64(g) + 0.114*float64(bl)) / 65535)
		}
	}
	return pix, rows, cols, nil
}

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

// LoadImageFile reads one image file and prepares it with p.
func LoadImageFile(path string, p Preprocess) (pix []float32, rows, cols int, err error) {
	if err := p.Validate(); err != nil {
		return nil, 0, 0, err
	}
	f, err := openFile(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	pix, rows, cols, err = DecodeImage(f, path)
	if err != nil {
		return nil, 0, 0, err
	}
	pix, rows, cols = p.Apply(pix, rows, cols)
	return pix, rows, cols, nil
}
