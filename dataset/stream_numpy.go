package dataset

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/npy"
)

// NumPySource is a NumPy image array with its class labels, a .npy file of
// images with a .npy file of labels or two arrays of a .npz file, read as
// a stream of shards (scn.Source): the images Chunk at a time
// (npy.RowReader: positional reads of a .npy file or of a stored member,
// which the page cache serves as it would a memory map; a deflated member
// decompressed in order), the labels whole (they are small). Element
// types, shapes and channel layouts are those of ReadNPY and ReadNPZ, and
// so are the values: the shards of a pass put together are the set those
// readers give, prepared with Prep.
type NumPySource struct {
	Prep Preprocess
	// Chunk is the images per shard (DefaultChunk if 0).
	Chunk int
	// The files: images (a .npy file, or the .npz file with array x),
	// labels (a .npy file; the .npz file's array y).
	images, labels, x, y string
	npz                  bool
	rowsArg, colsArg     int // the shape asked for (ReadNPY's rows, cols)
	channelsFirst        bool
	shape                []int // of the image array
	dtype                string
	row                  int64 // bytes per image in the file
	rows, cols, chans    int   // as read (before preprocessing)
	lab                  []int
	classes              []string
	inverted             atomic.Int64
}

// OpenNPYSource checks a .npy file of images and one of their labels
// (ReadNPY's arguments; no regression targets) and returns their stream.
func OpenNPYSource(images, labels string, rows, cols int, channelsFirst bool, p Preprocess) (*NumPySource, error) {
	s := &NumPySource{Prep: p, images: images, labels: labels, rowsArg: rows, colsArg: cols, channelsFirst: channelsFirst}
	if err := s.init(); err != nil {
		return nil, err
	}
	return s, nil
}

// OpenNPZSource checks the arrays xName (images) and yName (labels) of a
// .npz file (ReadNPZ's arguments; no regression targets) and returns
// their stream.
func OpenNPZSource(path, xName, yName string, rows, cols int, channelsFirst bool, p Preprocess) (*NumPySource, error) {
	s := &NumPySource{Prep: p, images: path, x: xName, y: yName, npz: true, rowsArg: rows, colsArg: cols, channelsFirst: channelsFirst}
	if err := s.init(); err != nil {
		return nil, err
	}
	return s, nil
}

// name names the image array, for shards and errors.
func (s *NumPySource) name() string {
	if s.npz {
		return fmt.Sprintf("%s, array %q", s.images, s.x)
	}
	return s.images
}

// open opens the image array to read by rows; done closes what it opened.
// With labels, it also reads the labels.
func (s *NumPySource) open(labels bool) (r *npy.RowReader, y *npy.Array, done func(), err error) {
	if !s.npz {
		if r, err = npy.OpenRows(s.images); err != nil {
			return nil, nil, nil, fmt.Errorf("dataset: %w", err)
		}
		if labels {
			if y, err = npy.ReadFile(s.labels); err != nil {
				r.Close()
				return nil, nil, nil, fmt.Errorf("dataset: %w", err)
			}
		}
		return r, y, func() { r.Close() }, nil
	}
	z, err := npy.OpenNPZ(s.images)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("dataset: %w", err)
	}
	if r, err = z.Rows(s.x); err == nil && labels {
		if y, err = z.Array(s.y); err != nil {
			r.Close()
		}
	}
	if err != nil {
		z.Close()
		return nil, nil, nil, fmt.Errorf("dataset: %w", err)
	}
	return r, y, func() { r.Close(); z.Close() }, nil
}

// init reads the header of the images, their first image and the labels.
func (s *NumPySource) init() error {
	if err := s.Prep.Validate(); err != nil {
		return err
	}
	r, y, done, err := s.open(true)
	if err != nil {
		return err
	}
	defer done()
	s.shape, s.dtype, s.row = r.Shape, r.DType(), r.RowBytes()
	if r.Len() < 1 {
		return fmt.Errorf("dataset: %s: %w: images of shape %v: no images", s.name(), ErrFormat, r.Shape)
	}
	if err := checkMemory(s.row*5, "one image of "+s.name()); err != nil {
		return fmt.Errorf("dataset: %s: %w", s.name(), err)
	}
	first, err := r.Read(0, 1)
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	one, err := numpyImages(first, s.rowsArg, s.colsArg, s.channelsFirst)
	if err != nil {
		return fmt.Errorf("dataset: %s: %w", s.name(), err)
	}
	s.rows, s.cols, s.chans = one.Rows, one.Cols, one.Chans()
	set := &Set{}
	if err = checkYShape(y, r.Len(), false); err == nil {
		err = set.numpyLabels(y)
	}
	if err != nil {
		if s.npz {
			return fmt.Errorf("dataset: %s, arrays %q and %q: %w", s.images, s.x, s.y, err)
		}
		return fmt.Errorf("dataset: %s with %s: %w", s.images, s.labels, err)
	}
	s.lab, s.classes = set.Labels, set.Classes
	return nil
}

// Len returns the number of images.
func (s *NumPySource) Len() int { return len(s.lab) }

// Shape returns the set's shape after preprocessing.
func (s *NumPySource) Shape() Shape {
	rows, cols := s.Prep.outShape(s.rows, s.cols)
	return labelledShape(len(s.lab), rows, cols, s.Chans(), s.classes)
}

// Chans returns the planes of the images after preprocessing.
func (s *NumPySource) Chans() int { return s.Prep.wantChannels(s.chans) }

// Classes returns the class names.
func (s *NumPySource) Classes() []string { return s.classes }

// Inverted returns the images preprocessing inverted in the last pass.
func (s *NumPySource) Inverted() int { return int(s.inverted.Load()) }

// Describe returns the Source of the set ReadNPY or ReadNPZ gives,
// prepared as in the last pass.
func (s *NumPySource) Describe() string {
	src := s.images
	if s.npz {
		src = fmt.Sprintf("%s[%s]", s.images, s.x)
	}
	return src + s.Prep.describe(s.Inverted(), s.Len())
}

// StoredBytes returns the bytes of one image in the file.
func (s *NumPySource) StoredBytes() int64 { return s.row }

// Shards reads the images in order and calls f with each chunk, prepared,
// with its labels (scn.Source).
func (s *NumPySource) Shards(ctx context.Context, f func(scn.Shard) error) error {
	r, _, done, err := s.open(false)
	if err != nil {
		return err
	}
	defer done()
	name := s.name()
	if !slices.Equal(r.Shape, s.shape) || r.DType() != s.dtype {
		return fmt.Errorf("dataset: %s: %w: the file changed while it was read (shape %v of %s, was %v of %s)", name, ErrFormat, r.Shape, r.DType(), s.shape, s.dtype)
	}
	n, chunk := s.Len(), chunkOf(s.Chunk)
	d := int64(s.rows * s.cols * s.chans)
	if err := checkMemory(int64(min(chunk, n))*(s.row+12*d), fmt.Sprintf("a shard of %d images of %d x %d x %d", min(chunk, n), s.chans, s.rows, s.cols)); err != nil {
		return fmt.Errorf("dataset: %s: %w", name, err)
	}
	s.inverted.Store(0)
	for lo := 0; lo < n; lo += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(n, lo+chunk)
		a, err := r.Read(lo, hi-lo)
		if err != nil {
			return fmt.Errorf("dataset: %w", err)
		}
		set, err := numpyImages(a, s.rowsArg, s.colsArg, s.channelsFirst)
		if err != nil {
			return fmt.Errorf("dataset: %s: %w", rangeName(name, lo, hi), err)
		}
		set.Labels, set.Classes = s.lab[lo:hi], s.classes
		if err := emitShard(set, s.Prep, &s.inverted, rangeName(name, lo, hi), f); err != nil {
			return err
		}
	}
	return nil
}
