package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/modelfile"
)

// PreprocessRecord records how the training images were prepared from the
// files they were read from, so that new images can be prepared the same
// way before prediction. A model carries it (Model.Preprocessing) and its
// file saves it in the header; the zero value means the images were used
// as read (grey levels in [0, 1]; older files, written before colour, all
// mean this).
//
// It is the record; package dataset holds the operations: dataset.Preprocess
// is this type with the image operations as methods (dataset.Preprocess(r)
// and scn.PreprocessRecord(p) convert), Preprocess.Record makes the record
// of a set it prepared, and dataset.RecordedPreprocess reads a model's.
// The name says which side a value is on: a record stored in a model here,
// the preparation it describes there.
type PreprocessRecord struct {
	// Invert is "no", "yes", or "auto": invert images with dark ink on a
	// light background, detected by a bright border (dataset.DarkInk).
	// Empty means "no", except with MNIST, where it means "auto".
	Invert string `json:"invert,omitempty"`
	// ResizeRows and ResizeCols, if positive, resize every image.
	ResizeRows int `json:"resize_rows,omitempty"`
	ResizeCols int `json:"resize_cols,omitempty"`
	// Fit says how a resize treats an image of another aspect ratio than
	// ResizeRows x ResizeCols: "pad" scales it to fit inside, keeping its
	// aspect ratio, and centres it on black (zero); "crop" scales it to
	// cover, keeping its aspect ratio, and keeps the centre; "stretch"
	// scales rows and columns each to size. Empty means "stretch" (what
	// files written before the option mean). Without a resize it is empty.
	Fit string `json:"fit,omitempty"`
	// Channels is the number of planes of the images: 3 for colour (red,
	// green, blue), 0 or 1 for grey (colours become luma, ITU-R BT.601);
	// other counts come from NumPy arrays with a channel axis. A model
	// records 0 for grey, so that older files, which have no such field,
	// mean grey. Given to dataset's readers, 0 asks for the images as they
	// are (colour when a file is colour), 1 for grey and 3 for colour.
	Channels int `json:"channels,omitempty"`
	// MNIST brings digits to the MNIST convention: bright ink on dark, the
	// ink scaled to fit a 20 x 20 box keeping its aspect ratio, placed with
	// its centre of mass at the centre of a 28 x 28 image
	// (dataset.NormalizeMNIST).
	MNIST bool `json:"mnist,omitempty"`
	// Deskew straightens slanted images (dataset.Deskew): each is sheared
	// along its rows so that its ink's row and column no longer
	// co-vary, and shifted so that its centre of mass is at the image's
	// centre. For handwriting, where slant is the largest variation within a
	// class; it costs no parameter.
	Deskew bool `json:"deskew,omitempty"`
}

// Preprocessing is the former name of PreprocessRecord.
//
// Deprecated: use PreprocessRecord; the name was one letter group away from
// dataset.Preprocess, the operations the record describes.
type Preprocessing = PreprocessRecord

// Validate reports an unknown Invert or Fit value, a half-given or negative
// resize, a Fit without a resize, or a channel count out of range
// (modelfile.Preprocessing.Validate).
func (p PreprocessRecord) Validate() error { return modelfile.Preprocessing(p).Validate() }

// legacyPreprocessKey is the metadata key under which files written before
// the preprocessing record had its own header field kept it, as JSON text.
const legacyPreprocessKey = modelfile.LegacyPreprocessKey

// legacyPreprocessing moves the JSON preprocessing record of an older file
// from meta into a PreprocessRecord (modelfile.LegacyPreprocessing); it
// returns meta without the key, a copy when it had it.
func legacyPreprocessing(meta map[string]string) (PreprocessRecord, map[string]string, error) {
	p, rest, err := modelfile.LegacyPreprocessing(meta)
	if err != nil {
		return PreprocessRecord(p), meta, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return PreprocessRecord(p), rest, nil
}
