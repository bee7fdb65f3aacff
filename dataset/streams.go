package dataset

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/scn2d/scn"
)

// Stream is a labelled image set read shard by shard (scn.Source) instead
// of all at once, with what is known of it before it is read: IDXSource,
// NumPySource, FolderSource and CSVSource. The shards of one pass put
// together are the set the source's whole-file reader gives, prepared
// with the source's Preprocess (the same float32 values, labels and
// classes), so that a streamed fit is the fit in memory.
type Stream interface {
	scn.Source
	// Len returns the number of images.
	Len() int
	// Shape returns the set's shape after preprocessing: Len images of
	// rows x cols x Chans, labelled in Classes (Set.Shape's type; before
	// this round it returned rows and cols alone: Shape().Rows and
	// Shape().Cols).
	Shape() Shape
	// Chans returns the planes of the images after preprocessing (1:
	// grey, 3: colour).
	Chans() int
	// Classes returns the class names.
	Classes() []string
	// Inverted returns the images preprocessing inverted in the last
	// complete pass.
	Inverted() int
	// Describe says where the images come from and what preprocessing
	// did to them in the last pass: the Source field of the set the
	// whole-file reader gives.
	Describe() string
	// StoredBytes returns the bytes one image takes as the whole-file
	// reader holds it before it becomes float32 pixels (for estimates of
	// the memory a whole read takes).
	StoredBytes() int64
}

var (
	_ Stream = (*IDXSource)(nil)
	_ Stream = (*NumPySource)(nil)
	_ Stream = (*FolderSource)(nil)
	_ Stream = (*CSVSource)(nil)
)

// Chans returns 1, or the planes the preprocessing makes of grey images.
func (s *IDXSource) Chans() int { return s.Prep.wantChannels(1) }

// Describe returns the files, and what preprocessing did in the last pass.
func (s *IDXSource) Describe() string {
	return strings.Join(s.Images, ", ") + s.Prep.describe(s.Inverted(), s.Len())
}

// StoredBytes returns the bytes of one image in the files.
func (s *IDXSource) StoredBytes() int64 { return int64(s.rows) * int64(s.cols) }

// chunkOf returns the images per shard: chunk, or DefaultChunk if 0.
func chunkOf(chunk int) int {
	if chunk <= 0 {
		return DefaultChunk
	}
	return chunk
}

// KeepsImages reports whether p leaves the images of set as they are (so
// that the set need not be copied).
func (p Preprocess) KeepsImages(set *Set) bool {
	return p.Identity() && (p.Channels == 0 || p.Channels == set.Chans())
}

// emitShard prepares a chunk of raw images with p (unless p leaves them
// as they are, as the command line's reading does), adds the images it
// inverted to inv, and hands the chunk to f as the shard called name.
func emitShard(set *Set, p Preprocess, inv *atomic.Int64, name string, f func(scn.Shard) error) error {
	shard := set
	if !p.KeepsImages(set) {
		var err error
		if shard, err = Prepare(set, p); err != nil {
			return fmt.Errorf("dataset: %s: %w", name, err)
		}
		inv.Add(int64(shard.Inverted))
	}
	pr, err := shard.Problem()
	if err != nil {
		return fmt.Errorf("dataset: %s: %w", name, err)
	}
	return f(scn.Shard{Name: name, Problem: pr})
}

// rangeName names images lo to hi-1 of a file, for shards and errors.
func rangeName(file string, lo, hi int) string {
	return fmt.Sprintf("%s (images %d to %d)", file, lo, hi-1)
}
