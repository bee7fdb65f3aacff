package scn

// Shape is the size of a data set without its pixels: what the memory of
// a fit on it depends on, and what Config.Estimate and
// Config.EstimateStream take. Package dataset gives it (dataset.Shape is
// this type): Set.Shape for a set in memory, a Stream's Shape for a set
// read shard by shard, and the Peek functions from the files' headers (or
// a derived set's manifest, or a folder's listing and first image) before
// the images are read, so that a caller can refuse work that would not fit
// in memory without first reading gigabytes. A peeked shape is that of the
// set as read, before preprocessing: dataset.Preprocess.PrepareShape gives
// what preparing it makes of it.
type Shape struct {
	N, Rows, Cols int
	Channels      int  // planes per image (1: grey)
	Labels        bool // the set has a class label per image
	Classes       int  // classes of the labels (0 without labels)
	TargetDim     int  // dimension of the regression targets (0: none)
	Origin        bool // the set records each image's origin (derived sets)
}

// Dim returns the values per image, Channels x Rows x Cols.
func (sh Shape) Dim() int { return max(sh.Channels, 1) * sh.Rows * sh.Cols }

// Bytes returns the bytes a set of this shape holds in memory: its pixels
// (float32), labels, targets and origins (8 bytes each).
func (sh Shape) Bytes() int64 {
	n := int64(sh.N)
	b := n*int64(sh.Dim())*4 + n*int64(sh.TargetDim)*8
	if sh.Labels {
		b += n * 8
	}
	if sh.Origin {
		b += n * 8
	}
	return b
}

// Outputs returns the outputs of a model fitted on the set: the target
// dimension for regression, else the classes (at least 1).
func (sh Shape) Outputs() int {
	if sh.TargetDim > 0 {
		return sh.TargetDim
	}
	return max(sh.Classes, 1)
}
