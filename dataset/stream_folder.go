package dataset

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/scn2d/scn"
)

// FolderSource is a folder of class subfolders of images (ReadFolder's
// layout and rules) read as a stream of shards (scn.Source): the files are
// listed once (classes and count from the names), and each pass decodes
// Chunk images per shard, prepared as ReadFolder prepares them (planes,
// inversion, the MNIST convention, --resize and --fit), so that the shards
// of a pass put together are the set ReadFolder gives. An image that does
// not come out the size of the first stops the pass with an error naming
// its file.
//
// Colour: with Prep.Channels 0 ReadFolder makes the whole set colour when
// any image is colour, which only decoding tells. Unless the first image
// is colour, Resolve (run by the first pass, or called before) decodes
// the images in order until one is colour: all of them, once, for a grey
// folder. Asking for grey (Channels 1) or colour (3) needs no such scan.
type FolderSource struct {
	Prep Preprocess
	// Chunk is the images per shard (DefaultChunk if 0).
	Chunk    int
	root     string
	fsys     fs.FS
	show     func(string) string
	files    []string // paths in fsys, in the order of the set
	lab      []int
	classes  []string
	rows     int // the first image's shape, prepared
	cols     int
	once     sync.Once
	err      error // of Resolve
	fc       int   // the first colour image (len(files): none), once resolved
	chans    int   // the planes of the set, once resolved (0: not yet)
	inverted atomic.Int64
}

// OpenFolderSource lists the class folders of root and their images and
// decodes the first image; the errors are ReadFolder's.
func OpenFolderSource(root string, p Preprocess) (*FolderSource, error) {
	s, err := openFolderSource(os.DirFS(root), ".", p, func(name string) string { return filepath.Join(root, filepath.FromSlash(name)) })
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	s.root = root
	return s, nil
}

// OpenFolderSourceFS is OpenFolderSource on a file system, below the folder
// dir (ReadFolderFS).
func OpenFolderSourceFS(fsys fs.FS, dir string, p Preprocess) (*FolderSource, error) {
	s, err := openFolderSource(fsys, dir, p, func(name string) string { return name })
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	s.root = dir
	return s, nil
}

func openFolderSource(fsys fs.FS, dir string, p Preprocess, show func(string) string) (*FolderSource, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	classes, total, err := listFolder(fsys, dir, show)
	if err != nil {
		return nil, err
	}
	s := &FolderSource{Prep: p, fsys: fsys, show: show}
	s.files, s.lab = make([]string, 0, total), make([]int, 0, total)
	for label, c := range classes {
		s.classes = append(s.classes, c.name)
		for _, name := range c.images {
			s.files = append(s.files, path.Join(c.dir, name))
			s.lab = append(s.lab, label)
		}
	}
	img, colour, err := s.image(0, 0)
	if err != nil {
		return nil, err
	}
	s.rows, s.cols = img.Rows, img.Cols
	s.inverted.Store(0) // counted by the passes
	switch want := p.decodeChannels(); {
	case want != 0:
		s.once.Do(func() { s.fc, s.chans = len(s.files), want })
	case colour:
		s.once.Do(func() { s.fc, s.chans = 0, 3 })
	}
	return s, nil
}

// prefetcher is a file system whose files are read faster a batch at a
// time (a tar archive: tarFiles): FolderSource asks for a shard's files
// (with those of the shards after it, in order, which it may keep) before
// it opens them one by one, and says when a pass is done.
type prefetcher interface {
	prefetch(names, ahead []string) error
	done()
}

// image decodes image i and prepares it as ReadFolder does in a set whose
// first colour image is fc; it also says whether the file is colour.
func (s *FolderSource) image(i, fc int) (Picture, bool, error) {
	name := s.files[i]
	f, err := s.fsys.Open(name)
	if err != nil {
		return Picture{}, false, fmt.Errorf("%s: %w", s.show(name), unwrapPath(err))
	}
	defer f.Close()
	raw, err := decodeRaw(f)
	if err != nil {
		return Picture{}, false, fmt.Errorf("%s: %w", s.show(name), err)
	}
	p := s.Prep
	want := p.decodeChannels()
	if want == 0 && i > fc {
		want = 3 // the set is colour from image fc on (addImage)
	}
	pic := picture(raw, want)
	pix, c, err := convertChannels(pic.Pix, pic.Channels, p.wantChannels(pic.Channels), pic.Rows*pic.Cols)
	if err != nil {
		return Picture{}, false, fmt.Errorf("%s: %w", s.show(name), err)
	}
	colour := pic.Channels == 3 && want == 0
	pix, rows, cols, inv := p.apply(pix, c, pic.Rows, pic.Cols)
	if inv {
		s.inverted.Add(1)
	}
	return Picture{Pix: pix, Channels: c, Rows: rows, Cols: cols}, colour, nil
}

// Resolve decides the planes of the images (see FolderSource): with
// Prep.Channels 0 and a grey first image it decodes the images until one
// is colour. The first pass calls it; it runs once.
func (s *FolderSource) Resolve(ctx context.Context) error {
	s.once.Do(func() {
		s.fc, s.chans = len(s.files), 1
		pf, _ := s.fsys.(prefetcher)
		if pf != nil {
			defer pf.done()
		}
		chunk := chunkOf(s.Chunk)
		for i, name := range s.files {
			if s.err = ctx.Err(); s.err != nil {
				return
			}
			if pf != nil && i%chunk == 0 {
				if err := pf.prefetch(s.files[i:min(len(s.files), i+chunk)], s.files[min(len(s.files), i+chunk):]); err != nil {
					s.err = fmt.Errorf("dataset: %w", err)
					return
				}
			}
			colour, err := s.colour(name)
			if err != nil {
				s.err = err
				return
			}
			if colour {
				s.fc, s.chans = i, 3
				return
			}
		}
	})
	return s.err
}

// colour reports whether the image file is colour.
func (s *FolderSource) colour(name string) (bool, error) {
	f, err := s.fsys.Open(name)
	if err != nil {
		return false, fmt.Errorf("dataset: %s: %w", s.show(name), unwrapPath(err))
	}
	defer f.Close()
	raw, err := decodeRaw(f)
	if err != nil {
		return false, fmt.Errorf("dataset: %s: %w", s.show(name), err)
	}
	return raw.colour(), nil
}

// Len returns the number of images.
func (s *FolderSource) Len() int { return len(s.files) }

// Shape returns the set's shape after preprocessing (the first image's
// size; the planes are Chans', an upper bound until Resolve).
func (s *FolderSource) Shape() Shape {
	return labelledShape(len(s.files), s.rows, s.cols, s.Chans(), s.classes)
}

// Chans returns the planes of the images: 3 as long as Resolve has not
// decided them (an upper bound).
func (s *FolderSource) Chans() int {
	if s.chans == 0 || s.err != nil {
		return 3
	}
	return s.chans
}

// Resolved reports whether the planes of the images are known (Chans is
// exact) without Resolve's scan.
func (s *FolderSource) Resolved() bool { return s.chans != 0 }

// Classes returns the class names: the subfolders' names, sorted.
func (s *FolderSource) Classes() []string { return s.classes }

// Inverted returns the images preprocessing inverted in the last pass.
func (s *FolderSource) Inverted() int { return int(s.inverted.Load()) }

// Describe returns the Source of the set ReadFolder gives.
func (s *FolderSource) Describe() string {
	return s.root + s.Prep.describe(s.Inverted(), s.Len())
}

// StoredBytes returns 0: ReadFolder decodes one file at a time.
func (s *FolderSource) StoredBytes() int64 { return 0 }

// Shards decodes the images in order and calls f with each chunk of them,
// prepared, with its labels (scn.Source).
func (s *FolderSource) Shards(ctx context.Context, f func(scn.Shard) error) error {
	if err := s.Resolve(ctx); err != nil {
		return err
	}
	n, chunk, d := s.Len(), chunkOf(s.Chunk), s.chans*s.rows*s.cols
	if err := checkMemory(int64(min(chunk, n))*int64(d)*4*2, fmt.Sprintf("a shard of %d images of %d x %d x %d", min(chunk, n), s.chans, s.rows, s.cols)); err != nil {
		return fmt.Errorf("dataset: %s: %w", s.root, err)
	}
	s.inverted.Store(0)
	set := &Set{Rows: s.rows, Cols: s.cols, Classes: s.classes}
	if s.chans > 1 {
		set.Channels = s.chans
	}
	pf, _ := s.fsys.(prefetcher)
	if pf != nil {
		defer pf.done()
	}
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		set.Pix = set.Pix[:0]
		if pf != nil {
			if err := pf.prefetch(s.files[lo:hi], s.files[hi:]); err != nil {
				return fmt.Errorf("dataset: %w", err)
			}
		}
		for i := lo; i < hi; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			pic, _, err := s.image(i, s.fc)
			if err != nil {
				return fmt.Errorf("dataset: %w", err)
			}
			if pic.Rows != s.rows || pic.Cols != s.cols {
				return fmt.Errorf("dataset: %s: %w: image is %d x %d (rows x columns), earlier images are %d x %d (resize them all to one size: --resize RxC, with --fit pad, crop or stretch)", s.show(s.files[i]), ErrMixedSizes, pic.Rows, pic.Cols, s.rows, s.cols)
			}
			copies := 1
			if pic.Channels == 1 {
				copies = s.chans // a grey image before the first colour one: equal planes (toColour)
			}
			for range copies {
				set.Pix = append(set.Pix, pic.Pix...)
			}
		}
		set.Labels = s.lab[lo:hi]
		if err := emitShard(set, Preprocess{}, &s.inverted, rangeName(s.root, lo, hi), f); err != nil {
			return err
		}
	}
	return nil
}
