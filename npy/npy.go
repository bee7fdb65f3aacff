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
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
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

// File layout.
const (
	magic = "\x93NUMPY"
	// maxHeader bounds the header's length; NumPy itself refuses headers
	// over 10000 bytes unless told otherwise.
	maxHeader = 1 << 16
)

// header is a decoded .npy header.
type header struct {
	t     elemType
	shape []int
	count int64 // elements
	bytes int64 // data bytes
	len   int64 // bytes before the data (magic, version, length, dict)
	// fortran says the data are in Fortran (column-major) order; the
	// reader puts them in C order.
	fortran bool
	descr   string // the type string as the file writes it
}

// readHeader reads and checks a .npy header.
func readHeader(r io.Reader) (*header, error) {
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:8]); err != nil {
		return nil, fmt.Errorf("%w: truncated header", ErrFormat)
	}
	if string(pre[:6]) != magic {
		return nil, fmt.Errorf("%w: wrong magic %q, not a .npy file", ErrFormat, pre[:6])
	}
	major, minor := pre[6], pre[7]
	var hlen, plen int64
	switch {
	case major == 1 && minor == 0:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return nil, fmt.Errorf("%w: truncated header", ErrFormat)
		}
		hlen, plen = int64(binary.LittleEndian.Uint16(pre[8:])), 10
	case (major == 2 || major == 3) && minor == 0:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("%w: truncated header", ErrFormat)
		}
		hlen, plen = int64(binary.LittleEndian.Uint32(b[:])), 12
	default:
		return nil, fmt.Errorf("%w: format version %d.%d (this reader knows 1.0, 2.0 and 3.0)", ErrFormat, major, minor)
	}
	if hlen > maxHeader {
		return nil, fmt.Errorf("%w: header of %d bytes exceeds %d", ErrFormat, hlen, maxHeader)
	}
	raw := make([]byte, hlen)
	if _, err := io.ReadFull(r, raw); err != nil {
		return nil, fmt.Errorf("%w: truncated header (%d bytes claimed)", ErrFormat, hlen)
	}
	if major < 3 && !utf8.Valid(raw) {
		// Versions 1 and 2 are latin-1; every header this reader accepts is
		// ASCII, so decoding as UTF-8 changes nothing it would accept.
		raw = bytes.ToValidUTF8(raw, []byte("?"))
	}
	h, err := parseHeader(string(raw))
	if err != nil {
		return nil, err
	}
	h.len = plen + hlen
	return h, nil
}

// parseHeader decodes the header dictionary, a Python literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }.
func parseHeader(s string) (*header, error) {
	p := &pyParser{s: s}
	fields, err := p.dict()
	if err != nil {
		return nil, fmt.Errorf("%w: header %q: %v", ErrFormat, clip(s), err)
	}
	if rest := strings.TrimRight(s[p.i:], " \t\r\n\x00"); rest != "" {
		return nil, fmt.Errorf("%w: header %q: text after the dictionary", ErrFormat, clip(s))
	}
	descr, ok1 := fields["descr"].(string)
	fortran, ok2 := fields["fortran_order"].(bool)
	shape, ok3 := fields["shape"].([]int)
	if len(fields) != 3 || !ok1 || !ok2 || !ok3 {
		if _, isList := fields["descr"].([]any); isList {
			return nil, fmt.Errorf("%w: structured arrays (a record dtype) are not supported", ErrFormat)
		}
		return nil, fmt.Errorf("%w: header %q: want exactly the keys descr (a string), fortran_order (a bool) and shape (a tuple of integers)", ErrFormat, clip(s))
	}
	t, err := parseDescr(descr)
	if err != nil {
		return nil, err
	}
	h := &header{t: t, shape: shape, count: 1, fortran: fortran && len(shape) > 1, descr: descr}
	for _, d := range shape {
		if d > 0 && h.count > math.MaxInt32*int64(math.MaxInt32)/int64(d) {
			return nil, fmt.Errorf("%w: shape %v is too large", ErrFormat, shape)
		}
		h.count *= int64(d)
	}
	if t.size > 0 && h.count > math.MaxInt64/int64(t.size) {
		return nil, fmt.Errorf("%w: shape %v is too large", ErrFormat, shape)
	}
	h.bytes = h.count * int64(t.size)
	return h, nil
}

// clip shortens a header for an error message.
func clip(s string) string {
	s = strings.TrimRight(s, " \n")
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// pyParser reads the subset of Python literals .npy headers use: a dict of
// string keys to strings, True/False and tuples of integers.
type pyParser struct {
	s string
	i int
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) eat(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *pyParser) dict() (map[string]any, error) {
	if !p.eat('{') {
		return nil, errors.New("not a dictionary")
	}
	out := map[string]any{}
	for {
		if p.eat('}') {
			return out, nil
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		if !p.eat(':') {
			return nil, errors.New("missing ':'")
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("key %q twice", k)
		}
		out[k] = v
		if !p.eat(',') {
			if p.eat('}') {
				return out, nil
			}
			return nil, errors.New("missing ',' or '}'")
		}
	}
}

func (p *pyParser) str() (string, error) {
	p.space()
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", errors.New("want a string")
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	if strings.IndexByte(v, '\\') >= 0 {
		return "", errors.New("escapes in strings are not supported")
	}
	p.i += end + 2
	return v, nil
}

func (p *pyParser) value() (any, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, errors.New("missing value")
	}
	switch c := p.s[p.i]; {
	case c == '\'' || c == '"':
		return p.str()
	case strings.HasPrefix(p.s[p.i:], "True"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "False"):
		p.i += 5
		return false, nil
	case c == '(':
		return p.tuple()
	case c == '[':
		return []any{}, errors.New("structured arrays (a record dtype) are not supported")
	}
	return nil, fmt.Errorf("unexpected %q", p.s[p.i:min(len(p.s), p.i+10)])
}

// maxDims bounds the number of dimensions (NumPy's own limit is 32, 64
// since NumPy 2).
const maxDims = 64

func (p *pyParser) tuple() ([]int, error) {
	p.eat('(')
	out := []int{}
	for {
		if p.eat(')') {
			return out, nil
		}
		p.space()
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j == p.i {
			return nil, errors.New("shape: want non-negative integers")
		}
		n, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
		if err != nil || n > math.MaxInt32*int64(math.MaxInt32) {
			return nil, fmt.Errorf("shape: dimension %s is too large", p.s[p.i:j])
		}
		p.i = j
		if p.i < len(p.s) && p.s[p.i] == 'L' { // Python 2's long literals
			p.i++
		}
		out = append(out, int(n))
		if len(out) > maxDims {
			return nil, fmt.Errorf("shape: more than %d dimensions", maxDims)
		}
		if !p.eat(',') {
			if p.eat(')') {
				return out, nil
			}
			return nil, errors.New("shape: missing ',' or ')'")
		}
	}
}

// Header is what a .npy header says of its array: enough to know the
// memory reading it will take without reading its data.
type Header struct {
	Shape []int // the array's shape (empty for a scalar)
	// DType is the element type as the file writes it, e.g. "<f4", "|u1",
	// ">i8", "<U12"; only the types Read supports are accepted.
	DType string
	// Fortran says the data are stored in Fortran (column-major) order.
	Fortran bool
}

// ReadHeader reads and checks the header of a .npy array from r and
// stops there: nothing is allocated for the data, and a header that
// claims more data than r holds is not noticed (Read refuses it).
func ReadHeader(r io.Reader) (Header, error) {
	h, err := readHeader(r)
	if err != nil {
		return Header{}, err
	}
	return h.export(), nil
}

// export returns the public part of h.
func (h *header) export() Header {
	return Header{Shape: append([]int(nil), h.shape...), DType: h.descr, Fortran: h.fortran}
}

// ReadFileHeader reads the header of a .npy file (ReadHeader).
func ReadFileHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, fmt.Errorf("npy: %w", err)
	}
	defer f.Close()
	h, err := ReadHeader(bufio.NewReaderSize(f, 4096))
	if err != nil {
		return Header{}, fmt.Errorf("npy: %s: %w", path, err)
	}
	return h, nil
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

// Write writes a as a .npy array: format version 1.0 (2.0 when the header
// needs it), little-endian, C order, the header padded so that the data
// start at a multiple of 64 bytes, as numpy.save does. Strings are written
// as unicode ('<U n', n the longest string's length in characters).
func Write(w io.Writer, a *Array) error {
	if err := a.check(); err != nil {
		return err
	}
	var data []byte
	var descr string
	le := binary.LittleEndian
	switch d := a.Data.(type) {
	case []string:
		n := maxRunes(d)
		descr = fmt.Sprintf("<U%d", n)
		data = make([]byte, 0, 4*n*len(d))
		for _, s := range d {
			k := 0
			for _, c := range s {
				data = le.AppendUint32(data, uint32(c))
				k++
			}
			data = append(data, make([]byte, 4*(n-k))...)
		}
	default:
		t, _ := typeOf(a.Data)
		descr = t.descr()
		data = encode(a.Data)
	}
	shape := make([]string, len(a.Shape))
	for i, d := range a.Shape {
		shape[i] = strconv.Itoa(d)
	}
	tuple := "(" + strings.Join(shape, ", ") + ")"
	if len(shape) == 1 {
		tuple = "(" + shape[0] + ",)"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, tuple)
	pre := []byte(magic + "\x01\x00")
	lenBytes := 2
	if len(dict)+1+10+64 > math.MaxUint16 {
		pre, lenBytes = []byte(magic+"\x02\x00"), 4
	}
	total := len(pre) + lenBytes + len(dict) + 1
	pad := (64 - total%64) % 64
	hlen := len(dict) + pad + 1
	if lenBytes == 2 {
		pre = le.AppendUint16(pre, uint16(hlen))
	} else {
		pre = le.AppendUint32(pre, uint32(hlen))
	}
	pre = append(pre, dict...)
	pre = append(pre, bytes.Repeat([]byte{' '}, pad)...)
	pre = append(pre, '\n')
	if _, err := w.Write(pre); err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	return nil
}

// maxRunes returns the length in characters of the longest string (at
// least 1, as NumPy's smallest unicode type is '<U1').
func maxRunes(s []string) int {
	n := 1
	for _, v := range s {
		n = max(n, utf8.RuneCountInString(v))
	}
	return n
}

// encode returns the little-endian bytes of a numeric slice.
func encode(data any) []byte {
	le := binary.LittleEndian
	var b []byte
	switch d := data.(type) {
	case []uint8:
		return append(b, d...)
	case []int8:
		for _, v := range d {
			b = append(b, byte(v))
		}
	case []uint16:
		for _, v := range d {
			b = le.AppendUint16(b, v)
		}
	case []int16:
		for _, v := range d {
			b = le.AppendUint16(b, uint16(v))
		}
	case []uint32:
		for _, v := range d {
			b = le.AppendUint32(b, v)
		}
	case []int32:
		for _, v := range d {
			b = le.AppendUint32(b, uint32(v))
		}
	case []uint64:
		for _, v := range d {
			b = le.AppendUint64(b, v)
		}
	case []int64:
		for _, v := range d {
			b = le.AppendUint64(b, uint64(v))
		}
	case []float32:
		for _, v := range d {
			b = le.AppendUint32(b, math.Float32bits(v))
		}
	case []float64:
		for _, v := range d {
			b = le.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b
}

// WriteFile writes a to path as a .npy file, atomically.
func WriteFile(path string, a *Array) error {
	return writeAtomic(path, func(w io.Writer) error { return Write(w, a) })
}

// writeAtomic writes a file through a temporary file in the same folder,
// synced and renamed over path, so that path holds either its old content
// or the whole new one.
func writeAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("npy: write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	err = write(f)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp makes 0600 files
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("npy: write %s: %w", path, err)
	}
	return nil
}
