package dataset

import (
	"archive/tar"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing/fstest"
)

// imageExt lists the file extensions ReadFolder reads.
var imageExt = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".bmp": true, ".pgm": true, ".ppm": true, ".pnm": true}

// ReadFolder reads root/<class>/<image> files (the convention of
// torchvision's ImageFolder): one class per subfolder, classes sorted by
// name, files sorted by name, each image prepared with p. Files whose
// names do not end in an image extension (.png, .jpg, .jpeg, .gif, .bmp,
// .pgm, .ppm, .pnm) and files and folders whose names start with a dot
// (such as macOS's ._name files) are ignored; a symbolic link to a folder
// is a class folder, and one that cannot be followed is an error. Before
// decoding all images it checks the memory they will take against the
// limit of SetMemoryLimit.
// It refuses, with an error naming the file or folder: a root without
// class subfolders, a class subfolder without images, an unreadable or
// undecodable image, and images that do not all come out the same size.
// The set's Inverted field and Source say how many images p inverted.
//
// Colour is decided per folder: with p.Channels 0, the set is colour
// (Channels 3: red, green, blue) when any of its images is colour, and
// then its grey images are three equal planes; otherwise it is grey, the
// values DecodeImage gives. p.Channels 1 reads every image as grey (colours
// become luma), 3 every image as colour.
func ReadFolder(root string, p Preprocess) (*Set, error) {
	s, err := readFolder(os.DirFS(root), ".", p, func(name string) string { return filepath.Join(root, filepath.FromSlash(name)) })
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	s.Source = root + p.describe(s.Inverted, s.Len())
	return s, nil
}

// ReadFolderFS is ReadFolder on a file system, below the folder dir; errors
// name files by their path in fsys.
func ReadFolderFS(fsys fs.FS, dir string, p Preprocess) (*Set, error) {
	s, err := readFolder(fsys, dir, p, func(name string) string { return name })
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	s.Source = dir + p.describe(s.Inverted, s.Len())
	return s, nil
}

// readFolder implements ReadFolder; show turns a path in fsys into the
// name errors give.
func readFolder(fsys fs.FS, dir string, p Preprocess, show func(string) string) (*Set, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	classes, total, err := listFolder(fsys, dir, show)
	if err != nil {
		return nil, err
	}
	s := &Set{}
	for label, c := range classes {
		s.Classes = append(s.Classes, c.name)
		for _, name := range c.images {
			if err := s.addImage(fsys, path.Join(c.dir, name), label, p, show); err != nil {
				return nil, err
			}
			if len(s.Labels) == 1 {
				// Every image comes out the size of the first (and its
				// planes, unless a later one is colour: see addImage).
				need := int64(total) * int64(s.Dim()) * 4
				if err := checkMemory(need, fmt.Sprintf("%d images of %d x %d x %d", total, s.Chans(), s.Rows, s.Cols)); err != nil {
					return nil, fmt.Errorf("%s: %w", show(dir), err)
				}
				s.Pix = slices.Grow(s.Pix, int(need/4)-len(s.Pix))
				s.Labels = slices.Grow(s.Labels, total-1)
			}
		}
	}
	return s, nil
}

// folderClass is a class folder: its name, its path and its image files,
// sorted.
type folderClass struct {
	name, dir string
	images    []string
}

// listFolder lists the class folders below dir and their image files (see
// ReadFolder), and counts the files, so that the memory the images will
// take is known before any is decoded; show names paths in errors.
func listFolder(fsys fs.FS, dir string, show func(string) string) ([]folderClass, int, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", show(dir), unwrapPath(err))
	}
	var classes []folderClass
	total := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		sub := path.Join(dir, e.Name())
		if !e.IsDir() {
			if e.Type()&fs.ModeSymlink == 0 {
				continue
			}
			// A symbolic link to a folder is a class folder; one that
			// cannot be followed is an error, never silently dropped.
			st, err := fs.Stat(fsys, sub)
			if err != nil {
				return nil, 0, fmt.Errorf("%s: symbolic link: %w", show(sub), unwrapPath(err))
			}
			if !st.IsDir() {
				continue
			}
		}
		files, err := fs.ReadDir(fsys, sub)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", show(sub), unwrapPath(err))
		}
		names := imageNames(files)
		if len(names) == 0 {
			return nil, 0, fmt.Errorf("%s: %w: class folder holds no image (%s)", show(sub), ErrFormat, extList())
		}
		classes = append(classes, folderClass{e.Name(), sub, names})
		total += len(names)
	}
	if len(classes) == 0 {
		return nil, 0, fmt.Errorf("%s: %w: no class subfolders (want root/<class>/<image>)", show(dir), ErrFormat)
	}
	return classes, total, nil
}

// unwrapPath drops the operation and path of a *fs.PathError, whose path is
// relative to the file system and which the caller names better.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// extList lists the image extensions, for messages.
func extList() string {
	var e []string
	for x := range imageExt {
		e = append(e, x)
	}
	sort.Strings(e)
	return strings.Join(e, " ")
}

// imageNames returns the sorted names of the image files among files.
func imageNames(files []fs.DirEntry) []string {
	var names []string
	for _, f := range files {
		// Hidden files (macOS keeps ._name beside each file it copies) are
		// skipped like hidden folders.
		if !f.IsDir() && !strings.HasPrefix(f.Name(), ".") && imageExt[strings.ToLower(path.Ext(f.Name()))] {
			names = append(names, f.Name())
		}
	}
	sort.Strings(names)
	return names
}

// addImage decodes, prepares and appends one image file; errors name it
// by show(name). The planes are p's (Preprocess.Channels); with Channels
// 0, as the files are: the first colour image makes the set colour, and
// its grey images, those before and after, three equal planes.
func (s *Set) addImage(fsys fs.FS, name string, label int, p Preprocess, show func(string) string) error {
	f, err := fsys.Open(name)
	if err != nil {
		return fmt.Errorf("%s: %w", show(name), unwrapPath(err))
	}
	defer f.Close()
	raw, err := decodeRaw(f)
	if err != nil {
		return fmt.Errorf("%s: %w", show(name), err)
	}
	want := p.decodeChannels()
	if want == 0 && s.Channels == 3 {
		want = 3 // the set is colour already
	}
	pic := picture(raw, want)
	pix, c, err := convertChannels(pic.Pix, pic.Channels, p.wantChannels(pic.Channels), pic.Rows*pic.Cols)
	if err != nil {
		return fmt.Errorf("%s: %w", show(name), err)
	}
	if c == 3 && s.Channels == 0 && len(s.Labels) > 0 {
		if err := s.toColour(); err != nil {
			return fmt.Errorf("%s: %w", show(name), err)
		}
	}
	pix, rows, cols, inverted := p.apply(pix, c, pic.Rows, pic.Cols)
	if s.Rows == 0 {
		s.Rows, s.Cols = rows, cols
		if c > 1 {
			s.Channels = c
		}
	}
	if rows != s.Rows || cols != s.Cols {
		return fmt.Errorf("%s: %w: image is %d x %d (rows x columns), earlier images are %d x %d (resize them all to one size: --resize RxC, with --fit pad, crop or stretch)", show(name), ErrMixedSizes, rows, cols, s.Rows, s.Cols)
	}
	if inverted {
		s.Inverted++
	}
	s.Pix = append(s.Pix, pix...)
	s.Labels = append(s.Labels, label)
	return nil
}

// toColour makes the grey images of s three equal planes each, after
// checking the memory the set will take (its capacity, grown for every
// image to come, times three).
func (s *Set) toColour() error {
	n := s.Rows * s.Cols
	if err := checkMemory(int64(cap(s.Pix))*3*4, fmt.Sprintf("%d colour images of 3 x %d x %d", cap(s.Pix)/max(n, 1), s.Rows, s.Cols)); err != nil {
		return err
	}
	out := make([]float32, 0, 3*cap(s.Pix))
	for i := 0; i < len(s.Pix)/n; i++ {
		img := s.Pix[i*n : (i+1)*n]
		out = append(append(append(out, img...), img...), img...)
	}
	s.Pix, s.Channels = out, 3
	return nil
}

// ReadFolderTarGz reads class subfolders of images below dir inside a tar
// archive, gzip-compressed or not (detected by content), without unpacking
// it to disk. Errors name the archive and the file in it. The images come
// in ReadFolder's order (classes and files sorted by name), whatever the
// archive's order; OpenFolderTarSource reads the same set shard by shard.
func ReadFolderTarGz(archive, dir string, p Preprocess) (*Set, error) {
	f, err := openFile(archive)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fsys, err := tarFS(f)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", archive, err)
	}
	s, err := readFolder(fsys, path.Clean(dir), p, func(name string) string { return archive + ":" + name })
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	s.Source = tarWhere(archive, dir) + p.describe(s.Inverted, s.Len())
	return s, nil
}

// tarWhere names the folder dir of an archive: archive:dir, or the archive
// alone for its root.
func tarWhere(archive, dir string) string {
	if path.Clean(dir) == "." {
		return archive
	}
	return archive + ":" + dir
}

// maxTarEntry bounds one file read from a tar archive.
const maxTarEntry = 64 << 20

// tarFS loads the regular files of a tar stream, gzip-compressed or not,
// into memory (what an entry's header claims is only read as far as the
// stream holds it).
func tarFS(r io.Reader) (fstest.MapFS, error) {
	m := fstest.MapFS{}
	err := walkTar(r, func(_ int, name string, h *tar.Header, tr io.Reader) error {
		var buf bytes.Buffer
		if _, err := io.CopyN(&buf, tr, h.Size); err != nil {
			return fmt.Errorf("%w: tar: %s: %v", ErrFormat, h.Name, err)
		}
		m[name] = &fstest.MapFile{Data: buf.Bytes()}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// walkTar calls visit with each file of a tar stream, gzip-compressed or
// not, that a folder of images can hold: a regular file of at most
// maxTarEntry bytes with a valid path (its name cleaned of a leading
// slash), with its ordinal among the archive's entries (of every type)
// and a reader of its bytes. It refuses an archive cut before its
// end-of-archive marker and one without such a file.
func walkTar(r io.Reader, visit func(k int, name string, h *tar.Header, tr io.Reader) error) error {
	r, err := openMaybeGzip(r)
	if err != nil {
		return fmt.Errorf("%w: gzip: %v", ErrFormat, err)
	}
	tail := &tailReader{r: r}
	tr := tar.NewReader(tail)
	files := 0
	for k := 0; ; k++ {
		h, err := tr.Next()
		if err == io.EOF {
			// Go's reader takes an archive cut at a block boundary for a
			// whole one; a whole one ends with two zero blocks.
			if !tail.zeroEnd() {
				return fmt.Errorf("%w: tar archive truncated (no end-of-archive marker after %d bytes)", ErrFormat, tail.n)
			}
			if files == 0 {
				return fmt.Errorf("%w: tar archive without files", ErrFormat)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: tar: %v", ErrFormat, err)
		}
		name, ok := tarName(h)
		if !ok {
			continue
		}
		files++
		if err := visit(k, name, h, tr); err != nil {
			return err
		}
	}
}

// tarName returns the path in the folder of a tar entry, and whether the
// entry is a file a folder of images can hold (walkTar).
func tarName(h *tar.Header) (string, bool) {
	if h.Typeflag != tar.TypeReg || h.Size > maxTarEntry {
		return "", false
	}
	name := path.Clean(strings.TrimPrefix(h.Name, "/"))
	if !fs.ValidPath(name) || name == "." {
		return "", false
	}
	return name, true
}

// tailReader remembers the last 1024 bytes read through it.
type tailReader struct {
	r    io.Reader
	n    int64
	last []byte
}

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.n += int64(n)
	t.last = append(t.last, p[:n]...)
	if len(t.last) > 4096 {
		t.last = append(t.last[:0], t.last[len(t.last)-1024:]...)
	}
	return n, err
}

// zeroEnd reports whether what was read ends with two zero blocks.
func (t *tailReader) zeroEnd() bool {
	if len(t.last) < 1024 || t.n%512 != 0 {
		return false
	}
	for _, b := range t.last[len(t.last)-1024:] {
		if b != 0 {
			return false
		}
	}
	return true
}

// ReadORL reads the ORL / AT&T face database: root/s1 ... root/s40, each
// with 1.pgm ... 10.pgm of 112 x 92. Classes are ordered by subject number.
func ReadORL(root string) (*Set, error) {
	s := &Set{Source: root + " (ORL faces, Olivetti Research Laboratory)"}
	show := func(name string) string { return filepath.Join(root, filepath.FromSlash(name)) }
	for subject := 1; ; subject++ {
		dir := fmt.Sprintf("s%d", subject)
		if _, err := os.Stat(filepath.Join(root, dir)); err != nil {
			break
		}
		s.Classes = append(s.Classes, dir)
		for i := 1; i <= 10; i++ {
			name := path.Join(dir, fmt.Sprintf("%d.pgm", i))
			if err := s.addImage(os.DirFS(root), name, subject-1, Preprocess{}, show); err != nil {
				return nil, fmt.Errorf("dataset: %w", err)
			}
		}
	}
	if len(s.Classes) == 0 {
		return nil, fmt.Errorf("dataset: %s: no subject folders s1, s2, ...", root)
	}
	return s, nil
}

// ReadCSV reads images from a CSV file: a label, then the pixels of one
// image per line; an optional header line is recognised by a non-numeric
// first field. rows x cols gives the shape (0, 0: a square). Pixels lie in
// [0, 255]; if any is above 1 they are all taken as 0-255 values and
// scaled to [0, 1]. Errors name the file and the line.
func ReadCSV(path string, rows, cols int) (*Set, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := ReadCSVFrom(f, rows, cols)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	s.Source = path
	return s, nil
}

// ReadCSVFrom is ReadCSV on a reader.
func ReadCSVFrom(r io.Reader, rows, cols int) (*Set, error) {
	c := newCSVRecords(r, rows, cols)
	s := &c.shape
	var raw []float64
	most := 0
	for {
		var label int
		var err error
		raw, label, err = c.next(raw)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		// The values read so far (float64) and the pixels they become (float32).
		if err := checkMemory(int64(cap(raw))*8+int64(len(raw))*4, fmt.Sprintf("the first %d lines", c.at)); err != nil {
			return nil, err
		}
		s.Labels = append(s.Labels, label)
		most = max(most, label)
	}
	if len(s.Labels) == 0 {
		return nil, fmt.Errorf("%w: no images", ErrFormat)
	}
	scale := csvScale(raw, 1)
	s.Pix = make([]float32, len(raw))
	for i, v := range raw {
		s.Pix[i] = float32(v * scale)
	}
	s.Classes = digitClasses(max(most+1, 2))
	return s, nil
}

// csvScale returns 1/255 if any value is above 1 or if scale already is
// (pixels are then 0-255 values), else 1.
func csvScale(raw []float64, scale float64) float64 {
	for _, v := range raw {
		if v > 1 {
			return 1.0 / 255
		}
	}
	return scale
}

// csvRecords reads the images of a CSV file one line at a time (ReadCSV's
// rules); shape holds the image shape the first line fixes.
type csvRecords struct {
	cr         *csv.Reader
	rows, cols int // asked for
	shape      Set
	line, at   int // records read; the line of the last in the file
}

// newCSVRecords reads the CSV file r with images of rows x cols (0, 0: square).
func newCSVRecords(r io.Reader, rows, cols int) *csvRecords {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	return &csvRecords{cr: cr, rows: rows, cols: cols}
}

// next appends the pixels of the next image (as written: 0 to 255, or 0
// to 1) to raw and returns them with its label; io.EOF after the last.
func (c *csvRecords) next(raw []float64) ([]float64, int, error) {
	for {
		rec, err := c.cr.Read()
		if err == io.EOF {
			return raw, 0, io.EOF
		}
		c.line++
		if err != nil {
			return raw, 0, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		c.at, _ = c.cr.FieldPos(0) // the line in the file, quoted line breaks counted
		if c.line == 1 {
			rec[0] = strings.TrimPrefix(rec[0], "\ufeff") // a byte-order mark
		}
		label, err := strconv.Atoi(strings.TrimSpace(rec[0]))
		if err != nil {
			if c.line == 1 {
				continue // a header
			}
			return raw, 0, fmt.Errorf("%w: line %d: label %s is not an integer%s", ErrFormat, c.at, excerpt(rec[0]), separatorHint(rec))
		}
		if label < 0 || label > 1<<16 {
			return raw, 0, fmt.Errorf("%w: line %d: label %d", ErrFormat, c.at, label)
		}
		if err := c.shape.setShape(len(rec)-1, c.rows, c.cols, c.at); err != nil {
			return raw, 0, err
		}
		for _, field := range rec[1:] {
			v, err := strconv.ParseFloat(strings.TrimSpace(field), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return raw, 0, fmt.Errorf("%w: line %d: pixel %s is not a finite number", ErrFormat, c.at, excerpt(field))
			}
			if v < 0 || v > 255 {
				return raw, 0, fmt.Errorf("%w: line %d: pixel %v is outside [0, 255]", ErrFormat, c.at, v)
			}
			raw = append(raw, v)
		}
		return raw, label, nil
	}
}

// setShape fixes the image shape from the first line and checks the others.
func (s *Set) setShape(d, rows, cols, line int) error {
	if s.Rows == 0 {
		if rows <= 0 || cols <= 0 {
			side := int(math.Round(math.Sqrt(float64(d))))
			rows, cols = side, side
		}
		if d < 1 || rows*cols != d {
			return fmt.Errorf("%w: line %d has %d pixels, not %d x %d", ErrFormat, line, d, rows, cols)
		}
		s.Rows, s.Cols = rows, cols
	}
	if d != s.Rows*s.Cols {
		return fmt.Errorf("%w: line %d has %d pixels, earlier lines %d", ErrFormat, line, d, s.Rows*s.Cols)
	}
	return nil
}

// excerpt quotes a field for an error message, shortened to its first 24
// characters: a line in another separator is one long field.
func excerpt(field string) string {
	const n = 24
	r := []rune(field)
	if len(r) <= n {
		return strconv.Quote(field)
	}
	return strconv.Quote(string(r[:n])) + fmt.Sprintf("... (%d characters)", len(r))
}

// separatorHint says when a record of one field looks like a line in
// another separator.
func separatorHint(rec []string) string {
	if len(rec) == 1 && strings.ContainsAny(rec[0], ";\t ") {
		return " (the file is read with commas as separators)"
	}
	return ""
}
