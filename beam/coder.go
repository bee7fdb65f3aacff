package scnbeam

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The parts and folds travel between Beam workers in a compact binary
// form (little-endian float64 values, varint lengths), registered as
// their Beam coders in pipeline.go; decoding checks every length against
// the bytes left before allocating.

// EncodePart returns p's wire form.
func EncodePart(p Part) []byte {
	return appendPart(nil, p)
}

// DecodePart reads a part written by EncodePart.
func DecodePart(b []byte) (Part, error) {
	r := &reader{b: b}
	p := r.part()
	if r.err == nil && len(r.b) > 0 {
		r.err = fmt.Errorf("%d trailing bytes", len(r.b))
	}
	if r.err != nil {
		return Part{}, fmt.Errorf("%w: decode part: %v", ErrParts, r.err)
	}
	return p, nil
}

// EncodeFold returns f's wire form.
func EncodeFold(f Fold) []byte {
	b := binary.AppendUvarint(nil, uint64(f.Next))
	if f.Has {
		b = append(b, 1)
		b = appendPart(b, f.Sum)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(f.Pending)))
	for _, p := range f.Pending {
		b = appendPart(b, p)
	}
	return b
}

// DecodeFold reads a fold written by EncodeFold.
func DecodeFold(b []byte) (Fold, error) {
	r := &reader{b: b}
	var f Fold
	f.Next = r.int()
	switch r.byte() {
	case 0:
	case 1:
		f.Has, f.Sum = true, r.part()
	default:
		r.fail("bad flag")
	}
	n := r.count(1)
	for i := 0; i < n && r.err == nil; i++ {
		f.Pending = append(f.Pending, r.part())
	}
	if r.err == nil && len(r.b) > 0 {
		r.err = fmt.Errorf("%d trailing bytes", len(r.b))
	}
	if r.err != nil {
		return Fold{}, fmt.Errorf("%w: decode fold: %v", ErrParts, r.err)
	}
	return f, nil
}

func appendPart(b []byte, p Part) []byte {
	b = appendString(b, p.Key)
	b = binary.AppendUvarint(b, uint64(p.Shard))
	b = binary.AppendUvarint(b, uint64(p.M))
	b = binary.AppendUvarint(b, uint64(p.N))
	if p.Cols == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(p.Cols)))
		for _, c := range p.Cols {
			b = appendString(b, c)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(p.Counts)))
	for _, c := range p.Counts {
		b = binary.AppendUvarint(b, uint64(c))
	}
	b = binary.AppendUvarint(b, uint64(len(p.V)))
	for _, v := range p.V {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// reader decodes the wire form, keeping the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s", what)
	}
	r.b = nil
}

func (r *reader) byte() byte {
	if len(r.b) < 1 {
		r.fail("truncated")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// int reads a varint that must fit a non-negative int.
func (r *reader) int() int {
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > math.MaxInt32*1<<16 {
		r.fail("bad varint")
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

// count reads a length of items of at least size bytes each, checked
// against the bytes left.
func (r *reader) count(size int) int {
	n := r.int()
	if r.err == nil && n > len(r.b)/size {
		r.fail(fmt.Sprintf("length %d beyond the %d bytes left", n, len(r.b)))
		return 0
	}
	return n
}

func (r *reader) string() string {
	n := r.count(1)
	if r.err != nil {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *reader) part() Part {
	var p Part
	p.Key = r.string()
	p.Shard, p.M, p.N = r.int(), r.int(), r.int()
	switch r.byte() {
	case 0:
	case 1:
		n := r.count(1)
		p.Cols = make([]string, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			p.Cols = append(p.Cols, r.string())
		}
	default:
		r.fail("bad flag")
	}
	if n := r.count(1); n > 0 {
		p.Counts = make([]int, n)
		for i := range p.Counts {
			p.Counts[i] = r.int()
		}
	}
	if n := r.count(8); n > 0 {
		p.V = make([]float64, n)
		for i := range p.V {
			p.V[i] = math.Float64frombits(binary.LittleEndian.Uint64(r.b[8*i:]))
		}
		r.b = r.b[8*n:]
	}
	if r.err != nil {
		return Part{}
	}
	return p
}
