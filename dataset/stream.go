package dataset

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/scn2d/scn"
)

// IDXSource is a labelled set of IDX image files (one or several, plain or
// gzip) read as a stream of shards (scn.Source) instead of all at once: the
// files are read in order, chunk images at a time, with streaming
// decompression, and each chunk is prepared (Preprocess) and handed over
// as one shard named after its file. OpenIDXSource reads every header and
// every label file first, so that a file of another image size, a label
// count that does not match, or a label outside the classes is refused
// before anything is fitted. The classes are "0", "1", ... up to the
// largest label of all files, as ReadIDX names them.
type IDXSource struct {
	Images, Labels []string
	Prep           Preprocess
	// Chunk is the images per shard (DefaultChunk if 0).
	Chunk      int
	counts     []int
	rows, cols int // as stored
	classes    []string
	inverted   atomic.Int64 // images preprocessing inverted in the last pass
}

// DefaultChunk is the images a shard of an IDXSource holds by default.
const DefaultChunk = 4096

// ExpandFiles turns a list of file names, separated by commas, each of
// which may be a glob pattern (part-*-images.gz), into the files it names,
// each pattern's matches sorted by name. A pattern that matches nothing is
// an error.
func ExpandFiles(list string) ([]string, error) {
	var out []string
	for _, pat := range strings.Split(list, ",") {
		pat = strings.TrimSpace(pat)
		if pat == "" {
			continue
		}
		if !strings.ContainsAny(pat, "*?[") {
			out = append(out, pat)
			continue
		}
		m, err := filepath.Glob(pat)
		if err != nil {
			return nil, fmt.Errorf("dataset: pattern %q: %w", pat, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("dataset: no file matches %q", pat)
		}
		sort.Strings(m)
		out = append(out, m...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("dataset: no file in %q", list)
	}
	return out, nil
}

// OpenIDXSource checks the image files and their label files (paired in
// order) and returns their stream.
func OpenIDXSource(images, labels []string, prep Preprocess) (*IDXSource, error) {
	if len(images) != len(labels) {
		return nil, fmt.Errorf("dataset: %d image files and %d label files (pair them in order)", len(images), len(labels))
	}
	if err := prep.Validate(); err != nil {
		return nil, err
	}
	s := &IDXSource{Images: images, Labels: labels, Prep: prep}
	most := 0
	for k := range images {
		n, rows, cols, err := idxImageHeader(images[k])
		if err != nil {
			return nil, err
		}
		if k == 0 {
			s.rows, s.cols = rows, cols
		} else if rows != s.rows || cols != s.cols {
			return nil, fmt.Errorf("dataset: %s: %w: images of %d x %d, those of %s are %d x %d", images[k], ErrFormat, rows, cols, images[0], s.rows, s.cols)
		}
		lab, err := readIDXFile(labels[k])
		if err != nil {
			return nil, err
		}
		if lab.kind != idxUbyte || len(lab.dims) != 1 {
			return nil, fmt.Errorf("dataset: %s: %w: labels must be unsigned bytes of one dimension", labels[k], ErrFormat)
		}
		if lab.dims[0] != n {
			return nil, fmt.Errorf("dataset: %s: %w: %d labels for the %d images of %s", labels[k], ErrFormat, lab.dims[0], n, images[k])
		}
		for _, v := range lab.data {
			most = max(most, int(v))
		}
		s.counts = append(s.counts, n)
	}
	s.classes = digitClasses(max(most+1, 2))
	return s, nil
}

// Len returns the number of images of all files.
func (s *IDXSource) Len() int {
	n := 0
	for _, c := range s.counts {
		n += c
	}
	return n
}

// Shape returns the set's shape after preprocessing.
func (s *IDXSource) Shape() Shape {
	rows, cols := s.Prep.outShape(s.rows, s.cols)
	return labelledShape(s.Len(), rows, cols, s.Chans(), s.classes)
}

// Inverted returns the images preprocessing inverted in the last complete
// pass (Shards).
func (s *IDXSource) Inverted() int { return int(s.inverted.Load()) }

// Classes returns the class names.
func (s *IDXSource) Classes() []string { return s.classes }

// idxImageHeader reads the header of an IDX image file: N x rows x cols
// unsigned bytes.
func idxImageHeader(path string) (n, rows, cols int, err error) {
	f, err := openFile(path)
	if err != nil {
		return 0, 0, 0, err
	}
	defer f.Close()
	r, err := openMaybeGzip(f)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("dataset: %s: %w: gzip: %v", path, ErrFormat, err)
	}
	dims, err := readIDXHeader(r, path)
	if err != nil {
		return 0, 0, 0, err
	}
	return dims[0], dims[1], dims[2], nil
}

// readIDXHeader reads an image file's header from r: unsigned bytes of
// three dimensions, none zero, at most maxIDXBytes of data.
func readIDXHeader(r io.Reader, path string) ([]int, error) {
	var hdr [16]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("dataset: %s: %w: truncated IDX header", path, ErrFormat)
	}
	if hdr[0] != 0 || hdr[1] != 0 || hdr[2] != idxUbyte || hdr[3] != 3 {
		return nil, fmt.Errorf("dataset: %s: %w: images must be an IDX file of unsigned bytes, N x rows x cols (magic %x)", path, ErrFormat, hdr[:4])
	}
	dims := make([]int, 3)
	total := int64(1)
	for i := range dims {
		dims[i] = int(binary.BigEndian.Uint32(hdr[4+4*i:]))
		if dims[i] == 0 {
			return nil, fmt.Errorf("dataset: %s: %w: IDX dimension %d is zero", path, ErrFormat, i)
		}
		if int64(dims[i]) > maxIDXBytes/total { // checked before multiplying: no overflow
			return nil, fmt.Errorf("dataset: %s: %w: IDX header claims more than %d bytes", path, ErrFormat, int64(maxIDXBytes))
		}
		total *= int64(dims[i])
	}
	return dims, nil
}

// Shards reads the files in order and calls f with each chunk of images,
// prepared, with its labels (scn.Source).
func (s *IDXSource) Shards(ctx context.Context, f func(scn.Shard) error) error {
	chunk := s.Chunk
	if chunk <= 0 {
		chunk = DefaultChunk
	}
	s.inverted.Store(0)
	for k := range s.Images {
		if err := s.file(ctx, k, chunk, f); err != nil {
			return err
		}
	}
	return nil
}

// file streams the k-th image file and its labels.
func (s *IDXSource) file(ctx context.Context, k, chunk int, f func(scn.Shard) error) error {
	name := s.Images[k]
	open := func(path string) (*os.File, io.Reader, error) {
		fh, err := openFile(path)
		if err != nil {
			return nil, nil, err
		}
		r, err := openMaybeGzip(fh)
		if err != nil {
			fh.Close()
			return nil, nil, fmt.Errorf("dataset: %s: %w: gzip: %v", path, ErrFormat, err)
		}
		return fh, r, nil
	}
	fi, ri, err := open(name)
	if err != nil {
		return err
	}
	defer fi.Close()
	fl, rl, err := open(s.Labels[k])
	if err != nil {
		return err
	}
	defer fl.Close()
	dims, err := readIDXHeader(ri, name)
	if err != nil {
		return err
	}
	if dims[0] != s.counts[k] || dims[1] != s.rows || dims[2] != s.cols {
		return fmt.Errorf("dataset: %s: %w: the file changed while it was read (%s, was %d x %d x %d)", name, ErrFormat, dimsText(dims), s.counts[k], s.rows, s.cols)
	}
	var lh [8]byte
	if _, err := io.ReadFull(rl, lh[:]); err != nil || int(binary.BigEndian.Uint32(lh[4:])) != dims[0] {
		return fmt.Errorf("dataset: %s: %w: the label file changed while it was read", s.Labels[k], ErrFormat)
	}
	d := s.rows * s.cols
	if err := checkMemory(int64(min(chunk, dims[0]))*int64(d)*9, fmt.Sprintf("a shard of %d images of %d x %d", min(chunk, dims[0]), s.rows, s.cols)); err != nil {
		return fmt.Errorf("dataset: %s: %w", name, err)
	}
	set := &Set{Rows: s.rows, Cols: s.cols, Classes: s.classes}
	for lo := 0; lo < dims[0]; lo += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := min(chunk, dims[0]-lo)
		// Memory grows with the bytes the files hold, not with what
		// their headers claim (readBounded).
		raw, err := readBounded(ri, int64(c*d))
		if err != nil {
			return fmt.Errorf("dataset: %s: %w: IDX truncated in images %d to %d of %d", name, ErrFormat, lo, lo+c-1, dims[0])
		}
		lab, err := readBounded(rl, int64(c))
		if err != nil {
			return fmt.Errorf("dataset: %s: %w: labels truncated in %d to %d of %d", s.Labels[k], ErrFormat, lo, lo+c-1, dims[0])
		}
		set.Rows, set.Cols = s.rows, s.cols
		set.Pix = grow32(set.Pix, c*d)
		for i, v := range raw {
			set.Pix[i] = float32(v) / 255
		}
		set.Labels = set.Labels[:0]
		for _, v := range lab {
			set.Labels = append(set.Labels, int(v))
		}
		shard := set
		if !s.Prep.Identity() {
			if shard, err = Prepare(set, s.Prep); err != nil {
				return fmt.Errorf("dataset: %s: %w", name, err)
			}
			s.inverted.Add(int64(shard.Inverted))
		}
		p, err := shard.Problem()
		if err != nil {
			return fmt.Errorf("dataset: %s: %w", name, err)
		}
		if err := f(scn.Shard{Name: fmt.Sprintf("%s (images %d to %d)", name, lo, lo+c-1), Problem: p}); err != nil {
			return err
		}
	}
	// Read to the end: trailing data is refused and gzip's checksum checked.
	var one [1]byte
	for _, r := range []struct {
		r    io.Reader
		name string
	}{{ri, name}, {rl, s.Labels[k]}} {
		switch _, err := io.ReadFull(r.r, one[:]); err {
		case io.EOF:
		case nil:
			return fmt.Errorf("dataset: %s: %w: more data than its header claims", r.name, ErrFormat)
		default:
			return fmt.Errorf("dataset: %s: %w: %v", r.name, ErrFormat, err)
		}
	}
	return nil
}

// Identity reports whether p leaves every image's pixels as they are
// (whatever its planes: see KeepsImages).
func (p Preprocess) Identity() bool {
	return (p.Invert == "" || p.Invert == "no") && !p.MNIST && !p.Deskew && p.ResizeRows == 0 && p.ResizeCols == 0
}

// grow32 returns s with length n, reusing its array when it is large enough.
func grow32(s []float32, n int) []float32 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float32, n)
}

// ReadIDXSource reads every shard of src into one set (for sets that fit
// in memory, given as several files).
func ReadIDXSource(src *IDXSource) (*Set, error) {
	sh := src.Shape()
	rows, cols := sh.Rows, sh.Cols
	need := int64(src.Len()) * int64(rows*cols) * 4
	if err := checkMemory(need, fmt.Sprintf("%d images of %d x %d", src.Len(), rows, cols)); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	out := &Set{Rows: rows, Cols: cols, Classes: src.classes, Pix: make([]float32, 0, need/4), Labels: make([]int, 0, src.Len())}
	err := src.Shards(context.Background(), func(sh scn.Shard) error {
		out.Pix = append(out.Pix, sh.X.Pix...)
		for _, c := range scn.ArgMax(sh.T, sh.M) {
			out.Labels = append(out.Labels, c)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.Source = strings.Join(src.Images, ", ")
	return out, nil
}
