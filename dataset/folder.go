package dataset

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"testing/fstest"
)

// imageExt lists the file extensions ReadFolder reads.
var imageExt = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".bmp": true, ".pgm": true, ".ppm": true, ".pnm": true}

// ReadFolder reads root/<class>/<image> files (the convention of
// torchvision's ImageFolder): one class per subfolder, classes sorted by
// name, each image prepared with p. All images must end up the same size.
func ReadFolder(root string, p Preprocess) (*Set, error) {
	s, err := ReadFolderFS(os.DirFS(root), ".", p)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", root, err)
	}
	s.Source = root
	return s, nil
}

// ReadFolderFS is ReadFolder on a file system, below the folder dir.
func ReadFolderFS(fsys fs.FS, dir string, p Preprocess) (*Set, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	s := &Set{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		files, err := fs.ReadDir(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		label := len(s.Classes)
		names := imageNames(files)
		if len(names) == 0 {
			continue
		}
		s.Classes = append(s.Classes, e.Name())
		for _, name := range names {
			if err := s.addImage(fsys, path.Join(dir, e.Name(), name), label, p); err != nil {
				return nil, err
			}
		}
	}
	if len(s.Classes) == 0 {
		return nil, errors.New("no class subfolder holds an image")
	}
	return s, nil
}

// imageNames returns the sorted names of the image files among files.
func imageNames(files []fs.DirEntry) []string {
	var names []string
	for _, f := range files {
		if !f.IsDir() && imageExt[strings.ToLower(path.Ext(f.Name()))] {
			names = append(names, f.Name())
		}
	}
	sort.Strings(names)
	return names
}

// addImage decodes, prepares and appends one image file.
func (s *Set) addImage(fsys fs.FS, name string, label int, p Preprocess) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	pix, rows, cols, err := DecodeImage(f, name)
	if err != nil {
		return err
	}
	pix, rows, cols = p.Apply(pix, rows, cols)
	if s.Rows == 0 {
		s.Rows, s.Cols = rows, cols
	}
	if rows != s.Rows || cols != s.Cols {
		return fmt.Errorf("%s is %d x %d, earlier images are %d x %d (resize them with a preprocessing option)", name, rows, cols, s.Rows, s.Cols)
	}
	s.Pix = append(s.Pix, pix...)
	s.Labels = append(s.Labels, label)
	return nil
}

// ReadFolderTarGz reads class subfolders of images below dir inside a
// .tar.gz archive, without unpacking it to disk.
func ReadFolderTarGz(archive, dir string, p Preprocess) (*Set, error) {
	fsys, err := tarGzFS(archive)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", archive, err)
	}
	s, err := ReadFolderFS(fsys, dir, p)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %s: %w", archive, dir, err)
	}
	s.Source = archive + ":" + dir
	return s, nil
}

// tarGzFS loads the regular files of a .tar.gz archive into memory.
func tarGzFS(archive string) (fs.FS, error) {
	f, err := os.Open(archive)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	m := fstest.MapFS{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg || h.Size > 64<<20 {
			continue
		}
		var buf bytes.Buffer
		if _, err := io.CopyN(&buf, tr, h.Size); err != nil {
			return nil, err
		}
		m[path.Clean(h.Name)] = &fstest.MapFile{Data: buf.Bytes()}
	}
}

// ReadORL reads the ORL / AT&T face database: root/s1 ... root/s40, each
// with 1.pgm ... 10.pgm of 112 x 92. Classes are ordered by subject number.
func ReadORL(root string) (*Set, error) {
	s := &Set{Source: root + " (ORL faces, Olivetti Research Laboratory)"}
	for subject := 1; ; subject++ {
		dir := fmt.Sprintf("s%d", subject)
		if _, err := os.Stat(path.Join(root, dir)); err != nil {
			break
		}
		s.Classes = append(s.Classes, dir)
		for i := 1; i <= 10; i++ {
			name := path.Join(dir, fmt.Sprintf("%d.pgm", i))
			if err := s.addImage(os.DirFS(root), name, subject-1, Preprocess{}); err != nil {
				return nil, fmt.Errorf("dataset: %s: %w", root, err)
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
// first field. rows x cols gives the shape (0, 0: a square). Pixels above 1
// mean 0-255 values, which are scaled to [0, 1].
func ReadCSV(path string, rows, cols int) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
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
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	s := &Set{}
	var raw []float64
	most, line := 0, 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line++
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		label, err := strconv.Atoi(strings.TrimSpace(rec[0]))
		if err != nil {
			if line == 1 {
				continue // a header
			}
			return nil, fmt.Errorf("%w: line %d: label %q is not an integer", ErrFormat, line, rec[0])
		}
		if label < 0 || label > 1<<16 {
			return nil, fmt.Errorf("%w: line %d: label %d", ErrFormat, line, label)
		}
		if err := s.setShape(len(rec)-1, rows, cols, line); err != nil {
			return nil, err
		}
		for _, field := range rec[1:] {
			v, err := strconv.ParseFloat(strings.TrimSpace(field), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: line %d: pixel %q is not a finite number", ErrFormat, line, field)
			}
			raw = append(raw, v)
		}
		s.Labels = append(s.Labels, label)
		most = max(most, label)
	}
	if len(s.Labels) == 0 {
		return nil, fmt.Errorf("%w: no images", ErrFormat)
	}
	scale := 1.0
	for _, v := range raw {
		if v > 1 {
			scale = 1.0 / 255
			break
		}
	}
	s.Pix = make([]float32, len(raw))
	for i, v := range raw {
		s.Pix[i] = float32(v * scale)
	}
	s.Classes = digitClasses(max(most+1, 2))
	return s, nil
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
