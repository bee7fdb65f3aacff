package scn

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Preprocessing records how the training images were prepared from the
// files they were read from, so that new images can be prepared the same
// way before prediction. A model carries it (Model.Preprocessing) and its
// file saves it in the header; the zero value means the images were used
// as read (grey levels in [0, 1]). Package dataset applies it
// (dataset.Preprocess is this type with the image operations as methods).
type Preprocessing struct {
	// Invert is "no", "yes", or "auto": invert images with dark ink on a
	// light background, detected by a bright border (dataset.DarkInk).
	// Empty means "no", except with MNIST, where it means "auto".
	Invert string `json:"invert,omitempty"`
	// ResizeRows and ResizeCols, if positive, resize every image.
	ResizeRows int `json:"resize_rows,omitempty"`
	ResizeCols int `json:"resize_cols,omitempty"`
	// MNIST brings digits to the MNIST convention: bright ink on dark, the
	// ink scaled to fit a 20 x 20 box keeping its aspect ratio, placed with
	// its centre of mass at the centre of a 28 x 28 image
	// (dataset.NormalizeMNIST).
	MNIST bool `json:"mnist,omitempty"`
}

// Validate reports an unknown Invert value or a half-given or negative
// resize.
func (p Preprocessing) Validate() error {
	switch p.Invert {
	case "", "no", "yes", "auto":
	default:
		return fmt.Errorf("invert %q: want auto, yes or no", p.Invert)
	}
	if p.ResizeRows < 0 || p.ResizeCols < 0 || (p.ResizeRows > 0) != (p.ResizeCols > 0) {
		return fmt.Errorf("resize to %d x %d: give both sizes, positive", p.ResizeRows, p.ResizeCols)
	}
	return nil
}

// legacyPreprocessKey is the metadata key under which files written before
// Preprocessing had its own header field kept it, as JSON text.
const legacyPreprocessKey = "preprocess"

// legacyPreprocessing moves the JSON preprocessing record of an older file
// from meta into a Preprocessing (the JSON fields are the same); it returns
// meta without the key, a copy when it had it.
func legacyPreprocessing(meta map[string]string) (Preprocessing, map[string]string, error) {
	var p Preprocessing
	raw, ok := meta[legacyPreprocessKey]
	if !ok {
		return p, meta, nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, meta, fmt.Errorf("%w: unreadable preprocessing record %q in the metadata: %v", ErrFormat, raw, err)
	}
	if err := p.Validate(); err != nil {
		return p, meta, fmt.Errorf("%w: preprocessing record %q in the metadata: %v", ErrFormat, raw, err)
	}
	rest := make(map[string]string, len(meta)-1)
	for k, v := range meta {
		if k != legacyPreprocessKey {
			rest[k] = v
		}
	}
	if len(rest) == 0 {
		rest = nil
	}
	return p, rest, nil
}
