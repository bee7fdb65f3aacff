package dataset

import (
	"fmt"
	"math"
	"strings"

	"github.com/scn2d/scn"
)

// Preprocess says how raw images are prepared before a learner sees them:
// the record a model keeps (scn.PreprocessRecord, whose fields it has and
// whose documentation says what they mean), with the image operations as
// methods. Convert freely: dataset.Preprocess(m.Preprocessing) and
// scn.PreprocessRecord(p), but prepare new images for a model with
// RecordedPreprocess, which reads a record's Channels 0 as grey (given to a
// reader, 0 means "as the files are"). The readers give values in [0, 1].
//
// The operations run in this order: the planes (Channels: colour to grey by
// luma, grey to colour as three equal planes), inversion, the MNIST
// convention, the resize (Fit), the deskew, each plane alike (the deskew
// measures the slant on the planes' sum and shears every plane alike).
type Preprocess scn.PreprocessRecord

// Validate reports an unknown Invert value, a half-given or negative
// resize, or a resize to more pixels than an image may have.
func (p Preprocess) Validate() error {
	if err := scn.PreprocessRecord(p).Validate(); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	if p.ResizeRows > maxPixels || p.ResizeCols > maxPixels || p.ResizeRows*p.ResizeCols > maxPixels {
		return fmt.Errorf("dataset: resize to %d x %d: more than %d pixels", p.ResizeRows, p.ResizeCols, maxPixels)
	}
	return nil
}

// String says in words what p does to an image, e.g. "invert dark ink on
// light (auto), MNIST convention (20 x 20 box, centre of mass, 28 x 28)",
// or "none (images used as read)".
func (p Preprocess) String() string {
	var parts []string
	switch {
	case p.Invert == "yes":
		parts = append(parts, "invert")
	case p.Invert == "auto" || p.MNIST && p.Invert != "no":
		parts = append(parts, "invert dark ink on light (auto)")
	}
	if p.MNIST {
		parts = append(parts, "MNIST convention (20 x 20 box, centre of mass, 28 x 28)")
	}
	if p.ResizeRows > 0 {
		parts = append(parts, fmt.Sprintf("resize to %d x %d%s", p.ResizeRows, p.ResizeCols, fitText(p.Fit)))
	}
	if p.Deskew {
		parts = append(parts, "deskew")
	}
	switch {
	case p.Channels == 1:
		parts = append(parts, "grey (colours become luma)")
	case p.Channels == 3:
		parts = append(parts, "colour (red, green, blue)")
	case p.Channels > 1:
		parts = append(parts, fmt.Sprintf("%d channels", p.Channels))
	}
	if len(parts) == 0 {
		return "none (images used as read)"
	}
	return strings.Join(parts, ", ")
}

// fitText says how a resize keeps the aspect ratio, for String.
func fitText(fit string) string {
	switch fit {
	case "pad":
		return " (aspect ratio kept, padded with black, centred)"
	case "crop":
		return " (aspect ratio kept, centre cropped)"
	case "stretch":
		return " (stretched)"
	}
	return ""
}

// RecordedPreprocess returns the preprocessing a model records
// (m.Preprocessing, read from the model file's header, or from the
// metadata of files written before the header had the field), checked: new
// images given to the model are to be prepared with it. A model that
// records none was trained on images used as read. A record without
// Channels (0, every file written before colour) means grey: the result
// has Channels 1, so that a colour image given to a grey model becomes
// grey, and a grey image given to a colour model (Channels 3) becomes three
// equal planes.
func RecordedPreprocess(m *scn.Model) (Preprocess, error) {
	p := Preprocess(m.Preprocessing)
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("dataset: the model records unusable preprocessing: %w", err)
	}
	p.Channels = max(p.Channels, 1)
	return p, nil
}

// Record returns the preprocessing a model trained on s, prepared with p,
// records: p with Channels set to the set's planes, 0 for grey (so that a
// grey model's file is what it was before colour existed).
func (p Preprocess) Record(s *Set) scn.PreprocessRecord {
	p.Channels = s.Chans()
	if p.Channels == 1 {
		p.Channels = 0
	}
	return scn.PreprocessRecord(p)
}

// Apply prepares one grey image (grey levels in [0, 1], rows x cols) and
// returns the result with its shape; p's Channels must be 0 or 1
// (ApplyPicture takes colour). It never changes its input.
func (p Preprocess) Apply(pix []float32, rows, cols int) ([]float32, int, int) {
	out, rows, cols, _ := p.apply(pix, 1, rows, cols)
	return out, rows, cols
}

// ApplyPicture prepares one image and returns the result: first its planes
// become p's (Channels 0 keeps them, 1 makes colour grey by luma, 3 makes a
// grey image three equal planes; other conversions are refused), then the
// rest of p applies to each plane. It never changes its input.
func (p Preprocess) ApplyPicture(pic Picture) (Picture, error) {
	c := max(pic.Channels, 1)
	if len(pic.Pix) != c*pic.Rows*pic.Cols || pic.Rows < 1 || pic.Cols < 1 {
		return Picture{}, fmt.Errorf("dataset: %d values are not an image of %d x %d x %d", len(pic.Pix), c, pic.Rows, pic.Cols)
	}
	pix, c, err := convertChannels(pic.Pix, c, p.wantChannels(c), pic.Rows*pic.Cols)
	if err != nil {
		return Picture{}, err
	}
	out, rows, cols, _ := p.apply(pix, c, pic.Rows, pic.Cols)
	return Picture{Pix: out, Channels: c, Rows: rows, Cols: cols}, nil
}

// wantChannels returns the planes p makes of an image of c planes.
func (p Preprocess) wantChannels(c int) int {
	switch {
	case p.MNIST:
		return 1
	case p.Channels > 0:
		return p.Channels
	}
	return c
}

// decodeChannels returns the planes to ask a file's decoder for
// (DecodePicture): grey directly (the values of DecodeImage) when p wants
// grey, else as the file is or colour.
func (p Preprocess) decodeChannels() int {
	switch c := p.wantChannels(0); c {
	case 1, 3:
		return c
	}
	return 0
}

// lumaPlanes is the grey level of red, green and blue values (BT.601), as
// ApplyPicture and Prepare make colour grey.
func lumaPlanes(r, g, b float32) float32 {
	return float32(0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b))
}

// convertChannels returns the n-pixel image pix of c planes as want
// planes: colour (3) to grey (1) by luma (BT.601), grey to want equal
// planes; nothing else converts. pix itself when c == want.
func convertChannels(pix []float32, c, want, n int) ([]float32, int, error) {
	switch {
	case c == want:
		return pix, c, nil
	case c == 3 && want == 1:
		out := make([]float32, n)
		for i := range out {
			out[i] = lumaPlanes(pix[i], pix[n+i], pix[2*n+i])
		}
		return out, 1, nil
	case c == 1:
		out := make([]float32, want*n)
		for k := 0; k < want; k++ {
			copy(out[k*n:], pix[:n])
		}
		return out, want, nil
	}
	return nil, 0, fmt.Errorf("dataset: images of %d planes cannot become %d (grey becomes any number of equal planes, red-green-blue becomes grey)", c, want)
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
	ch := p.wantChannels(s.Chans())
	if _, _, err := convertChannels(nil, s.Chans(), ch, 0); err != nil {
		return nil, err
	}
	need := int64(s.Len()) * int64(ch) * int64(r) * int64(c) * 4
	if err := checkMemory(need, fmt.Sprintf("%d images prepared to %d x %d x %d", s.Len(), ch, r, c)); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	src := *s
	src.Pix = nil // Clone copies everything but the pixels, which are made anew
	out := src.Clone()
	out.Pix = make([]float32, 0, need/4)
	out.Channels = 0
	if ch > 1 {
		out.Channels = ch
	}
	inverted := 0
	for i := 0; i < s.Len(); i++ {
		pix, _, _ := convertChannels(s.Image(i), s.Chans(), ch, s.Rows*s.Cols)
		img, r, c, inv := p.apply(pix, ch, s.Rows, s.Cols)
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
		d += fmt.Sprintf("; resized to %d x %d%s", p.ResizeRows, p.ResizeCols, fitText(p.Fit))
	}
	if p.Deskew {
		d += "; deskewed (sheared upright, centre of mass centred)"
	}
	return d
}

// DarkInkCount returns how many images of s look like dark ink on a light
// background (DarkInk, over all planes): a set where most do wants
// inverting (Preprocess Invert "auto" or "yes") before a learner trained on
// MNIST-like data sees it.
func (s *Set) DarkInkCount() int {
	n := 0
	for i := 0; i < s.Len(); i++ {
		if darkInkPlanes(s.Image(i), s.Chans(), s.Rows, s.Cols) {
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

// apply prepares an image of c planes (already p's planes) and also says
// whether it inverted it.
func (p Preprocess) apply(pix []float32, c, rows, cols int) ([]float32, int, int, bool) {
	out := append([]float32(nil), pix...)
	inverted := false
	if p.Invert == "yes" || (p.Invert == "auto" || p.MNIST && p.Invert != "no") && darkInkPlanes(out, c, rows, cols) {
		Invert(out)
		inverted = true
	}
	if p.MNIST && c == 1 {
		out = NormalizeMNIST(out, rows, cols)
		rows, cols = 28, 28
	}
	if p.ResizeRows > 0 && p.ResizeCols > 0 && (p.ResizeRows != rows || p.ResizeCols != cols) {
		n := rows * cols
		resized := make([]float32, 0, c*p.ResizeRows*p.ResizeCols)
		for k := 0; k < c; k++ {
			resized = append(resized, ResizeFit(out[k*n:(k+1)*n], rows, cols, p.ResizeRows, p.ResizeCols, p.Fit)...)
		}
		out, rows, cols = resized, p.ResizeRows, p.ResizeCols
	}
	if p.Deskew {
		out = Deskew(out, c, rows, cols)
	}
	return out, rows, cols, inverted
}

// darkInkPlanes is DarkInk over the borders of all c planes.
func darkInkPlanes(pix []float32, c, rows, cols int) bool {
	if c <= 1 {
		return DarkInk(pix, rows, cols)
	}
	// The planes as one tall image would count inner rows as border: sum
	// each plane's border.
	var sum float64
	n := 0
	for k := 0; k < c; k++ {
		b, m := borderSum(pix[k*rows*cols:(k+1)*rows*cols], rows, cols)
		sum += b
		n += m
	}
	return n > 0 && sum/float64(n) > 0.5
}

// ResizeFit resizes one plane to newRows x newCols as fit says (see
// scn.PreprocessRecord's Fit): "pad" scales the whole image to fit inside,
// keeping its aspect ratio, and centres it on zeros (black); "crop" scales
// it to cover, keeping its aspect ratio, and keeps the centre; "stretch" or
// "" is Resize. All three agree when the aspect ratios are the same. The
// scaled size is rounded to whole pixels; an odd margin leaves its extra
// row or column at the bottom or right.
func ResizeFit(pix []float32, rows, cols, newRows, newCols int, fit string) []float32 {
	switch fit {
	case "pad":
		s := math.Min(float64(newRows)/float64(rows), float64(newCols)/float64(cols))
		r := min(max(1, int(math.Round(float64(rows)*s))), newRows)
		c := min(max(1, int(math.Round(float64(cols)*s))), newCols)
		if r == newRows && c == newCols {
			return Resize(pix, rows, cols, newRows, newCols)
		}
		small := Resize(pix, rows, cols, r, c)
		out := make([]float32, newRows*newCols)
		top, left := (newRows-r)/2, (newCols-c)/2
		for y := 0; y < r; y++ {
			copy(out[(top+y)*newCols+left:], small[y*c:(y+1)*c])
		}
		return out
	case "crop":
		s := math.Max(float64(newRows)/float64(rows), float64(newCols)/float64(cols))
		r := min(max(1, int(math.Round(float64(newRows)/s))), rows)
		c := min(max(1, int(math.Round(float64(newCols)/s))), cols)
		if r == rows && c == cols {
			return Resize(pix, rows, cols, newRows, newCols)
		}
		top, left := (rows-r)/2, (cols-c)/2
		crop := make([]float32, r*c)
		for y := 0; y < r; y++ {
			copy(crop[y*c:(y+1)*c], pix[(top+y)*cols+left:])
		}
		return Resize(crop, r, c, newRows, newCols)
	}
	return Resize(pix, rows, cols, newRows, newCols)
}

// DarkInk reports whether an image looks like dark ink on a light
// background: the mean of its border pixels is above one half.
func DarkInk(pix []float32, rows, cols int) bool {
	sum, n := borderSum(pix, rows, cols)
	return n > 0 && sum/float64(n) > 0.5
}

// borderSum returns the sum of the border pixels of an image and their
// number.
func borderSum(pix []float32, rows, cols int) (float64, int) {
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
	return sum, n
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

// Deskew straightens a slanted image of c planes of rows x cols: the
// classic deskewing of handwritten digits. It measures the centre of mass
// (cy, cx) and the second moments of the planes' sum, and returns the
// image sheared along its rows by alpha = cov(row, col) / var(row) about
// the centre of mass, and shifted so that the centre of mass lands on
// pixel (rows/2, cols/2) (for 28 x 28, MNIST's (14, 14)): output pixel
// (r, c) is the input sampled bilinearly at (r + cy - rows/2,
// c + cx - cols/2 + alpha (r - rows/2)), 0 outside. Every plane gets the
// same shear. An image without ink (or ink on one row) is returned as it
// is. It never changes its input.
func Deskew(pix []float32, c, rows, cols int) []float32 {
	n := rows * cols
	var mass, my, mx float64
	for r := 0; r < rows; r++ {
		for k := 0; k < c; k++ {
			for col, v := range pix[k*n+r*cols : k*n+(r+1)*cols] {
				w := float64(v)
				mass += w
				my += w * float64(r)
				mx += w * float64(col)
			}
		}
	}
	out := append([]float32(nil), pix...)
	if !(mass > 0) {
		return out
	}
	my, mx = my/mass, mx/mass
	var vyy, vxy float64
	for r := 0; r < rows; r++ {
		dy := float64(r) - my
		for k := 0; k < c; k++ {
			for col, v := range pix[k*n+r*cols : k*n+(r+1)*cols] {
				w := float64(v)
				vyy += w * dy * dy
				vxy += w * dy * (float64(col) - mx)
			}
		}
	}
	if !(vyy > 1e-12*mass) {
		return out
	}
	alpha := vxy / vyy
	oy, ox := float64(rows/2), float64(cols/2)
	for k := 0; k < c; k++ {
		plane := pix[k*n : (k+1)*n]
		for r := 0; r < rows; r++ {
			sy := float64(r) + my - oy
			shift := mx - ox + alpha*(float64(r)-oy)
			shearRow(out[k*n+r*cols:k*n+(r+1)*cols], plane, rows, cols, sy, shift)
		}
	}
	return out
}

// shearRow fills dst, one output row, with the bilinear samples of plane
// (rows x cols, 0 outside) at row sy and columns col + shift: what
// bilinear gives at each, with the two source rows and the weights found
// once for the row, since sy and the fraction of col + shift are the
// same for every column.
func shearRow(dst, plane []float32, rows, cols int, sy, shift float64) {
	y0, x0 := math.Floor(sy), math.Floor(shift)
	fy, fx := sy-y0, shift-x0
	zero := make([]float32, 0)
	row := func(r int) []float32 {
		if r < 0 || r >= rows {
			return zero
		}
		return plane[r*cols : (r+1)*cols]
	}
	top, bottom := row(int(y0)), row(int(y0)+1)
	at := func(src []float32, c int) float64 {
		if c < 0 || c >= len(src) {
			return 0
		}
		return float64(src[c])
	}
	dx := int(x0)
	for col := range dst {
		c := col + dx
		dst[col] = float32((1-fy)*((1-fx)*at(top, c)+fx*at(top, c+1)) + fy*((1-fx)*at(bottom, c)+fx*at(bottom, c+1)))
	}
}
