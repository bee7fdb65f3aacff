// Package npy reads and writes NumPy's array files: .npy (one array;
// format versions 1.0, 2.0 and 3.0, little- or big-endian, C or Fortran
// order) and .npz (a zip archive of .npy files, stored or deflated, as
// numpy.savez and numpy.savez_compressed write them).
//
// The element types are the ones image data, labels and model weights
// need: unsigned and signed integers of 1, 2, 4 and 8 bytes, float32,
// float64, and fixed-width strings (unicode '<U n', read also as byte
// strings '|S n'). Arrays are held in C (row-major) order as plain Go
// slices: a file in Fortran order (numpy.save of a transposed array) is
// reordered when read; files are written in C order.
//
// Every reader checks what a header claims before allocating for it: the
// bytes an array needs are compared with what the file (or the zip entry)
// can hold, and where that is not known beforehand memory grows with the
// bytes actually read. No input makes a reader panic (FuzzRead, FuzzReadNPZ).
// Files are written atomically: to a temporary file in the same folder,
// synced, then renamed.
package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrFormat is wrapped by every error about a malformed or unsupported file.
var ErrFormat = errors.New("npy: malformed or unsupported file")

// Array is an n-dimensional array in C order. Data is one of []uint8,
// []int8, []uint16, []int16, []uint32, []int32, []uint64, []int64,
// []float32, []float64 or []string, of length the product of Shape (1 for
// a scalar, Shape empty).
type Array struct {
	Shape []int
	Data  any
}

// New returns the array of the given data and shape; it checks that the
// shape holds len(data) elements and that the element type is supported.
func New(data any, shape ...int) (*Array, error) {
	a := &Array{Shape: append([]int(nil), shape...), Data: data}
	if err := a.check(); err != nil {
		return nil, err
	}
	return a, nil
}

// Len returns the number of elements, the product of the shape.
func (a *Array) Len() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// DType returns the array's NumPy type string as this package writes it,
// e.g. "<f4", "|u1", "<U12".
func (a *Array) DType() string {
	switch d := a.Data.(type) {
	case []string:
		return fmt.Sprintf("<U%d", maxRunes(d))
	default:
		if t, ok := typeOf(a.Data); ok {
			return t.descr()
		}
		return fmt.Sprintf("(%T)", a.Data)
	}
}

// dataLen returns the length of a's data slice, or -1 for an unsupported type.
func dataLen(data any) int {
	switch d := data.(type) {
	case []uint8:
		return len(d)
	case []int8:
		return len(d)
	case []uint16:
		return len(d)
	case []int16:
		return len(d)
	case []uint32:
		return len(d)
	case []int32:
		return len(d)
	case []uint64:
		return len(d)
	case []int64:
		return len(d)
	case []float32:
		return len(d)
	case []float64:
		return len(d)
	case []string:
		return len(d)
	}
	return -1
}

// check reports whether the shape and the data agree.
func (a *Array) check() error {
	n := dataLen(a.Data)
	if n < 0 {
		return fmt.Errorf("npy: unsupported element type %T", a.Data)
	}
	count := int64(1)
	for _, d := range a.Shape {
		if d < 0 {
			return fmt.Errorf("npy: negative dimension in shape %v", a.Shape)
		}
		if d > 0 && count > math.MaxInt64/int64(d) {
			return fmt.Errorf("npy: shape %v is too large", a.Shape)
		}
		count *= int64(d)
	}
	if count != int64(n) {
		return fmt.Errorf("npy: shape %v holds %d elements, the data %d", a.Shape, count, n)
	}
	return nil
}

// Float64s returns the elements as float64 (integers converted, strings
// refused).
func (a *Array) Float64s() ([]float64, error) {
	switch d := a.Data.(type) {
	case []float64:
		return d, nil
	case []float32:
		return convert(d, func(v float32) float64 { return float64(v) }), nil
	case []uint8:
		return convert(d, func(v uint8) float64 { return float64(v) }), nil
	case []int8:
		return convert(d, func(v int8) float64 { return float64(v) }), nil
	case []uint16:
		return convert(d, func(v uint16) float64 { return float64(v) }), nil
	case []int16:
		return convert(d, func(v int16) float64 { return float64(v) }), nil
	case []uint32:
		return convert(d, func(v uint32) float64 { return float64(v) }), nil
	case []int32:
		return convert(d, func(v int32) float64 { return float64(v) }), nil
	case []uint64:
		return convert(d, func(v uint64) float64 { return float64(v) }), nil
	case []int64:
		return convert(d, func(v int64) float64 { return float64(v) }), nil
	}
	return nil, fmt.Errorf("npy: %s array is not numeric", a.DType())
}

// Ints returns the elements of an integer array as int; values that do
// not fit an int are refused.
func (a *Array) Ints() ([]int, error) {
	switch d := a.Data.(type) {
	case []uint8:
		return convert(d, func(v uint8) int { return int(v) }), nil
	case []int8:
		return convert(d, func(v int8) int { return int(v) }), nil
	case []uint16:
		return convert(d, func(v uint16) int { return int(v) }), nil
	case []int16:
		return convert(d, func(v int16) int { return int(v) }), nil
	case []uint32:
		return convert(d, func(v uint32) int { return int(v) }), nil
	case []int32:
		return convert(d, func(v int32) int { return int(v) }), nil
	case []int64:
		return convert(d, func(v int64) int { return int(v) }), nil
	case []uint64:
		out := make([]int, len(d))
		for i, v := range d {
			if v > math.MaxInt64 {
				return nil, fmt.Errorf("npy: element %d (%d) does not fit an int", i, v)
			}
			out[i] = int(v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("npy: %s array is not of integers", a.DType())
}

// IsInteger reports whether the elements are integers.
func (a *Array) IsInteger() bool {
	switch a.Data.(type) {
	case []uint8, []int8, []uint16, []int16, []uint32, []int32, []uint64, []int64:
		return true
	}
	return false
}

func convert[S, T any](in []S, f func(S) T) []T {
	out := make([]T, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// elemType is a decoded type string.
type elemType struct {
	kind  byte // 'u', 'i', 'f', 'U', 'S'
	size  int  // bytes per element
	big   bool // big-endian
	runes int  // characters of a string type
}

// descr returns the type string as this package writes it (little-endian).
func (t elemType) descr() string {
	switch {
	case t.kind == 'U':
		return fmt.Sprintf("<U%d", t.runes)
	case t.kind == 'S':
		return fmt.Sprintf("|S%d", t.runes)
	case t.size == 1:
		return fmt.Sprintf("|%c1", t.kind)
	}
	return fmt.Sprintf("<%c%d", t.kind, t.size)
}

// typeOf returns the element type of a numeric data slice.
func typeOf(data any) (elemType, bool) {
	switch data.(type) {
	case []uint8:
		return elemType{kind: 'u', size: 1}, true
	case []int8:
		return elemType{kind: 'i', size: 1}, true
	case []uint16:
		return elemType{kind: 'u', size: 2}, true
	case []int16:
		return elemType{kind: 'i', size: 2}, true
	case []uint32:
		return elemType{kind: 'u', size: 4}, true
	case []int32:
		return elemType{kind: 'i', size: 4}, true
	case []uint64:
		return elemType{kind: 'u', size: 8}, true
	case []int64:
		return elemType{kind: 'i', size: 8}, true
	case []float32:
		return elemType{kind: 'f', size: 4}, true
	case []float64:
		return elemType{kind: 'f', size: 8}, true
	}
	return elemType{}, false
}

// maxStringRunes bounds the width of a string type (characters).
const maxStringRunes = 1 << 16

// parseDescr decodes a type string such as "<f4", "|u1", ">i8", "<U12".
func parseDescr(s string) (elemType, error) {
	bad := fmt.Errorf("%w: unsupported dtype %q (want integers, float32, float64 or strings)", ErrFormat, s)
	if len(s) < 3 {
		return elemType{}, bad
	}
	order, kind, num := s[0], s[1], s[2:]
	if order != '<' && order != '>' && order != '|' && order != '=' {
		return elemType{}, bad
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || strconv.Itoa(n) != num {
		return elemType{}, bad
	}
	t := elemType{kind: kind, big: order == '>'}
	if order == '=' && binary.NativeEndian.Uint16([]byte{0, 1}) == 1 {
		t.big = true
	}
	switch kind {
	case 'u', 'i':
		if n != 1 && n != 2 && n != 4 && n != 8 {
			return elemType{}, bad
		}
		t.size = n
	case 'f':
		if n != 4 && n != 8 {
			return elemType{}, fmt.Errorf("%w: dtype %q: only float32 and float64 are supported", ErrFormat, s)
		}
		t.size = n
	case 'U':
		if n < 1 || n > maxStringRunes {
			return elemType{}, fmt.Errorf("%w: dtype %q: string width must be 1 to %d characters", ErrFormat, s, maxStringRunes)
		}
		t.size, t.runes = 4*n, n
	case 'S':
		if n < 1 || n > maxStringRunes {
			return elemType{}, fmt.Errorf("%w: dtype %q: string width must be 1 to %d bytes", ErrFormat, s, maxStringRunes)
		}
		t.size, t.runes = n, n
	default:
		return elemType{}, bad
	}
	if order == '|' && t.size > 1 && kind != 'S' {
		return elemType{}, bad
	}
	return t, nil
}

// Read reads one .npy array from r, which must hold nothing after it.
// Memory grows with the bytes actually read, never with what the header
// claims.
func Read(r io.Reader) (*Array, error) { return read(r, -1, false) }

// ReadFile reads a .npy file. An array larger than the file can hold is
// refused before anything is allocated for it.
func ReadFile(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	a, err := read(f, st.Size(), true)
	if err != nil {
		return nil, fmt.Errorf("npy: %s: %w", path, err)
	}
	return a, nil
}

// read reads one array from r. size, unless negative, is the number of
// bytes r holds: a header claiming more is refused at once, and with exact
// the data is allocated in one piece (the claim being bounded by size).
func read(r io.Reader, size int64, exact bool) (*Array, error) {
	h, err := readHeader(r)
	if err != nil {
		return nil, err
	}
	if size >= 0 && h.bytes > size-h.len {
		return nil, fmt.Errorf("%w: header claims %d elements of %d bytes (shape %v), the file holds %d bytes of data", ErrFormat, h.count, h.t.size, h.shape, max(size-h.len, 0))
	}
	data, err := decode(r, h, exact && size >= 0)
	if err != nil {
		return nil, err
	}
	var one [1]byte
	switch n, err := io.ReadFull(r, one[:]); {
	case n > 0:
		return nil, fmt.Errorf("%w: data after the array (the header claims %d bytes)", ErrFormat, h.bytes)
	case err != io.EOF:
		return nil, fmt.Errorf("npy: %w", err)
	}
	if h.fortran {
		data = toCOrder(data, h.shape)
	}
	return &Array{Shape: h.shape, Data: data}, nil
}

// toCOrder returns the elements of an array stored in Fortran order
// (first index fastest) in C order (last index fastest).
func toCOrder(data any, shape []int) any {
	switch d := data.(type) {
	case []uint8:
		return fromFortran(d, shape)
	case []int8:
		return fromFortran(d, shape)
	case []uint16:
		return fromFortran(d, shape)
	case []int16:
		return fromFortran(d, shape)
	case []uint32:
		return fromFortran(d, shape)
	case []int32:
		return fromFortran(d, shape)
	case []uint64:
		return fromFortran(d, shape)
	case []int64:
		return fromFortran(d, shape)
	case []float32:
		return fromFortran(d, shape)
	case []float64:
		return fromFortran(d, shape)
	case []string:
		return fromFortran(d, shape)
	}
	return data
}

// fromFortran reorders src, the elements of an array of the given shape
// in Fortran order, into C order.
func fromFortran[T any](src []T, shape []int) []T {
	out := make([]T, len(src))
	if len(src) == 0 {
		return out
	}
	// stride[k]: the Fortran offset of a step along axis k.
	stride := make([]int, len(shape))
	s := 1
	for k, d := range shape {
		stride[k] = s
		s *= d
	}
	idx := make([]int, len(shape))
	off := 0
	for i := range out {
		out[i] = src[off]
		// Advance the C-order multi-index (last axis fastest), keeping off.
		for k := len(shape) - 1; k >= 0; k-- {
			idx[k]++
			off += stride[k]
			if idx[k] < shape[k] {
				break
			}
			off -= idx[k] * stride[k]
			idx[k] = 0
		}
	}
	return out
}

// chunk is the number of bytes decoded per read.
const chunk = 1 << 16

// decode reads the h.count elements that follow a header.
func decode(r io.Reader, h *header, prealloc bool) (any, error) {
	t := h.t
	var bo binary.ByteOrder = binary.LittleEndian
	if t.big {
		bo = binary.BigEndian
	}
	switch {
	case t.kind == 'u' && t.size == 1:
		return decodeAs(r, h, prealloc, func(b []byte) uint8 { return b[0] })
	case t.kind == 'i' && t.size == 1:
		return decodeAs(r, h, prealloc, func(b []byte) int8 { return int8(b[0]) })
	case t.kind == 'u' && t.size == 2:
		return decodeAs(r, h, prealloc, func(b []byte) uint16 { return bo.Uint16(b) })
	case t.kind == 'i' && t.size == 2:
		return decodeAs(r, h, prealloc, func(b []byte) int16 { return int16(bo.Uint16(b)) })
	case t.kind == 'u' && t.size == 4:
		return decodeAs(r, h, prealloc, func(b []byte) uint32 { return bo.Uint32(b) })
	case t.kind == 'i' && t.size == 4:
		return decodeAs(r, h, prealloc, func(b []byte) int32 { return int32(bo.Uint32(b)) })
	case t.kind == 'u' && t.size == 8:
		return decodeAs(r, h, prealloc, func(b []byte) uint64 { return bo.Uint64(b) })
	case t.kind == 'i' && t.size == 8:
		return decodeAs(r, h, prealloc, func(b []byte) int64 { return int64(bo.Uint64(b)) })
	case t.kind == 'f' && t.size == 4:
		return decodeAs(r, h, prealloc, func(b []byte) float32 { return math.Float32frombits(bo.Uint32(b)) })
	case t.kind == 'f' && t.size == 8:
		return decodeAs(r, h, prealloc, func(b []byte) float64 { return math.Float64frombits(bo.Uint64(b)) })
	case t.kind == 'S':
		return decodeAs(r, h, prealloc, func(b []byte) string { return string(bytes.TrimRight(b, "\x00")) })
	case t.kind == 'U':
		var bad error
		s, err := decodeAs(r, h, prealloc, func(b []byte) string {
			var sb strings.Builder
			for i := 0; i+4 <= len(b); i += 4 {
				c := bo.Uint32(b[i:])
				if c == 0 {
					break
				}
				if c > utf8.MaxRune || (c >= 0xD800 && c <= 0xDFFF) {
					bad = fmt.Errorf("%w: string holds the invalid code point %#x", ErrFormat, c)
					return ""
				}
				sb.WriteRune(rune(c))
			}
			// NumPy drops trailing NULs only.
			return sb.String()
		})
		if err == nil && bad != nil {
			err = bad
		}
		return s, err
	}
	return nil, fmt.Errorf("%w: unsupported dtype", ErrFormat)
}

// decodeAs reads h.count elements of h.t.size bytes each, decoded by f.
func decodeAs[T any](r io.Reader, h *header, prealloc bool, f func([]byte) T) ([]T, error) {
	n, es := int(h.count), h.t.size
	out := make([]T, 0) // not nil, also for no elements
	if prealloc {
		out = make([]T, 0, n)
	}
	per := max(1, chunk/es)
	buf := make([]byte, min(per, n)*es)
	for done := 0; done < n; {
		k := min(per, n-done)
		b := buf[:k*es]
		if got, err := io.ReadFull(r, b); err != nil {
			return nil, fmt.Errorf("%w: truncated data: the header claims %d bytes, the file holds %d", ErrFormat, h.bytes, int64(done*es+got))
		}
		for i := 0; i < k; i++ {
			out = append(out, f(b[i*es:(i+1)*es]))
		}
		done += k
	}
	return out, nil
}
