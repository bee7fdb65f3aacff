package statsfile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/scn2d/scn/internal/bigmem"
)

const (
	// Magic opens every statistics file.
	Magic = "2DSCNSTA"
	// Version is the format version of statistics without a factor.
	Version = 1
	// VersionFactor is the format version of statistics with their factor.
	VersionFactor = 2
	// MaxHeader bounds the header's length in bytes.
	MaxHeader = 1 << 20
	// MaxBytes bounds what a header may claim (2^36 bytes: L up to about
	// 90000), checked before anything is read into memory.
	MaxBytes = 1 << 36
	// IOBlock is the bytes of sums a statistics file is written and read
	// in at a time.
	IOBlock = 1 << 22
)

// castagnoli is the table of the CRC-32 of the sections.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrStats is wrapped by every error about a statistics file that cannot
// be read (scn.ErrStats is this value).
var ErrStats = errors.New("scn: statistics")

// Header is the JSON header of a statistics file.
type Header struct {
	Samples     int           `json:"samples"`
	Outputs     int           `json:"outputs"`
	Nodes       int           `json:"nodes"`
	Classes     []string      `json:"classes,omitempty"`
	ClassCounts []int         `json:"class_counts,omitempty"`
	RecipeBytes int           `json:"recipe_bytes"`
	Factor      *FactorHeader `json:"factor,omitempty"`
}

// FactorHeader describes the factor section of a version 2 file.
type FactorHeader struct {
	Samples int     `json:"samples"` // the images of the G it factors
	Ridge   float64 `json:"ridge"`
}

// Triangle is the storage of a lower triangular matrix of order L: Row(i)
// is its row i, F[i][0..i], to read or to fill.
type Triangle interface {
	Row(i int) []float64
}

// Write writes a statistics file: version 2 when h.Factor is set (factor
// then holds the triangle of order h.Nodes), else version 1. The header's
// RecipeBytes is set to len(recipe). g (L x L), ht (L x m) and tt (m x m)
// are written a block of IOBlock bytes at a time (the checksum is updated
// as they go), so that writing takes no second copy of G; their lengths
// are the caller's to check.
func Write(w io.Writer, h Header, recipe []byte, g, ht, tt []float64, factor Triangle) (int64, error) {
	h.RecipeBytes = len(recipe)
	version := uint32(Version)
	if h.Factor != nil {
		version = VersionFactor
	}
	hdr, err := json.Marshal(h)
	if err != nil {
		return 0, err
	}
	le := binary.LittleEndian
	cw := &crcWriter{w: w}
	head := append([]byte(Magic), le.AppendUint32(nil, version)...)
	head = le.AppendUint32(head, uint32(len(hdr)))
	head = append(append(head, hdr...), recipe...)
	if _, err := cw.Write(head); err != nil {
		return cw.n, err
	}
	buf := make([]byte, 0, IOBlock)
	// seal writes the checksum of the section written since the last
	// (version 2) and starts the next one.
	seal := func() error {
		_, err := cw.w.Write(le.AppendUint32(nil, cw.sum))
		cw.n += 4
		cw.sum = 0
		return err
	}
	parts := [][]float64{g, ht, tt}
	for i, part := range parts {
		if version == VersionFactor && i < 2 {
			if err := seal(); err != nil {
				return cw.n, err
			}
		}
		for len(part) > 0 {
			k := min(len(part), IOBlock/8)
			if _, err := cw.Write(appendFloat64s(buf[:0], part[:k])); err != nil {
				return cw.n, err
			}
			part = part[k:]
		}
	}
	if version == VersionFactor {
		if err := seal(); err != nil {
			return cw.n, err
		}
		buf = buf[:0]
		for i := 0; i < h.Nodes; i++ {
			row := factor.Row(i)
			for len(row) > 0 {
				k := min(len(row), (cap(buf)-len(buf))/8)
				buf = appendFloat64s(buf, row[:k])
				row = row[k:]
				if len(buf) == cap(buf) {
					if _, err := cw.Write(buf); err != nil {
						return cw.n, err
					}
					buf = buf[:0]
				}
			}
		}
		if _, err := cw.Write(buf); err != nil {
			return cw.n, err
		}
	}
	n, err := w.Write(le.AppendUint32(nil, cw.sum))
	return cw.n + int64(n), err
}

// appendFloat64s appends v little-endian.
func appendFloat64s(b []byte, v []float64) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// crcWriter writes to w and keeps the CRC-32 (Castagnoli) and the count of
// the bytes written.
type crcWriter struct {
	w   io.Writer
	sum uint32
	n   int64
}

func (c *crcWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.sum = crc32.Update(c.sum, castagnoli, b[:n])
	c.n += int64(n)
	return n, err
}

// Contents is what Read read of a statistics file: the header, the
// recipe's bytes (unread: a model file) and the sums, as the file holds
// them (their values unchecked).
type Contents struct {
	Header Header
	Recipe []byte
	// G is nil when Read left it unread (Gram is then set).
	G, HT, TT []float64
	// Gram is where G was left unread (nil when G was read).
	Gram *GramAt
}

// GramAt is where Read may leave the G of a file unread: the caller sets
// the file's path and size, Read fills in the offset and checksum, and
// Load reads G from there.
type GramAt struct {
	Path      string
	Size, off int64
	l         int
	sum       uint32
}

// Load reads G from the file, checking its checksum (and that the file
// still has the size it had). The values are the caller's to check.
func (a *GramAt) Load() ([]float64, error) {
	f, err := os.Open(a.Path)
	if err != nil {
		return nil, fmt.Errorf("scn: load statistics: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() != a.Size {
		return nil, fmt.Errorf("%w: %s changed since it was opened", ErrStats, a.Path)
	}
	g := bigmem.Float64s(a.l * a.l)
	sum, err := readFloats(io.NewSectionReader(f, a.off, 8*int64(len(g))), g, make([]byte, min(IOBlock, 8*len(g))), 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrStats, a.Path, err)
	}
	if sum != a.sum {
		return nil, fmt.Errorf("%w: %s: checksum mismatch in G (corrupt file)", ErrStats, a.Path)
	}
	return g, nil
}

// readFloats fills dst from r a block (buf) at a time and returns the
// CRC-32 of the bytes read updated from sum.
func readFloats(r io.Reader, dst []float64, buf []byte, sum uint32) (uint32, error) {
	le := binary.LittleEndian
	for len(dst) > 0 {
		k := min(len(dst), len(buf)/8)
		b := buf[:8*k]
		if _, err := io.ReadFull(r, b); err != nil {
			return sum, err
		}
		sum = crc32.Update(sum, castagnoli, b)
		for i := range dst[:k] {
			dst[i] = math.Float64frombits(le.Uint64(b[8*i:]))
		}
		dst = dst[k:]
	}
	return sum, nil
}

// Read reads a statistics file holding size bytes (-1: unknown) from r,
// checking the magic, version, header, every size against the header
// before reading it, and the checksums. Of a known size the header's
// claims are checked against it before anything large is allocated;
// otherwise the rest of the file is read in blocks first (so that a header
// claiming more than the data holds allocates no more than the data). With
// skip (r an io.Seeker of known size), the G of a version 2 file holding
// the factor of its own G is skipped (its offset and checksum kept in
// skip, returned as Contents.Gram). newFactor returns the storage of a
// factor of order l, which Read fills (called for version 2 files only,
// once the sections before it are read and checked).
func Read(r io.Reader, size int64, skip *GramAt, newFactor func(l int) Triangle) (*Contents, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrStats, fmt.Sprintf(format, a...))
	}
	pre := make([]byte, 16)
	if _, err := io.ReadFull(r, pre); err != nil {
		return nil, bad("truncated preamble")
	}
	le := binary.LittleEndian
	if string(pre[:8]) != Magic {
		return nil, bad("not a statistics file (magic %q)", pre[:8])
	}
	version := le.Uint32(pre[8:])
	if version != Version && version != VersionFactor {
		return nil, bad("format version %d, want %d or %d", version, Version, VersionFactor)
	}
	hlen := int64(le.Uint32(pre[12:]))
	if hlen < 2 || hlen > MaxHeader {
		return nil, bad("header length %d", hlen)
	}
	raw := make([]byte, hlen)
	if _, err := io.ReadFull(r, raw); err != nil {
		return nil, bad("truncated header")
	}
	sum := crc32.Update(crc32.Update(0, castagnoli, pre), castagnoli, raw)
	var h Header
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, bad("header: %v", err)
	}
	switch {
	case h.Samples < 1 || h.Outputs < 1 || h.Nodes < 1 || h.RecipeBytes < 1:
		return nil, bad("header claims %d images, %d outputs, %d nodes, a recipe of %d bytes", h.Samples, h.Outputs, h.Nodes, h.RecipeBytes)
	case h.Classes != nil && (len(h.Classes) != h.Outputs || len(h.ClassCounts) != h.Outputs):
		return nil, bad("%d class names and %d counts for %d outputs", len(h.Classes), len(h.ClassCounts), h.Outputs)
	case (h.Factor != nil) != (version == VersionFactor):
		return nil, bad("format version %d with a factor section: %v", version, h.Factor != nil)
	case h.Factor != nil && (h.Factor.Samples < 1 || h.Factor.Samples > h.Samples):
		return nil, bad("a factor of the G of %d images in statistics of %d", h.Factor.Samples, h.Samples)
	case h.Factor != nil && (!(h.Factor.Ridge >= 0) || math.IsInf(h.Factor.Ridge, 0)):
		return nil, bad("a factor with ridge %v", h.Factor.Ridge)
	}
	l, m := float64(h.Nodes), float64(h.Outputs)
	sums := 8 * (l*l + l*m + m*m)
	fbytes := 0.0
	if h.Factor != nil {
		fbytes = 4*l*(l+1) + 12
	}
	if float64(h.RecipeBytes)+sums+fbytes+4 > MaxBytes {
		return nil, bad("header claims %d nodes and %d outputs: %.3g bytes, too large", h.Nodes, h.Outputs, sums+fbytes)
	}
	rest := int64(h.RecipeBytes) + int64(sums) + int64(fbytes) + 4
	if size >= 0 {
		switch have := size - 16 - hlen; {
		case have < rest:
			return nil, bad("truncated: %d of %d bytes after the header", have, rest)
		case have > rest:
			return nil, bad("trailing bytes after the checksum")
		}
	} else {
		var err error
		if r, err = readBlocks(r, rest); err != nil {
			return nil, bad("%v", err)
		}
	}
	recBytes := make([]byte, h.RecipeBytes)
	if _, err := io.ReadFull(r, recBytes); err != nil {
		return nil, bad("truncated recipe")
	}
	sum = crc32.Update(sum, castagnoli, recBytes)
	var want [4]byte
	// check reads a section's checksum and compares it with sum.
	check := func(what string) error {
		if _, err := io.ReadFull(r, want[:]); err != nil {
			return bad("truncated checksum")
		}
		if sum != le.Uint32(want[:]) {
			return bad("checksum mismatch in %s (corrupt file)", what)
		}
		sum = 0
		return nil
	}
	if version == VersionFactor {
		if err := check("the header"); err != nil {
			return nil, err
		}
	}
	ln, mn := h.Nodes, h.Outputs
	c := &Contents{Header: h, Recipe: recBytes, HT: make([]float64, ln*mn), TT: make([]float64, mn*mn)}
	buf := make([]byte, min(IOBlock, int(sums)))
	sk, _ := r.(io.Seeker)
	if skip != nil && sk != nil && h.Factor != nil && h.Factor.Samples == h.Samples {
		off, err := sk.Seek(8*int64(ln)*int64(ln), io.SeekCurrent)
		if err != nil {
			return nil, bad("%v", err)
		}
		if _, err := io.ReadFull(r, want[:]); err != nil {
			return nil, bad("truncated checksum")
		}
		skip.off, skip.l, skip.sum = off-8*int64(ln)*int64(ln), ln, le.Uint32(want[:])
		c.Gram = skip
	} else {
		c.G = bigmem.Float64s(ln * ln)
		var err error
		if sum, err = readFloats(r, c.G, buf, sum); err != nil {
			return nil, bad("truncated sums")
		}
		if version == VersionFactor {
			if err := check("G"); err != nil {
				return nil, err
			}
		}
	}
	for _, part := range [][]float64{c.HT, c.TT} {
		var err error
		if sum, err = readFloats(r, part, buf, sum); err != nil {
			return nil, bad("truncated sums")
		}
	}
	if version == VersionFactor {
		if err := check("H^T T and T^T T"); err != nil {
			return nil, err
		}
		t := newFactor(ln)
		// The rows of the lower triangle, one after another: read as one
		// stream a block at a time.
		left := int64(4 * l * (l + 1))
		row, col := 0, 0
		for left > 0 {
			b := buf[:min(int64(len(buf)), left)]
			if _, err := io.ReadFull(r, b); err != nil {
				return nil, bad("truncated factor")
			}
			sum = crc32.Update(sum, castagnoli, b)
			left -= int64(len(b))
			for len(b) > 0 {
				k := min(len(b)/8, row+1-col)
				dst := t.Row(row)[col : col+k]
				for i := range dst {
					dst[i] = math.Float64frombits(le.Uint64(b[8*i:]))
				}
				b = b[8*k:]
				if col += k; col > row {
					row, col = row+1, 0
				}
			}
		}
		if err := check("the factor"); err != nil {
			return nil, err
		}
	} else if err := check("the file"); err != nil {
		return nil, err
	}
	if size >= 0 {
		if n, _ := io.ReadFull(r, buf[:1]); n != 0 {
			return nil, bad("trailing bytes after the checksum")
		}
	}
	return c, nil
}

// readBlocks reads the rest of a statistics file of unknown size, which
// must hold exactly n more bytes, in blocks (no block is allocated before
// the data to fill it has arrived), and returns a reader of them.
func readBlocks(r io.Reader, n int64) (io.Reader, error) {
	var parts []io.Reader
	for left := n; left > 0; {
		b := make([]byte, min(left, IOBlock))
		got, err := io.ReadFull(r, b)
		if err != nil {
			return nil, fmt.Errorf("truncated: %d of %d bytes after the header", n-left+int64(got), n)
		}
		parts = append(parts, bytes.NewReader(b))
		left -= int64(got)
	}
	if k, _ := io.ReadFull(r, make([]byte, 1)); k != 0 {
		return nil, errors.New("trailing bytes after the checksum")
	}
	return io.MultiReader(parts...), nil
}
