package dataset

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/scn2d/scn"
)

// CSVSource is a CSV file of labelled images (ReadCSV's format and rules)
// read as a stream of shards (scn.Source), Chunk lines at a time. ReadCSV
// decides from all the pixels whether they are 0-255 values (any above
// 1) or already in [0, 1], and the classes from the largest label, so
// OpenCSVSource reads the whole file once, line by line, to learn them
// (and to check every line); each pass reads it again. The shards of a
// pass put together are the set ReadCSV gives, prepared with Prep.
type CSVSource struct {
	Prep Preprocess
	// Chunk is the images per shard (DefaultChunk if 0).
	Chunk            int
	path             string
	open             func() (io.ReadCloser, error)
	rowsArg, colsArg int
	n, rows, cols    int
	scale            float64
	classes          []string
	inverted         atomic.Int64
}

// OpenCSVSource reads a CSV file of images once (see CSVSource) and
// returns its stream; rows and cols are ReadCSV's.
func OpenCSVSource(path string, rows, cols int, p Preprocess) (*CSVSource, error) {
	return openCSVSource(path, func() (io.ReadCloser, error) { return openFile(path) }, rows, cols, p)
}

func openCSVSource(path string, open func() (io.ReadCloser, error), rows, cols int, p Preprocess) (*CSVSource, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	s := &CSVSource{Prep: p, path: path, open: open, rowsArg: rows, colsArg: cols, scale: 1}
	f, err := open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := newCSVRecords(f, rows, cols)
	most := 0
	var raw []float64
	for {
		var label int
		raw, label, err = c.next(raw[:0])
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("dataset: %s: %w", path, err)
		}
		s.scale = csvScale(raw, s.scale)
		most = max(most, label)
		s.n++
	}
	if s.n == 0 {
		return nil, fmt.Errorf("dataset: %s: %w: no images", path, ErrFormat)
	}
	s.rows, s.cols = c.shape.Rows, c.shape.Cols
	s.classes = digitClasses(max(most+1, 2))
	return s, nil
}

// Len returns the number of images.
func (s *CSVSource) Len() int { return s.n }

// Shape returns the set's shape after preprocessing.
func (s *CSVSource) Shape() Shape {
	rows, cols := s.Prep.outShape(s.rows, s.cols)
	return labelledShape(s.n, rows, cols, s.Chans(), s.classes)
}

// Chans returns the planes of the images after preprocessing (grey, unless
// Prep asks for more).
func (s *CSVSource) Chans() int { return s.Prep.wantChannels(1) }

// Classes returns the class names "0", "1", ... up to the largest label.
func (s *CSVSource) Classes() []string { return s.classes }

// Inverted returns the images preprocessing inverted in the last pass.
func (s *CSVSource) Inverted() int { return int(s.inverted.Load()) }

// Describe returns the Source of the set ReadCSV gives, prepared as in the
// last pass.
func (s *CSVSource) Describe() string { return s.path + s.Prep.describe(s.Inverted(), s.n) }

// StoredBytes returns the bytes ReadCSV holds per image (float64 values).
func (s *CSVSource) StoredBytes() int64 { return 8 * int64(s.rows) * int64(s.cols) }

// Shards reads the file again and calls f with each chunk of lines'
// images, prepared, with their labels (scn.Source).
func (s *CSVSource) Shards(ctx context.Context, f func(scn.Shard) error) error {
	r, err := s.open()
	if err != nil {
		return err
	}
	defer r.Close()
	chunk, d := chunkOf(s.Chunk), s.rows*s.cols
	if err := checkMemory(int64(min(chunk, s.n))*int64(d)*(8+4*3), fmt.Sprintf("a shard of %d images of %d x %d", min(chunk, s.n), s.rows, s.cols)); err != nil {
		return fmt.Errorf("dataset: %s: %w", s.path, err)
	}
	s.inverted.Store(0)
	c := newCSVRecords(r, s.rowsArg, s.colsArg)
	set := &Set{Rows: s.rows, Cols: s.cols, Classes: s.classes}
	var raw []float64
	changed := fmt.Errorf("dataset: %s: %w: the file changed while it was read", s.path, ErrFormat)
	for lo := 0; lo < s.n; lo += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(s.n, lo+chunk)
		raw, set.Labels = raw[:0], set.Labels[:0]
		for i := lo; i < hi; i++ {
			var label int
			raw, label, err = c.next(raw)
			switch {
			case err == io.EOF:
				return changed
			case err != nil:
				return fmt.Errorf("dataset: %s: %w", s.path, err)
			case label >= len(s.classes) || c.shape.Rows != s.rows || c.shape.Cols != s.cols:
				return changed
			}
			set.Labels = append(set.Labels, label)
		}
		set.Pix = grow32(set.Pix, len(raw))
		for i, v := range raw {
			if v > 1 && s.scale == 1 {
				return changed
			}
			set.Pix[i] = float32(v * s.scale)
		}
		if err := emitShard(set, s.Prep, &s.inverted, fmt.Sprintf("%s (images %d to %d, line %d)", s.path, lo, hi-1, c.at), f); err != nil {
			return err
		}
	}
	if _, _, err := c.next(nil); err != io.EOF {
		return changed
	}
	return nil
}
