package npy

import (
	"archive/zip"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// NPZ is an open .npz archive: numpy.savez's zip of .npy files, one per
// named array. Arrays are read on demand.
type NPZ struct {
	name   string // for errors
	size   int64
	files  map[string]*zip.File
	names  []string
	closer io.Closer
	ra     io.ReaderAt // the archive's bytes (Rows)
}

// OpenNPZ opens a .npz file. Close it when done.
func OpenNPZ(path string) (*NPZ, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	z, err := NewNPZ(f, size)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("npy: %s: %w", path, err)
	}
	z.name, z.closer = path, f
	return z, nil
}

// NewNPZ reads the directory of a .npz archive of size bytes held by r.
func NewNPZ(r io.ReaderAt, size int64) (*NPZ, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%w: not a zip archive: %v", ErrFormat, err)
	}
	z := &NPZ{name: "npz", size: size, files: map[string]*zip.File{}, ra: r}
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			continue
		}
		if _, dup := z.files[name]; dup {
			return nil, fmt.Errorf("%w: array %q twice in the archive", ErrFormat, name)
		}
		z.files[name] = f
		z.names = append(z.names, name)
	}
	return z, nil
}

// Size returns the bytes the member holding the array name claims to
// hold once decompressed (header included), which reading it never
// exceeds, and whether there is such an array.
func (z *NPZ) Size(name string) (int64, bool) {
	f, ok := z.files[name]
	if !ok || f.UncompressedSize64 > 1<<62 {
		return 0, ok
	}
	return int64(f.UncompressedSize64), true
}

// Names returns the names of the arrays, in the archive's order (without
// the ".npy" of the member names).
func (z *NPZ) Names() []string { return append([]string(nil), z.names...) }

// Has reports whether the archive holds an array of that name.
func (z *NPZ) Has(name string) bool { _, ok := z.files[name]; return ok }

// maxDeflateRatio bounds how much deflate can expand (about 1032:1), so
// that an entry's claimed size can be checked against its compressed size.
const maxDeflateRatio = 1032

// Array reads the array called name (numpy.load(path)[name]).
func (z *NPZ) Array(name string) (*Array, error) {
	f, ok := z.files[name]
	if !ok {
		return nil, z.missing(name)
	}
	a, err := z.read(f)
	if err != nil {
		return nil, fmt.Errorf("npy: %s, array %q: %w", z.name, name, err)
	}
	return a, nil
}

// missing is the error for an array the archive does not hold.
func (z *NPZ) missing(name string) error {
	names := z.names
	if len(names) == 0 {
		names = []string{"none"}
	}
	return fmt.Errorf("npy: %s has no array %q (it has %s)", z.name, name, strings.Join(names, ", "))
}

func (z *NPZ) read(f *zip.File) (*Array, error) {
	rc, exact, err := z.open(f)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	a, err := read(rc, int64(f.UncompressedSize64), exact)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// open checks a member's sizes and compression and opens it; exact says
// its claimed size is its size (a stored member).
func (z *NPZ) open(f *zip.File) (io.ReadCloser, bool, error) {
	off, err := f.DataOffset()
	if err != nil {
		return nil, false, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if off < 0 || f.CompressedSize64 > uint64(z.size) || int64(f.CompressedSize64) > z.size-off {
		return nil, false, fmt.Errorf("%w: member extends past the end of the archive", ErrFormat)
	}
	exact := false
	switch f.Method {
	case zip.Store:
		if f.UncompressedSize64 != f.CompressedSize64 {
			return nil, false, fmt.Errorf("%w: stored member of %d bytes claims %d", ErrFormat, f.CompressedSize64, f.UncompressedSize64)
		}
		exact = true
	case zip.Deflate:
		if f.UncompressedSize64/maxDeflateRatio > f.CompressedSize64+1 {
			return nil, false, fmt.Errorf("%w: deflated member of %d bytes claims %d, more than deflate can hold", ErrFormat, f.CompressedSize64, f.UncompressedSize64)
		}
	default:
		return nil, false, fmt.Errorf("%w: compression method %d (want stored or deflated)", ErrFormat, f.Method)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, false, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return rc, exact, nil
}

// Header reads the header of the array called name (ReadHeader): only
// the start of its member is decompressed.
func (z *NPZ) Header(name string) (Header, error) {
	f, ok := z.files[name]
	if !ok {
		return Header{}, z.missing(name)
	}
	rc, _, err := z.open(f)
	if err != nil {
		return Header{}, fmt.Errorf("npy: %s, array %q: %w", z.name, name, err)
	}
	defer rc.Close()
	h, err := ReadHeader(rc)
	if err != nil {
		return Header{}, fmt.Errorf("npy: %s, array %q: %w", z.name, name, err)
	}
	return h, nil
}

// Close closes the file opened by OpenNPZ.
func (z *NPZ) Close() error {
	if z.closer == nil {
		return nil
	}
	return z.closer.Close()
}

// Named is an array with its name in a .npz archive.
type Named struct {
	Name  string
	Array *Array
}

// WriteNPZ writes the arrays as a .npz archive, deflated if compress is
// set (numpy.savez_compressed) or stored (numpy.savez). Names must be
// distinct and non-empty.
func WriteNPZ(w io.Writer, compress bool, arrays ...Named) error {
	seen := map[string]bool{}
	for _, a := range arrays {
		if a.Name == "" || seen[a.Name] || strings.ContainsAny(a.Name, "/\\") {
			return fmt.Errorf("npy: array name %q is empty, repeated or holds a slash", a.Name)
		}
		seen[a.Name] = true
		if a.Array == nil {
			return fmt.Errorf("npy: array %q is nil", a.Name)
		}
		if err := a.Array.check(); err != nil {
			return fmt.Errorf("npy: array %q: %w", a.Name, err)
		}
	}
	zw := zip.NewWriter(w)
	method := zip.Store
	if compress {
		method = zip.Deflate
	}
	for _, a := range arrays {
		// A fixed time: the same arrays give the same bytes.
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: a.Name + ".npy", Method: method,
			Modified: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			return fmt.Errorf("npy: %w", err)
		}
		if err := Write(fw, a.Array); err != nil {
			return fmt.Errorf("npy: array %q: %w", a.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	return nil
}

// WriteNPZFile writes the arrays to path as a .npz archive, atomically.
func WriteNPZFile(path string, compress bool, arrays ...Named) error {
	return writeAtomic(path, func(w io.Writer) error { return WriteNPZ(w, compress, arrays...) })
}

// ReadNPZFile reads every array of a .npz file, by name.
func ReadNPZFile(path string) (map[string]*Array, error) {
	z, err := OpenNPZ(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	out := map[string]*Array{}
	names := z.Names()
	sort.Strings(names)
	for _, n := range names {
		a, err := z.Array(n)
		if err != nil {
			return nil, err
		}
		out[n] = a
	}
	return out, nil
}
