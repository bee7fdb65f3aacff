package serve

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/scn2d/scn/dataset"
)

// readBody reads the request body within the limit.
func (s *Server) readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength > s.opts.MaxBodyBytes {
		return nil, errorf(http.StatusRequestEntityTooLarge, "body of %d bytes: the limit is %d", r.ContentLength, s.opts.MaxBodyBytes)
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength))
	}
	_, err := buf.ReadFrom(io.LimitReader(r.Body, s.opts.MaxBodyBytes+1))
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "reading the body: %v", err)
	}
	if int64(buf.Len()) > s.opts.MaxBodyBytes {
		return nil, errorf(http.StatusRequestEntityTooLarge, "body over the limit of %d bytes", s.opts.MaxBodyBytes)
	}
	if buf.Len() == 0 {
		return nil, errorf(http.StatusBadRequest, "empty body: send an image file or a JSON batch")
	}
	return buf.Bytes(), nil
}

// isJSON tells a JSON batch from an image file: by the content type
// (application/json, or image/...), else by a leading '{' (no image format
// starts with one).
func isJSON(r *http.Request, body []byte) bool {
	ct := r.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/json"):
		return true
	case strings.HasPrefix(ct, "image/"):
		return false
	}
	t := bytes.TrimLeft(body, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// fileImage decodes an image file and prepares it for the model.
func (s *Server) fileImage(body []byte, md *model) ([]float32, error) {
	rows, cols, err := dataset.ImageSize(bytes.NewReader(body))
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "not an image of a known format (PNG, JPEG, GIF, BMP, PGM/PPM): %v", err)
	}
	if rows < 1 || cols < 1 {
		return nil, errorf(http.StatusBadRequest, "image of %d x %d", rows, cols)
	}
	if rows > s.opts.MaxPixels || cols > s.opts.MaxPixels || rows*cols > s.opts.MaxPixels {
		return nil, errorf(http.StatusRequestEntityTooLarge, "image of %d x %d: the limit is %d pixels", rows, cols, s.opts.MaxPixels)
	}
	// The model's planes (its recorded preprocessing): a colour image
	// given to a grey model becomes grey, a grey one given to a colour
	// model three equal planes, as scn predict does.
	s.decode <- struct{}{}
	pic, err := dataset.DecodePicture(bytes.NewReader(body), "image", decodePlanes(md.prep))
	if err == nil {
		if pic, err = md.prep.ApplyPicture(pic); err != nil {
			err = fmt.Errorf("%w (model %s takes %d planes)", err, md.name, md.prep.Channels)
		}
	}
	<-s.decode
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "bad image: %v", err)
	}
	if pic.Rows != md.m.Rows || pic.Cols != md.m.Cols {
		return nil, errorf(http.StatusUnprocessableEntity, "image is %d x %d after the model's preprocessing (%s); model %s takes %d x %d", pic.Rows, pic.Cols, describePrep(md.prep), md.name, md.m.Rows, md.m.Cols)
	}
	if c := max(pic.Channels, 1); c != md.m.Chans() {
		// A model file whose preprocessing record does not name its
		// channels (one written by the library without a record).
		return nil, errorf(http.StatusUnprocessableEntity, "image has %d channel(s) after the model's preprocessing (%s); model %s takes %d channels", c, describePrep(md.prep), md.name, md.m.Chans())
	}
	return pic.Pix, nil
}

// decodePlanes returns the planes to decode an image file into for a
// model's preprocessing: grey directly when the model is grey (the values
// scn predict gives), else as the file is (ApplyPicture converts).
func decodePlanes(p dataset.Preprocess) int {
	if p.Channels <= 1 || p.MNIST {
		return 1
	}
	return 0
}

func describePrep(p dataset.Preprocess) string {
	var parts []string
	if p.Invert != "" && p.Invert != "no" {
		parts = append(parts, "invert "+p.Invert)
	}
	if p.MNIST {
		parts = append(parts, "MNIST convention")
	}
	if p.ResizeRows > 0 {
		parts = append(parts, fmt.Sprintf("resize to %d x %d", p.ResizeRows, p.ResizeCols))
		if p.Fit != "" && p.Fit != "stretch" {
			parts[len(parts)-1] += ", " + p.Fit
		}
	}
	if p.Channels > 1 {
		parts = append(parts, fmt.Sprintf("%d planes", p.Channels))
	}
	if len(parts) == 0 {
		return "none: images are used as they are"
	}
	return strings.Join(parts, ", ")
}

// batchImages decodes a JSON batch and prepares its images for the model;
// it returns them one after the other, their number, and the batch's
// "top" (-1 if not given).
func (s *Server) batchImages(body []byte, md *model) ([]float32, int, int, error) {
	b, err := parseBatch(body)
	if err != nil {
		return nil, 0, 0, errorf(http.StatusBadRequest, "%v", err)
	}
	return s.checkedBatch(b, md)
}

// checkedBatch checks a decoded batch's images and prepares them for the
// model, as batchImages.
func (s *Server) checkedBatch(b *batch, md *model) ([]float32, int, int, error) {
	n := len(b.shapes)
	if n == 0 {
		return nil, 0, 0, errorf(http.StatusBadRequest, `"images" is empty`)
	}
	if n > s.opts.MaxBatchImages {
		return nil, 0, 0, errorf(http.StatusRequestEntityTooLarge, "%d images in one batch: the limit is %d", n, s.opts.MaxBatchImages)
	}
	m := md.m
	d := m.Dim()
	if c := m.Chans(); c > 1 {
		return colourBatch(b, md, d)
	}
	for i, v := range b.pix {
		if !(v >= 0 && v <= 1) {
			img := sort.Search(n, func(k int) bool { return b.shapes[k].off > i }) - 1
			return nil, 0, 0, errorf(http.StatusUnprocessableEntity, "image %d: value %g: want grey levels in [0, 1] (divide 8-bit values by 255)", img, v)
		}
	}
	direct := b.prepared || md.plain // the values go to the network as they are
	for i, sh := range b.shapes {
		if sh.rows == 0 { // flat: the model's shape
			if sh.cols != d {
				return nil, 0, 0, errorf(http.StatusUnprocessableEntity, "image %d: %d values; model %s takes %d x %d = %d (or send rows of values)", i, sh.cols, md.name, m.Rows, m.Cols, d)
			}
			b.shapes[i].rows, b.shapes[i].cols = m.Rows, m.Cols
		} else if direct && (sh.rows != m.Rows || sh.cols != m.Cols) {
			why := "the model records no preprocessing"
			if b.prepared {
				why = `"prepared": true`
			}
			return nil, 0, 0, errorf(http.StatusUnprocessableEntity, "image %d is %d x %d; model %s takes %d x %d (%s)", i, sh.rows, sh.cols, md.name, m.Rows, m.Cols, why)
		}
		if sh.rows*sh.cols > s.opts.MaxPixels {
			return nil, 0, 0, errorf(http.StatusRequestEntityTooLarge, "image %d of %d x %d: the limit is %d pixels", i, sh.rows, sh.cols, s.opts.MaxPixels)
		}
	}
	if direct {
		return b.pix, n, b.top, nil
	}
	out := make([]float32, 0, n*d)
	for i, sh := range b.shapes {
		pix, rows, cols := md.prep.Apply(b.pix[sh.off:sh.off+sh.rows*sh.cols], sh.rows, sh.cols)
		if rows != m.Rows || cols != m.Cols {
			return nil, 0, 0, errorf(http.StatusUnprocessableEntity, "image %d is %d x %d after the model's preprocessing (%s); model %s takes %d x %d", i, rows, cols, describePrep(md.prep), md.name, m.Rows, m.Cols)
		}
		out = append(out, pix...)
	}
	return out, n, b.top, nil
}

// colourBatch checks a JSON batch for a model of several channels: each
// image flat, the model's C x rows x cols values (channel planes), used as
// they are (the model's preprocessing must be none, or the batch
// "prepared"); an image sent as rows of values, or of another size, is
// refused with the shape the model takes.
func colourBatch(b *batch, md *model, d int) ([]float32, int, int, error) {
	m, n := md.m, len(b.shapes)
	for i, sh := range b.shapes {
		if sh.rows != 0 || sh.cols != d {
			got := fmt.Sprintf("%d values", sh.cols)
			if sh.rows != 0 {
				got = fmt.Sprintf("%d x %d values (1 channel)", sh.rows, sh.cols)
			}
			return nil, 0, 0, errorf(http.StatusUnprocessableEntity, "image %d: %s; model %s takes images of %d channels: %d x %d x %d = %d values, flat, channel after channel", i, got, md.name, m.Chans(), m.Chans(), m.Rows, m.Cols, d)
		}
	}
	if !b.prepared && !md.plain {
		return nil, 0, 0, errorf(http.StatusUnprocessableEntity, "model %s records preprocessing (%s), which this server applies to grey images only: send the colour values prepared (\"prepared\": true)", md.name, describePrep(md.prep))
	}
	for i, v := range b.pix {
		if !(v >= 0 && v <= 1) {
			return nil, 0, 0, errorf(http.StatusUnprocessableEntity, "image %d: value %g: want levels in [0, 1] (divide 8-bit values by 255)", i/d, v)
		}
	}
	return b.pix, n, b.top, nil
}
