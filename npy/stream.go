package npy

import (
	"archive/zip"
	"bytes"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"slices"
)

// RowReader reads an array a run of rows at a time (indices along its
// first axis), for arrays too large to read whole: a .npy file, or a
// member of a .npz archive. The data of a .npy file or of a stored
// (uncompressed) member are read by positional reads (io.ReaderAt) of the
// rows asked for, which the operating system's page cache serves as it
// would a memory map, on every system; a deflated member is decompressed
// as it is read, so its rows must be asked for in order (row 0 again
// starts over). Memory is that of the rows read, never the array's.
//
// OpenRows and NPZ.Rows check the header, the element type and the size
// of the data against the file (a truncated file or data after the array
// are refused before any row is read). Arrays in Fortran order (other
// than one-dimensional ones) are refused: their rows are not contiguous.
type RowReader struct {
	// Shape is the shape of the whole array.
	Shape []int
	name  string
	t     elemType
	row   int64 // bytes per row
	// Positional reads (a .npy file, a stored member).
	ra  io.ReaderAt
	off int64 // offset of row 0 in ra
	// The CRC-32 of a stored member, checked when its rows are read in
	// order to the end (as archive/zip checks it), 0: none.
	want uint32
	crc  hash.Hash32
	head int64 // the member's header bytes (before off), in its checksum
	// Sequential reads (a deflated member).
	zf     *zip.File
	rc     io.ReadCloser
	next   int // the row a sequential or checked read expects next
	closer io.Closer
	buf    []byte
}

// OpenRows opens a .npy file to read by rows. Close it when done.
func OpenRows(path string) (*RowReader, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	r, err := NewRows(f, size, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// openSized opens a file and returns its size.
func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("npy: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("npy: %w", err)
	}
	return f, st.Size(), nil
}

// NewRows reads by rows the .npy array held by the size bytes of r; name
// is used in errors.
func NewRows(r io.ReaderAt, size int64, name string) (*RowReader, error) {
	h, err := readHeader(io.NewSectionReader(r, 0, size))
	if err == nil {
		err = h.fits(size)
	}
	if err != nil {
		return nil, fmt.Errorf("npy: %s: %w", name, err)
	}
	return h.rows(name, r, h.len), nil
}

// fits checks that the array's data are exactly the size bytes of its file
// after the header, that it has rows, and that they are contiguous.
func (h *header) fits(size int64) error {
	switch {
	case len(h.shape) == 0:
		return fmt.Errorf("%w: a scalar has no rows", ErrFormat)
	case h.fortran:
		return fmt.Errorf("%w: an array of shape %v in Fortran order cannot be read by rows: read it whole, or save it in C order (numpy.ascontiguousarray)", ErrFormat, h.shape)
	case h.bytes > size-h.len:
		return fmt.Errorf("%w: truncated data: the header claims %d bytes, the file holds %d", ErrFormat, h.bytes, max(size-h.len, 0))
	case h.bytes < size-h.len:
		return fmt.Errorf("%w: data after the array (the header claims %d bytes)", ErrFormat, h.bytes)
	}
	return nil
}

// rows returns a positional reader of h's rows at off in r.
func (h *header) rows(name string, r io.ReaderAt, off int64) *RowReader {
	rr := &RowReader{Shape: slices.Clone(h.shape), name: name, t: h.t, ra: r, off: off}
	if h.shape[0] > 0 {
		rr.row = h.bytes / int64(h.shape[0])
	}
	return rr
}

// Rows opens the array called name to read by rows; the archive must stay
// open while it is read. Close the RowReader when done.
func (z *NPZ) Rows(name string) (*RowReader, error) {
	f, ok := z.files[name]
	if !ok {
		_, err := z.Array(name) // the error that lists the arrays
		return nil, err
	}
	r, err := z.rows(f)
	if err != nil {
		return nil, fmt.Errorf("npy: %s, array %q: %w", z.name, name, err)
	}
	r.name = fmt.Sprintf("%s, array %q", z.name, name)
	return r, nil
}

func (z *NPZ) rows(f *zip.File) (*RowReader, error) {
	if z.ra == nil {
		return nil, fmt.Errorf("%w: the archive cannot be read by rows", ErrFormat)
	}
	off, err := f.DataOffset()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if off < 0 || f.CompressedSize64 > uint64(z.size) || int64(f.CompressedSize64) > z.size-off {
		return nil, fmt.Errorf("%w: member extends past the end of the archive", ErrFormat)
	}
	size := int64(f.UncompressedSize64)
	switch f.Method {
	case zip.Store:
		if f.UncompressedSize64 != f.CompressedSize64 {
			return nil, fmt.Errorf("%w: stored member of %d bytes claims %d", ErrFormat, f.CompressedSize64, f.UncompressedSize64)
		}
		h, err := readHeader(io.NewSectionReader(z.ra, off, size))
		if err == nil {
			err = h.fits(size)
		}
		if err != nil {
			return nil, err
		}
		r := h.rows("", z.ra, off+h.len)
		r.want, r.head = f.CRC32, h.len
		return r, nil
	case zip.Deflate:
		if f.UncompressedSize64/maxDeflateRatio > f.CompressedSize64+1 || f.UncompressedSize64 > 1<<62 {
			return nil, fmt.Errorf("%w: deflated member of %d bytes claims %d, more than deflate can hold", ErrFormat, f.CompressedSize64, f.UncompressedSize64)
		}
		rc, h, err := openDeflated(f)
		if err != nil {
			return nil, err
		}
		if err := h.fits(size); err != nil {
			rc.Close()
			return nil, err
		}
		r := h.rows("", nil, 0)
		r.zf, r.rc = f, rc
		return r, nil
	}
	return nil, fmt.Errorf("%w: compression method %d (want stored or deflated)", ErrFormat, f.Method)
}

// openDeflated opens a deflated member and reads its header.
func openDeflated(f *zip.File) (io.ReadCloser, *header, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	h, err := readHeader(rc)
	if err != nil {
		rc.Close()
		return nil, nil, err
	}
	return rc, h, nil
}

// Len returns the number of rows (the first dimension).
func (r *RowReader) Len() int { return r.Shape[0] }

// DType returns the element type as NumPy writes it, e.g. "|u1", "<f4".
func (r *RowReader) DType() string { return r.t.descr() }

// RowBytes returns the bytes one row takes in the file.
func (r *RowReader) RowBytes() int64 { return r.row }

// Read returns rows lo to lo+n-1 as an array of shape n x Shape[1:], its
// elements as Array.Data holds them (read whole, the array would give the
// same values). A deflated member's rows must be read in order; reading
// the last row checks what follows the array (nothing) and, where the
// rows were read in order, the member's checksum.
func (r *RowReader) Read(lo, n int) (*Array, error) {
	if lo < 0 || n < 0 || lo > r.Len()-n {
		return nil, fmt.Errorf("npy: %s: rows %d to %d of %d", r.name, lo, lo+n-1, r.Len())
	}
	b, err := r.bytes(lo, n)
	if err != nil {
		return nil, fmt.Errorf("npy: %s: %w", r.name, err)
	}
	count := int64(len(b)) / int64(max(r.t.size, 1))
	data, err := decode(bytes.NewReader(b), &header{t: r.t, count: count, bytes: int64(len(b))}, true)
	if err != nil {
		return nil, fmt.Errorf("npy: %s: %w", r.name, err)
	}
	shape := append([]int{n}, r.Shape[1:]...)
	return &Array{Shape: shape, Data: data}, nil
}

// bytes reads the bytes of rows lo to lo+n-1.
func (r *RowReader) bytes(lo, n int) ([]byte, error) {
	k := int64(n) * r.row
	if int64(cap(r.buf)) < k {
		r.buf = make([]byte, k)
	}
	b := r.buf[:k]
	if r.zf != nil {
		if err := r.seek(lo); err != nil {
			return nil, err
		}
		if _, err := io.ReadFull(r.rc, b); err != nil {
			return nil, fmt.Errorf("%w: truncated data in rows %d to %d: %v", ErrFormat, lo, lo+n-1, err)
		}
		r.next = lo + n
		if r.next == r.Len() {
			return b, r.end()
		}
		return b, nil
	}
	if got, err := r.ra.ReadAt(b, r.off+int64(lo)*r.row); got < len(b) {
		return nil, fmt.Errorf("%w: truncated data in rows %d to %d (%d of %d bytes read: %v)", ErrFormat, lo, lo+n-1, got, len(b), err)
	}
	if r.want != 0 {
		if lo == 0 {
			r.crc, r.next = crc32.NewIEEE(), 0
			if _, err := io.Copy(r.crc, io.NewSectionReader(r.ra, r.off-r.head, r.head)); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrFormat, err)
			}
		}
		if r.crc != nil && lo == r.next {
			r.crc.Write(b)
			r.next = lo + n
			if r.next == r.Len() && r.crc.Sum32() != r.want {
				return nil, fmt.Errorf("%w: %v", ErrFormat, zip.ErrChecksum)
			}
		} else {
			r.crc = nil // out of order: the checksum is not known
		}
	}
	return b, nil
}

// seek brings a deflated member to row lo: row 0 starts over, any other
// row must be the next one.
func (r *RowReader) seek(lo int) error {
	if lo == r.next && r.rc != nil {
		return nil
	}
	if lo != 0 {
		return fmt.Errorf("%w: a deflated member is read in order: row %d asked for, row %d is next", ErrFormat, lo, r.next)
	}
	if r.rc != nil {
		r.rc.Close()
	}
	rc, h, err := openDeflated(r.zf)
	if err != nil {
		return err
	}
	r.rc, r.next = rc, 0
	if !slices.Equal(h.shape, r.Shape) || h.t != r.t {
		return fmt.Errorf("%w: the member changed while it was read", ErrFormat)
	}
	return nil
}

// end checks that a deflated member holds nothing after its last row;
// archive/zip checks its size and checksum on reaching the end.
func (r *RowReader) end() error {
	var one [1]byte
	switch n, err := io.ReadFull(r.rc, one[:]); {
	case n > 0:
		return fmt.Errorf("%w: data after the array", ErrFormat)
	case err != io.EOF:
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return nil
}

// Close closes what the reader opened: the file of OpenRows, the
// decompressor of a deflated member (not the archive).
func (r *RowReader) Close() error {
	var err error
	if r.rc != nil {
		err = r.rc.Close()
		r.rc = nil
	}
	if r.closer != nil {
		if cerr := r.closer.Close(); err == nil {
			err = cerr
		}
		r.closer = nil
	}
	return err
}
