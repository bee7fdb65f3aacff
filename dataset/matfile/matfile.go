// Package matfile reads numeric arrays from MATLAB MAT-files of level 5
// (the format MATLAB writes with save -v6 and save -v7, Octave with
// save -mat7-binary or -v6, scipy.io.savemat): real numeric arrays of any
// number of dimensions (double, single, int8 to int64, uint8 to uint64, and
// logical, read as 0 and 1), stored plainly or inside zlib-compressed
// elements (miCOMPRESSED), little- or big-endian.
//
// Values are returned as float64 in MATLAB's column-major order: element
// (i1, i2, ..., ik) of an array of dimensions d1 x d2 x ... x dk is at
// i1 + d1*(i2 + d2*(i3 + ...)) (0-based). Structs, cell arrays, objects,
// character arrays, sparse and complex arrays are refused with an error
// that names the variable and its class; so are MAT-files of version 7.3
// (HDF5) and version 4.
//
// Every size a file claims is checked before memory is allocated for it:
// against the bytes the enclosing element holds, against the element count
// its dimensions give, and against Options.MaxBytes; a compressed element
// is inflated in bounded steps, so a claim larger than the data present
// fails when the data ends, having allocated no more than was read.
package matfile

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// ErrFormat is wrapped by every error about a file's content: not a
// level-5 MAT-file, truncated or corrupt, or holding what this package does
// not read.
var ErrFormat = errors.New("matfile: bad MAT-file")

// ErrNotFound is wrapped by the error of a variable the file does not hold.
var ErrNotFound = errors.New("matfile: no such variable")

// DefaultMaxBytes bounds the bytes of the values of one variable (as
// float64) unless Options.MaxBytes says otherwise: 8 GiB.
const DefaultMaxBytes = 8 << 30

// Array is a real numeric array read from a MAT-file.
type Array struct {
	// Name is the variable's name.
	Name string
	// Class is MATLAB's class of the array ("double", "single", "int16",
	// "uint8", "logical", ...).
	Class string
	// Dims are the array's dimensions (at least two, as MATLAB has them).
	Dims []int
	// Data holds the values in column-major order (see the package doc).
	Data []float64
}

// Len returns the number of elements, the product of the dimensions.
func (a *Array) Len() int {
	n := 1
	for _, d := range a.Dims {
		n *= d
	}
	return n
}

// At returns the element at the given (0-based) subscripts, one per
// dimension, in column-major order; it panics when they are out of range,
// as slice indexing does.
func (a *Array) At(idx ...int) float64 {
	if len(idx) != len(a.Dims) {
		panic(fmt.Sprintf("matfile: %d subscripts for %d dimensions", len(idx), len(a.Dims)))
	}
	off, stride := 0, 1
	for k, i := range idx {
		if i < 0 || i >= a.Dims[k] {
			panic(fmt.Sprintf("matfile: subscript %d is %d, dimension is %d", k, i, a.Dims[k]))
		}
		off += i * stride
		stride *= a.Dims[k]
	}
	return a.Data[off]
}

// Var describes a variable of a file as its header gives it, without its
// values.
type Var struct {
	// Name is the variable's name.
	Name string
	// Class is MATLAB's class ("double", "struct", "cell", ...).
	Class string
	// Dims are its dimensions.
	Dims []int
	// Complex and Sparse tell the array's flags.
	Complex, Sparse bool
}

// Options bound what a read may allocate.
type Options struct {
	// MaxBytes bounds the values of one variable, counted as float64
	// (8 bytes an element); 0 means DefaultMaxBytes.
	MaxBytes int64
}

func (o Options) maxBytes() int64 {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return DefaultMaxBytes
}

// Data types of the file's elements.
const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15
	miUTF8       = 16
	miUTF16      = 17
	miUTF32      = 18
)

// Array classes.
const (
	mxCELL   = 1
	mxSTRUCT = 2
	mxOBJECT = 3
	mxCHAR   = 4
	mxSPARSE = 5
	mxDOUBLE = 6
	mxSINGLE = 7
	mxINT8   = 8
	mxUINT8  = 9
	mxINT16  = 10
	mxUINT16 = 11
	mxINT32  = 12
	mxUINT32 = 13
	mxINT64  = 14
	mxUINT64 = 15
)

var classNames = map[uint32]string{
	mxCELL: "cell", mxSTRUCT: "struct", mxOBJECT: "object", mxCHAR: "char", mxSPARSE: "sparse",
	mxDOUBLE: "double", mxSINGLE: "single", mxINT8: "int8", mxUINT8: "uint8", mxINT16: "int16",
	mxUINT16: "uint16", mxINT32: "int32", mxUINT32: "uint32", mxINT64: "int64", mxUINT64: "uint64",
	16: "function handle", 17: "opaque object",
}

func className(c uint32) string {
	if s, ok := classNames[c]; ok {
		return s
	}
	return fmt.Sprintf("class %d", c)
}

// elemSize gives the bytes of one value of a numeric data type (0: not
// numeric).
func elemSize(t uint32) int {
	switch t {
	case miINT8, miUINT8:
		return 1
	case miINT16, miUINT16:
		return 2
	case miINT32, miUINT32, miSINGLE:
		return 4
	case miDOUBLE, miINT64, miUINT64:
		return 8
	}
	return 0
}

const headerLen = 128

// chunk bounds one allocation step while reading data whose size the file
// claims: a claim beyond the data present fails at its end having
// allocated at most one chunk more than was read.
const chunk = 1 << 20

// File is an open MAT-file.
type File struct {
	f    io.ReaderAt
	c    io.Closer
	size int64
	// Header is the file's descriptive text (as MATLAB writes it:
	// "MATLAB 5.0 MAT-file, Platform: ..., Created on: ...").
	Header string
	order  binary.ByteOrder
	opts   Options
}

// Open opens a MAT-file and checks its header.
func Open(path string, opts Options) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("matfile: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("matfile: %w", err)
	}
	m, err := NewReader(f, st.Size(), opts)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m.c = f
	return m, nil
}

// NewReader reads a MAT-file of size bytes from r and checks its header.
func NewReader(r io.ReaderAt, size int64, opts Options) (*File, error) {
	m := &File{f: r, size: size, opts: opts}
	if err := m.readHeader(); err != nil {
		return nil, err
	}
	return m, nil
}

// Close closes the file (when Open opened it).
func (m *File) Close() error {
	if m.c == nil {
		return nil
	}
	return m.c.Close()
}

func (m *File) readHeader() error {
	var h [headerLen]byte
	if _, err := io.ReadFull(io.NewSectionReader(m.f, 0, headerLen), h[:]); err != nil {
		return fmt.Errorf("%w: %d bytes, shorter than the 128-byte header", ErrFormat, m.size)
	}
	text := string(bytes.TrimRight(h[:116], " \x00"))
	switch {
	case h[126] == 'I' && h[127] == 'M':
		m.order = binary.LittleEndian
	case h[126] == 'M' && h[127] == 'I':
		m.order = binary.BigEndian
	default:
		if bytes.HasPrefix(h[:], []byte("\x89HDF")) {
			return fmt.Errorf("%w: an HDF5 file, not a level-5 MAT-file", ErrFormat)
		}
		if !strings.HasPrefix(text, "MATLAB") {
			return fmt.Errorf("%w: no MAT-file header (a level-5 MAT-file starts with \"MATLAB 5.0 MAT-file\"; version 4 files are not read)", ErrFormat)
		}
		return fmt.Errorf("%w: the header's endian indicator is %q, not \"IM\" or \"MI\"", ErrFormat, h[126:128])
	}
	if v := m.order.Uint16(h[124:126]); v != 0x0100 {
		if strings.Contains(text, "7.3") {
			return fmt.Errorf("%w: MAT-file version 7.3 (HDF5), not level 5: save it with save -v7", ErrFormat)
		}
		return fmt.Errorf("%w: header version %#04x, not 0x0100 (level 5)", ErrFormat, v)
	}
	m.Header = text
	return nil
}

// element is a top-level data element: a variable, plain or compressed.
type element struct {
	typ  uint32
	off  int64 // where its data starts in the file
	size int64 // its data's bytes
}

// elements lists the top-level elements, checking that each lies within
// the file.
func (m *File) elements() ([]element, error) {
	var out []element
	off := int64(headerLen)
	for off < m.size {
		if m.size-off < 8 {
			return nil, fmt.Errorf("%w: %d stray bytes at offset %d (a truncated element tag)", ErrFormat, m.size-off, off)
		}
		var tag [8]byte
		if _, err := m.f.ReadAt(tag[:], off); err != nil {
			return nil, fmt.Errorf("%w: reading the element tag at offset %d: %v", ErrFormat, off, err)
		}
		typ, n := m.order.Uint32(tag[:4]), int64(m.order.Uint32(tag[4:]))
		if typ>>16 != 0 {
			return nil, fmt.Errorf("%w: a small data element at the top level (offset %d)", ErrFormat, off)
		}
		if n > m.size-off-8 {
			return nil, fmt.Errorf("%w: the element at offset %d claims %d bytes, the file has %d more (truncated?)", ErrFormat, off, n, m.size-off-8)
		}
		out = append(out, element{typ: typ, off: off + 8, size: n})
		next := off + 8 + n
		if typ != miCOMPRESSED {
			next = off + 8 + pad8(n)
		}
		if next > m.size {
			// The last element's padding may be missing; accept that.
			next = m.size
		}
		off = next
	}
	return out, nil
}

func pad8(n int64) int64 { return (n + 7) &^ 7 }

// matrixReader returns a reader of an element's miMATRIX content (inflated
// when compressed) and its byte count, or an error when the element is
// not an array.
func (m *File) matrixReader(e element) (*bufio.Reader, int64, func(), error) {
	sec := io.NewSectionReader(m.f, e.off, e.size)
	switch e.typ {
	case miMATRIX:
		return bufio.NewReader(sec), e.size, func() {}, nil
	case miCOMPRESSED:
		z, err := zlib.NewReader(bufio.NewReader(sec))
		if err != nil {
			return nil, 0, nil, fmt.Errorf("%w: compressed element at offset %d: %v", ErrFormat, e.off-8, err)
		}
		br := bufio.NewReader(z)
		var tag [8]byte
		if _, err := io.ReadFull(br, tag[:]); err != nil {
			z.Close()
			return nil, 0, nil, fmt.Errorf("%w: compressed element at offset %d: %v", ErrFormat, e.off-8, noEOF(err))
		}
		typ, n := m.order.Uint32(tag[:4]), int64(m.order.Uint32(tag[4:]))
		if typ != miMATRIX {
			z.Close()
			return nil, 0, nil, fmt.Errorf("%w: compressed element at offset %d holds data type %d, not an array", ErrFormat, e.off-8, typ)
		}
		return br, n, func() { z.Close() }, nil
	}
	return nil, 0, nil, fmt.Errorf("%w: top-level element of data type %d at offset %d, not an array", ErrFormat, e.typ, e.off-8)
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// sub reads the sub-elements of an array, keeping count of the bytes left.
type sub struct {
	r     *bufio.Reader
	left  int64
	order binary.ByteOrder
	where string
}

// next reads one sub-element's tag and returns its type and byte count,
// and for a small element its (up to four) bytes.
func (s *sub) tag() (typ uint32, n int64, small []byte, err error) {
	if s.left < 8 {
		return 0, 0, nil, fmt.Errorf("%w: %s: the array ends inside an element tag", ErrFormat, s.where)
	}
	var t [8]byte
	if _, err := io.ReadFull(s.r, t[:]); err != nil {
		return 0, 0, nil, fmt.Errorf("%w: %s: %v", ErrFormat, s.where, noEOF(err))
	}
	s.left -= 8
	w := s.order.Uint32(t[:4])
	if w>>16 != 0 { // small data element: size in the upper half
		n = int64(w >> 16)
		if n > 4 {
			return 0, 0, nil, fmt.Errorf("%w: %s: a small data element of %d bytes (at most 4)", ErrFormat, s.where, n)
		}
		return w & 0xffff, n, append([]byte(nil), t[4:4+n]...), nil
	}
	n = int64(s.order.Uint32(t[4:]))
	if n > s.left {
		return 0, 0, nil, fmt.Errorf("%w: %s: an element claims %d bytes, the array has %d left (truncated or corrupt)", ErrFormat, s.where, n, s.left)
	}
	return w, n, nil, nil
}

// body reads a sub-element's data of n bytes (after a non-small tag), and
// its padding, in bounded steps.
func (s *sub) body(n int64) ([]byte, error) {
	var buf []byte
	for int64(len(buf)) < n {
		k := min(n-int64(len(buf)), chunk)
		start := len(buf)
		buf = append(buf, make([]byte, k)...)
		if _, err := io.ReadFull(s.r, buf[start:]); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrFormat, s.where, noEOF(err))
		}
	}
	s.left -= n
	if p := min(pad8(n)-n, s.left); p > 0 {
		if _, err := s.r.Discard(int(p)); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrFormat, s.where, noEOF(err))
		}
		s.left -= p
	}
	return buf, nil
}

// element reads a whole sub-element: its type and data.
func (s *sub) element() (uint32, []byte, error) {
	typ, n, small, err := s.tag()
	if err != nil {
		return 0, nil, err
	}
	if small != nil {
		return typ, small, nil
	}
	b, err := s.body(n)
	return typ, b, err
}

// head reads an array's flags, dimensions and name.
func (s *sub) head() (Var, uint32, error) {
	var v Var
	typ, b, err := s.element()
	if err != nil {
		return v, 0, err
	}
	if typ != miUINT32 || len(b) != 8 {
		return v, 0, fmt.Errorf("%w: %s: array flags of type %d and %d bytes (want miUINT32, 8 bytes)", ErrFormat, s.where, typ, len(b))
	}
	flags := s.order.Uint32(b[:4])
	class := flags & 0xff
	v.Complex = flags&0x800 != 0
	logical := flags&0x200 != 0
	v.Sparse = class == mxSPARSE
	v.Class = className(class)
	if logical && class == mxUINT8 {
		v.Class = "logical"
	}
	typ, b, err = s.element()
	if err != nil {
		return v, 0, err
	}
	if typ != miINT32 || len(b)%4 != 0 || len(b) < 8 {
		return v, 0, fmt.Errorf("%w: %s: dimensions of type %d and %d bytes (want miINT32, at least two)", ErrFormat, s.where, typ, len(b))
	}
	for i := 0; i < len(b); i += 4 {
		d := int32(s.order.Uint32(b[i:]))
		if d < 0 {
			return v, 0, fmt.Errorf("%w: %s: dimension %d is %d", ErrFormat, s.where, i/4+1, d)
		}
		v.Dims = append(v.Dims, int(d))
	}
	typ, b, err = s.element()
	if err != nil {
		return v, 0, err
	}
	if typ != miINT8 && typ != miUINT8 && typ != miUTF8 {
		return v, 0, fmt.Errorf("%w: %s: array name of type %d (want miINT8)", ErrFormat, s.where, typ)
	}
	v.Name = string(b)
	return v, class, nil
}

// finish reads what is left of the array (its imaginary part, or padding)
// and, for a compressed element, the rest of the stream, so that zlib checks
// its checksum: a corrupt compressed element is refused, never read as
// other values.
func (s *sub) finish(compressed bool) error {
	if _, err := s.r.Discard(int(min(s.left, math.MaxInt32))); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrFormat, s.where, noEOF(err))
	}
	if !compressed {
		return nil
	}
	n, err := io.Copy(io.Discard, s.r)
	if err != nil {
		return fmt.Errorf("%w: %s: compressed data: %v", ErrFormat, s.where, err)
	}
	if n != 0 {
		return fmt.Errorf("%w: %s: %d bytes after the array in its compressed element", ErrFormat, s.where, n)
	}
	return nil
}

// Vars lists the file's variables (name, class, dimensions) without
// reading their values.
func (m *File) Vars() ([]Var, error) {
	els, err := m.elements()
	if err != nil {
		return nil, err
	}
	var out []Var
	for i, e := range els {
		v, _, _, done, err := m.open(e, i)
		if err != nil {
			return nil, err
		}
		done()
		out = append(out, v)
	}
	return out, nil
}

func (m *File) open(e element, i int) (Var, uint32, *sub, func(), error) {
	r, n, done, err := m.matrixReader(e)
	if err != nil {
		return Var{}, 0, nil, nil, err
	}
	s := &sub{r: r, left: n, order: m.order, where: fmt.Sprintf("variable %d", i+1)}
	v, class, err := s.head()
	if err != nil {
		done()
		return Var{}, 0, nil, nil, err
	}
	s.where = fmt.Sprintf("variable %q", v.Name)
	return v, class, s, done, nil
}

// Read returns the named variable's values; it must be a real numeric
// (or logical) array.
func (m *File) Read(name string) (*Array, error) {
	els, err := m.elements()
	if err != nil {
		return nil, err
	}
	var names []string
	for i, e := range els {
		v, class, s, done, err := m.open(e, i)
		if err != nil {
			return nil, err
		}
		if v.Name != name {
			done()
			names = append(names, fmt.Sprintf("%s (%s %s)", v.Name, dimString(v.Dims), v.Class))
			continue
		}
		a, err := m.values(v, class, s)
		if err == nil {
			err = s.finish(e.typ == miCOMPRESSED)
		}
		done()
		if err != nil {
			return nil, err
		}
		return a, nil
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: %q: the file holds no variables", ErrNotFound, name)
	}
	return nil, fmt.Errorf("%w: %q; the file holds %s", ErrNotFound, name, strings.Join(names, ", "))
}

func dimString(d []int) string {
	s := make([]string, len(d))
	for i, v := range d {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, "x")
}

// values reads a numeric array's real part after its head.
func (m *File) values(v Var, class uint32, s *sub) (*Array, error) {
	switch {
	case v.Sparse:
		return nil, fmt.Errorf("%w: %s is a sparse array; only full numeric arrays are read (save full(%s))", ErrFormat, s.where, v.Name)
	case class == mxCELL || class == mxSTRUCT || class == mxOBJECT || class == mxCHAR || class < mxDOUBLE || class > mxUINT64:
		return nil, fmt.Errorf("%w: %s is a %s array; only numeric arrays are read", ErrFormat, s.where, v.Class)
	case v.Complex:
		return nil, fmt.Errorf("%w: %s is complex; only real arrays are read", ErrFormat, s.where)
	}
	n := int64(1)
	for _, d := range v.Dims {
		if d != 0 && n > math.MaxInt64/8/int64(d) {
			return nil, fmt.Errorf("%w: %s: dimensions %s overflow", ErrFormat, s.where, dimString(v.Dims))
		}
		n *= int64(d)
	}
	if max := m.opts.maxBytes(); n*8 > max {
		return nil, fmt.Errorf("%w: %s: %s values need %d bytes, more than the limit of %d", ErrFormat, s.where, dimString(v.Dims), n*8, max)
	}
	typ, cnt, small, err := s.tag()
	if err != nil {
		return nil, err
	}
	es := int64(elemSize(typ))
	if es == 0 {
		return nil, fmt.Errorf("%w: %s: values of data type %d, not numeric", ErrFormat, s.where, typ)
	}
	if cnt != n*es {
		return nil, fmt.Errorf("%w: %s: %d bytes of values for %s elements of %d bytes (want %d)", ErrFormat, s.where, cnt, dimString(v.Dims), es, n*es)
	}
	b := small
	if b == nil {
		if b, err = s.body(cnt); err != nil {
			return nil, err
		}
	}
	a := &Array{Name: v.Name, Class: v.Class, Dims: v.Dims, Data: make([]float64, n)}
	decode(a.Data, b, typ, m.order)
	return a, nil
}

// decode converts n values of a numeric data type to float64.
func decode(dst []float64, b []byte, typ uint32, o binary.ByteOrder) {
	for i := range dst {
		switch typ {
		case miINT8:
			dst[i] = float64(int8(b[i]))
		case miUINT8:
			dst[i] = float64(b[i])
		case miINT16:
			dst[i] = float64(int16(o.Uint16(b[2*i:])))
		case miUINT16:
			dst[i] = float64(o.Uint16(b[2*i:]))
		case miINT32:
			dst[i] = float64(int32(o.Uint32(b[4*i:])))
		case miUINT32:
			dst[i] = float64(o.Uint32(b[4*i:]))
		case miSINGLE:
			dst[i] = float64(math.Float32frombits(o.Uint32(b[4*i:])))
		case miDOUBLE:
			dst[i] = math.Float64frombits(o.Uint64(b[8*i:]))
		case miINT64:
			dst[i] = float64(int64(o.Uint64(b[8*i:])))
		case miUINT64:
			dst[i] = float64(o.Uint64(b[8*i:]))
		}
	}
}

// ReadFile opens a MAT-file, reads the named variable and closes it.
func ReadFile(path, name string, opts Options) (*Array, error) {
	m, err := Open(path, opts)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	a, err := m.Read(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}
