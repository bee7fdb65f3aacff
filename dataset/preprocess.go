package dataset

import (
	"encoding/json"
	"fmt"
	"math"
)

// MetaKey is the key of a model's metadata (scn.Model.Meta) under which the
// command line records the preprocessing of its training images, as JSON.
const MetaKey = "preprocess"

// RecordedPreprocess returns the preprocessing recorded in a model's
// metadata under MetaKey, checked; a model that records none was trained on
// images used as they are (Invert "no").
func RecordedPreprocess(meta map[string]string) (Preprocess, error) {
	raw, ok := meta[MetaKey]
	if !ok {
		return Preprocess{Invert: "no"}, nil
	}
	var p Preprocess
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return p, fmt.Errorf("dataset: model records unreadable preprocessing %q: %w", raw, err)
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("dataset: model records %q: %w", raw, err)
	}
	return p, nil
}

// Preprocess says how raw images are prepared before a learner sees them.
// A model records it, so that predictions prepare new images the same way.
// The readers already give grey levels in [0, 1] (colours become luma).
type Preprocess struct {
	// Invert is "no", "yes", or "auto": invert images with dark ink on a
	// light background, detected by a bright border (DarkInk). Empty means
	// "no", except with MNIST, where it means "auto".
	Invert string `json:"invert,omitempty"`
	// ResizeRows and ResizeCols, if positive, resize every image.
	ResizeRows int `json:"resize_rows,omitempty"`
	ResizeCols int `json:"resize_cols,omitempty"`
	// MNIST brings digits to the MNIST convention: bright ink on dark, the
	// ink scaled to fit a 20 x 20 box keeping its aspect ratio, placed with
	// its centre of mass at the centre of a 28 x 28 image (NormalizeMNIST).
	MNIST bool `json:"mnist,omitempty"`
}

// Validate reports an unknown Invert value or a half-given or negative
// resize.
func (p Preprocess) Validate() error {
	switch p.Invert {
	case "", "no", "yes", "auto":
	default:
		return fmt.Errorf("dataset: invert %q: want auto, yes or no", p.Invert)
	}
	if p.ResizeRows < 0 || p.ResizeCols < 0 || (p.ResizeRows > 0) != (p.ResizeCols > 0) {
		return fmt.Errorf("dataset: resize to %d x %d: give both sizes, positive", p.ResizeRows, p.ResizeCols)
	}
	if p.ResizeRows > maxPixels || p.ResizeCols > maxPixels || p.ResizeRows*p.ResizeCols > maxPixels {
		return fmt.Errorf("dataset: resize to %d x %d: more than %d pixels", p.ResizeRows, p.ResizeCols, maxPixels)
	}
	return nil
}

// Apply prepares one image (grey levels in [0, 1], rows x cols) and returns
// the result with its shape. It never changes its input.
func (p Preprocess) Apply(pix []float32, rows, cols int) ([]float32, int, int) {
	out, rows, cols, _ := p.apply(pix, rows, cols)
	return out, rows, cols
}

// Prepare applies p to every image of s and returns the new set (refused,
// wrapping ErrTooLarge, when its images would exceed the limit of
// SetMemoryLimit); its
// Inverted field counts the images inverted (add to what s had), and its
// Source says so. Images must all come out the same size, which they do
// unless p is invalid.
func Prepare(s *Set, p Preprocess) (*Set, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	r, c := p.outShape(s.Rows, s.Cols)
	need := int64(s.Len()) * int64(r) * int64(c) * 4
	if err := checkMemory(need, fmt.Sprintf("%d images prepared to %d x %d", s.Len(), r, c)); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	src := *s
	src.Pix = nil // Clone copies everything but the pixels, which are made anew
	out := src.Clone()
	out.Pix = make([]float32, 0, need/4)
	inverted := 0
	for i := 0; i < s.Len(); i++ {
		img, r, c, inv := p.apply(s.Image(i), s.Rows, s.Cols)
		if inv {
			inverted++
		}
		out.Rows, out.Cols = r, c
		out.Pix = append(out.Pix, img...)
	}
	out.Inverted += inverted
	out.Source = s.Source + p.describe(inverted, s.Len())
	return out, nil
}

// describe says, for a source string, what p did to n images of which
// inverted were inverted.
func (p Preprocess) describe(inverted, n int) string {
	d := ""
	switch {
	case p.Invert == "yes":
		d += "; inverted"
	case p.Invert == "auto" || p.MNIST && p.Invert != "no":
		d += fmt.Sprintf("; polarity detected: %d of %d images were dark ink on light and were inverted", inverted, n)
	}
	if p.MNIST {
		d += "; brought to the MNIST convention (20 x 20 box, centre of mass at the centre of 28 x 28)"
	}
	if p.ResizeRows > 0 && p.ResizeCols > 0 {
		d += fmt.Sprintf("; resized to %d x %d", p.ResizeRows, p.ResizeCols)
	}
	return d
}

// DarkInkCount returns how many images of s look like dark ink on a light
// background (DarkInk): a set where most do wants inverting (Preprocess
// Invert "auto" or "yes") before a learner trained on MNIST-like data sees
// it.
func (s *Set) DarkInkCount() int {
	n := 0
	for i := 0; i < s.Len(); i++ {
		if DarkInk(s.Image(i), s.Rows, s.Cols) {
			n++
		}
	}
	return n
}

// outShape returns the shape p gives an image of rows x cols.
func (p Preprocess) outShape(rows, cols int) (int, int) {
	if p.MNIST {
		rows, cols = 28, 28
	}
	if p.ResizeRows > 0 && p.ResizeCols > 0 {
		rows, cols = p.ResizeRows, p.ResizeCols
	}
	return rows, cols
}

// apply is Apply that also says whether it inverted the image.
func (p Preprocess) apply(pix []float32, rows, cols int) ([]float32, int, int, bool) {
	out := append([]float32(nil), pix...)
	inverted := false
	if p.Invert == "yes" || (p.Invert == "auto" || p.MNIST && p.Invert != "no") && DarkInk(out, rows, cols) {
		Invert(out)
		inverted = true
	}
	if p.MNIST {
		out = NormalizeMNIST(out, rows, cols)
		rows, cols = 28, 28
	}
	if p.ResizeRows > 0 && p.ResizeCols > 0 && (p.ResizeRows != rows || p.ResizeCols != cols) {
		out = Resize(out, rows, cols, p.ResizeRows, p.ResizeCols)
		rows, cols = p.ResizeRows, p.ResizeCols
	}
	return out, rows, cols, inverted
}

// DarkInk reports whether an image looks like dark ink on a light
// background: the mean of its border pixels is above one half.
func DarkInk(pix []float32, rows, cols int) bool {
	var sum float64
	n := 0
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			if r == 0 || c == 0 || r == rows-1 || c == cols-1 {
				sum += float64(pix[r*cols+c])
				n++
			}
		}
	}
	return n > 0 && sum/float64(n) > 0.5
}

// Invert replaces every grey level v by 1 - v.
func Invert(pix []float32) {
	for i, v := range pix {
		pix[i] = 1 - v
	}
}

// Resize resamples an image to newRows x newCols by area averaging: each
// output pixel is the mean of the input area it covers (so shrinking is
// anti-aliased), which for enlargement reduces to sampling the input pixel
// under it blended at the borders.
func Resize(pix []float32, rows, cols, newRows, newCols int) []float32 {
	out := make([]float32, newRows*newCols)
	sy, sx := float64(rows)/float64(newRows), float64(cols)/float64(newCols)
	for y := 0; y < newRows; y++ {
		y0, y1 := float64(y)*sy, float64(y+1)*sy
		for x := 0; x < newCols; x++ {
			x0, x1 := float64(x)*sx, float64(x+1)*sx
			var sum, area float64
			for r := int(y0); r < int(math.Ceil(y1)) && r < rows; r++ {
				wy := math.Min(y1, float64(r+1)) - math.Max(y0, float64(r))
				for c := int(x0); c < int(math.Ceil(x1)) && c < cols; c++ {
					wx := math.Min(x1, float64(c+1)) - math.Max(x0, float64(c))
					sum += wy * wx * float64(pix[r*cols+c])
					area += wy * wx
				}
			}
			if area > 0 {
				out[y*newCols+x] = float32(sum / area)
			}
		}
	}
	return out
}

// NormalizeMNIST brings a bright-on-dark digit to the MNIST convention: it
// crops the ink's bounding box, scales it to fit 20 x 20 keeping the aspect
// ratio, and places it in a 28 x 28 image with its centre of mass at the
// centre, shifted by whole pixels as in LeCun's preparation of MNIST. Like
// MNIST, the centre is the centre of pixel (14, 14) (row and column 14,
// counted from 0), half a pixel from the image's geometric centre;
// applied to MNIST digits it changes 0.3% of their ink. An image without
// ink gives an empty 28 x 28 image.
func NormalizeMNIST(pix []float32, rows, cols int) []float32 {
	out := make([]float32, 28*28)
	var peak float32
	for _, v := range pix {
		peak = max(peak, v)
	}
	if peak <= 0 {
		return out
	}
	top, left, bottom, right := rows, cols, -1, -1
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			if pix[r*cols+c] > 0.1*peak {
				top, bottom = min(top, r), max(bottom, r)
				left, right = min(left, c), max(right, c)
			}
		}
	}
	h, w := bottom-top+1, right-left+1
	crop := make([]float32, h*w)
	for r := 0; r < h; r++ {
		copy(crop[r*w:(r+1)*w], pix[(top+r)*cols+left:(top+r)*cols+left+w])
	}
	scale := 20 / float64(max(h, w))
	nh, nw := max(1, int(math.Round(float64(h)*scale))), max(1, int(math.Round(float64(w)*scale)))
	small := Resize(crop, h, w, nh, nw)
	var mass, my, mx float64
	for r := 0; r < nh; r++ {
		for c := 0; c < nw; c++ {
			v := float64(small[r*nw+c])
			mass += v
			my += v * (float64(r) + 0.5)
			mx += v * (float64(c) + 0.5)
		}
	}
	// MNIST puts the centre of mass on the centre of pixel (14, 14), which
	// is 14.5 in these pixel-edge coordinates (measured on MNIST: 14.49,
	// 14.51 on average).
	oy, ox := int(math.Round(14.5-my/mass)), int(math.Round(14.5-mx/mass))
	for r := 0; r < nh; r++ {
		for c := 0; c < nw; c++ {
			y, x := r+oy, c+ox
			if y >= 0 && y < 28 && x >= 0 && x < 28 {
				out[y*28+x] = small[r*nw+c]
			}
		}
	}
	return out
}
