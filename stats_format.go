package scn

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

	"github.com/scn2d/scn/internal/atomicfile"
	"github.com/scn2d/scn/internal/bigmem"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/modelfile"
)

// Statistics files, little-endian. Format version 1 (no factor):
//
//	offset  size  content
//	0       8     magic "2DSCNSTA"
//	8       4     format version (uint32), 1
//	12      4     header length H (uint32), at most 1 MiB
//	16      H     header: UTF-8 JSON (statsHeader): images, outputs, class
//	              names and counts, nodes, the recipe's length R
//	16+H    R     the recipe: a model file (its own magic and checksum)
//	        ...   G: L x L float64, H^T T: L x m float64, T^T T: m x m float64
//	end-4   4     CRC-32 (Castagnoli) of every byte before it
//
// so a file takes 20 + H + R + 8 (L^2 + L m + m^2) bytes. Version 2 (the
// statistics with their Factor, Stats.Factor not nil) checks each section
// on its own, so that a reader can skip G (OpenStats):
//
//	0       16+H+R  as version 1 (version 2; the header's "factor" holds
//	                the factor's images N_f and ridge)
//	        4       CRC-32 of the bytes before it
//	        8 L^2   G, then 4: CRC-32 of G's bytes
//	        8 (L m + m^2)  H^T T and T^T T, then 4: their CRC-32
//	        4 L (L+1)      the factor's lower triangle by rows (row i:
//	                       F[i][0..i]), then 4: its CRC-32
//
// 32 + H + R + 8 (L^2 + L m + m^2) + 4 L (L + 1) bytes. Statistics
// without a factor are written as version 1, as before.
const (
	statsMagic     = "2DSCNSTA"
	statsVersion   = 1
	statsVersionF  = 2
	statsMaxFormat = statsVersionF
	// maxStatsBytes bounds what a header may claim (2^36 bytes: L up to
	// about 90000), checked before anything is read into memory.
	maxStatsBytes = 1 << 36
)

type statsHeader struct {
	Samples     int           `json:"samples"`
	Outputs     int           `json:"outputs"`
	Nodes       int           `json:"nodes"`
	Classes     []string      `json:"classes,omitempty"`
	ClassCounts []int         `json:"class_counts,omitempty"`
	RecipeBytes int           `json:"recipe_bytes"`
	Factor      *factorHeader `json:"factor,omitempty"`
}

// factorHeader describes the factor section of a version 2 file.
type factorHeader struct {
	Samples int     `json:"samples"` // the images of the G it factors
	Ridge   float64 `json:"ridge"`
}

// WriteTo writes the statistics in their file format (version 2 with a
// factor, 1 without), the sums a block of statsIOBlock bytes at a time
// (the checksum is updated as they go), so that writing takes no second
// copy of G.
func (s *Stats) WriteTo(w io.Writer) (int64, error) {
	var rec bytes.Buffer
	if _, err := s.Recipe.WriteTo(&rec); err != nil {
		return 0, err
	}
	g, err := s.gram()
	if err != nil {
		return 0, err
	}
	l, m := s.Nodes(), s.M
	if len(g) != l*l || len(s.HT) != l*m || len(s.TT) != m*m {
		return 0, fmt.Errorf("%w: sums of %d, %d and %d values for L = %d, m = %d", ErrStats, len(g), len(s.HT), len(s.TT), l, m)
	}
	h := statsHeader{Samples: s.N, Outputs: m, Nodes: l, Classes: s.Classes, ClassCounts: s.ClassCounts, RecipeBytes: rec.Len()}
	version := uint32(statsVersion)
	if f := s.Factor; f != nil {
		if err := checkFactor(f, l, s.N); err != nil {
			return 0, err
		}
		version = statsVersionF
		h.Factor = &factorHeader{Samples: f.N, Ridge: f.Ridge}
	}
	hdr, err := json.Marshal(h)
	if err != nil {
		return 0, err
	}
	le := binary.LittleEndian
	cw := &crcWriter{w: w}
	head := append([]byte(statsMagic), le.AppendUint32(nil, version)...)
	head = le.AppendUint32(head, uint32(len(hdr)))
	head = append(append(head, hdr...), rec.Bytes()...)
	if _, err := cw.Write(head); err != nil {
		return cw.n, err
	}
	buf := make([]byte, 0, statsIOBlock)
	// seal writes the checksum of the section written since the last
	// (version 2) and starts the next one.
	seal := func() error {
		_, err := cw.w.Write(le.AppendUint32(nil, cw.sum))
		cw.n += 4
		cw.sum = 0
		return err
	}
	parts := [][]float64{g, s.HT, s.TT}
	for i, part := range parts {
		if version == statsVersionF && i < 2 {
			if err := seal(); err != nil {
				return cw.n, err
			}
		}
		for len(part) > 0 {
			k := min(len(part), statsIOBlock/8)
			if _, err := cw.Write(modelfile.AppendFloat64s(buf[:0], part[:k])); err != nil {
				return cw.n, err
			}
			part = part[k:]
		}
	}
	if version == statsVersionF {
		if err := seal(); err != nil {
			return cw.n, err
		}
		buf = buf[:0]
		t := s.Factor.tri()
		for i := 0; i < l; i++ {
			row := t.Row(i)
			for len(row) > 0 {
				k := min(len(row), (cap(buf)-len(buf))/8)
				buf = modelfile.AppendFloat64s(buf, row[:k])
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

// statsIOBlock is the bytes of sums a statistics file is written and read
// in at a time.
const statsIOBlock = 1 << 22

// crcWriter writes to w and keeps the CRC-32 (Castagnoli) and the count of
// the bytes written.
type crcWriter struct {
	w   io.Writer
	sum uint32
	n   int64
}

func (c *crcWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.sum = crc32.Update(c.sum, modelfile.Castagnoli, b[:n])
	c.n += int64(n)
	return n, err
}

// Save writes the statistics to path atomically (as Model.Save).
func (s *Stats) Save(path string) error {
	if err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := s.WriteTo(w)
		return err
	}); err != nil {
		return wrapErr("save "+path, err)
	}
	return nil
}

// LoadStats reads a statistics file written by Stats.Save. The file's size
// is checked against its header before the sums are allocated, and they
// are then read into place a block at a time.
func LoadStats(path string) (*Stats, error) { return loadStats(path, false) }

// OpenStats reads a statistics file as LoadStats does, except that the G
// of a file holding the factor of its own G (version 2, Stats.Factor with
// N = Stats.N) is not read: G stays nil until a method needs it (Merge,
// Solve, WriteTo, Factorize, and Model.Update when the factor does not
// serve), which then reads it from path and checks its checksum. An
// update with the stored factor (scn update without --stats-out) never
// reads G: the file's largest part.
func OpenStats(path string) (*Stats, error) { return loadStats(path, true) }

func loadStats(path string, lazy bool) (*Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scn: load statistics: %w", err)
	}
	defer f.Close()
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	var skip *gramAt
	if lazy && size >= 0 {
		skip = &gramAt{path: path, size: size}
	}
	s, err := readStats(f, size, skip)
	if err != nil {
		return nil, wrapErr(path, err)
	}
	return s, nil
}

// gramAt is where OpenStats left G unread: readStats fills in the offset
// and checksum, and loadG reads it from there.
type gramAt struct {
	path      string
	size, off int64
	l         int
	sum       uint32
}

// load reads G from the file, checking its checksum (and that the file
// still has the size it had).
func (a *gramAt) load() ([]float64, error) {
	f, err := os.Open(a.path)
	if err != nil {
		return nil, fmt.Errorf("scn: load statistics: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() != a.size {
		return nil, fmt.Errorf("%w: %s changed since it was opened", ErrStats, a.path)
	}
	g := bigmem.Float64s(a.l * a.l)
	sum, err := readFloats(io.NewSectionReader(f, a.off, 8*int64(len(g))), g, make([]byte, min(statsIOBlock, 8*len(g))), 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrStats, a.path, err)
	}
	if sum != a.sum {
		return nil, fmt.Errorf("%w: %s: checksum mismatch in G (corrupt file)", ErrStats, a.path)
	}
	if err := checkFinite(g, "statistics"); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrStats, a.path, err)
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
		sum = crc32.Update(sum, modelfile.Castagnoli, b)
		for i := range dst[:k] {
			dst[i] = math.Float64frombits(le.Uint64(b[8*i:]))
		}
		dst = dst[k:]
	}
	return sum, nil
}

// ReadStats reads statistics from r, checking the magic, version, header,
// every size against the header before reading it, the embedded recipe and
// the checksums.
func ReadStats(r io.Reader) (*Stats, error) { return readStats(r, -1, nil) }

// readStats is ReadStats of a reader holding size bytes (-1: unknown). Of
// a known size the header's claims are checked against it before anything
// large is allocated; otherwise the rest of the file is read in blocks
// first (so that a header claiming more than the data holds allocates no
// more than the data). With skip (r an io.Seeker of known size), the G of
// a version 2 file holding the factor of its own G is skipped (its offset
// and checksum kept in skip, and Stats.loadG set).
func readStats(r io.Reader, size int64, skip *gramAt) (*Stats, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrStats, fmt.Sprintf(format, a...))
	}
	pre := make([]byte, 16)
	if _, err := io.ReadFull(r, pre); err != nil {
		return nil, bad("truncated preamble")
	}
	le := binary.LittleEndian
	if string(pre[:8]) != statsMagic {
		return nil, bad("not a statistics file (magic %q)", pre[:8])
	}
	version := le.Uint32(pre[8:])
	if version != statsVersion && version != statsVersionF {
		return nil, bad("format version %d, want %d or %d", version, statsVersion, statsVersionF)
	}
	hlen := int64(le.Uint32(pre[12:]))
	if hlen < 2 || hlen > modelfile.MaxHeader {
		return nil, bad("header length %d", hlen)
	}
	raw := make([]byte, hlen)
	if _, err := io.ReadFull(r, raw); err != nil {
		return nil, bad("truncated header")
	}
	sum := crc32.Update(crc32.Update(0, modelfile.Castagnoli, pre), modelfile.Castagnoli, raw)
	var h statsHeader
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
	case (h.Factor != nil) != (version == statsVersionF):
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
	if float64(h.RecipeBytes)+sums+fbytes+4 > maxStatsBytes {
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
	sum = crc32.Update(sum, modelfile.Castagnoli, recBytes)
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
	if version == statsVersionF {
		if err := check("the header"); err != nil {
			return nil, err
		}
	}
	ln, mn := h.Nodes, h.Outputs
	s := &Stats{N: h.Samples, M: mn, Classes: h.Classes, ClassCounts: h.ClassCounts,
		HT: make([]float64, ln*mn), TT: make([]float64, mn*mn)}
	buf := make([]byte, min(statsIOBlock, int(sums)))
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
		s.loadG = skip.load
	} else {
		s.G = bigmem.Float64s(ln * ln)
		var err error
		if sum, err = readFloats(r, s.G, buf, sum); err != nil {
			return nil, bad("truncated sums")
		}
		if version == statsVersionF {
			if err := check("G"); err != nil {
				return nil, err
			}
		}
	}
	for _, part := range [][]float64{s.HT, s.TT} {
		var err error
		if sum, err = readFloats(r, part, buf, sum); err != nil {
			return nil, bad("truncated sums")
		}
	}
	if version == statsVersionF {
		if err := check("H^T T and T^T T"); err != nil {
			return nil, err
		}
		fa := &Factor{N: h.Factor.Samples, Ridge: h.Factor.Ridge, l: ln, p: bigmem.Float64s(lsq.PackedLen(ln))}
		t := fa.tri()
		// The rows of the lower triangle, one after another: read as one
		// stream a block at a time.
		left := int64(4 * l * (l + 1))
		row, col := 0, 0
		for left > 0 {
			b := buf[:min(int64(len(buf)), left)]
			if _, err := io.ReadFull(r, b); err != nil {
				return nil, bad("truncated factor")
			}
			sum = crc32.Update(sum, modelfile.Castagnoli, b)
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
		s.Factor = fa
	} else if err := check("the file"); err != nil {
		return nil, err
	}
	if size >= 0 {
		if n, _ := io.ReadFull(r, buf[:1]); n != 0 {
			return nil, bad("trailing bytes after the checksum")
		}
	}
	rec, err := Read(bytes.NewReader(recBytes))
	if err != nil {
		return nil, bad("recipe: %v", err)
	}
	if rec.Nodes()+rec.DirectDim() != h.Nodes {
		return nil, bad("recipe of %d nodes and %d direct features, header says %d columns", rec.Nodes(), rec.DirectDim(), h.Nodes)
	}
	s.Recipe = rec
	for _, part := range [][]float64{s.G, s.HT, s.TT} {
		if err := checkFinite(part, "statistics"); err != nil {
			return nil, bad("%v", err)
		}
	}
	if s.Factor != nil {
		if err := checkFactor(s.Factor, ln, s.N); err != nil {
			return nil, bad("%v", err)
		}
	}
	return s, nil
}

// readBlocks reads the rest of a statistics file of unknown size, which
// must hold exactly n more bytes, in blocks (no block is allocated before
// the data to fill it has arrived), and returns a reader of them.
func readBlocks(r io.Reader, n int64) (io.Reader, error) {
	var parts []io.Reader
	for left := n; left > 0; {
		b := make([]byte, min(left, statsIOBlock))
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
