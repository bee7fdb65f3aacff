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
	"strconv"
	"strings"
	"unicode/utf8"
)

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
