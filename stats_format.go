package scn

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/scn2d/scn/internal/atomicfile"
	"github.com/scn2d/scn/internal/statsfile"
	"github.com/scn2d/scn/internal/suffstats"
)

// The statistics file's mapping: Stats to the sections of a .scnstats file
// and back, the recipe read as a model file and the sums' values checked;
// the bytes (format versions 1 and 2, the lazy G) are internal/statsfile's,
// whose doc describes the format.

// WriteTo writes the statistics in their file format (version 2 with a
// factor, 1 without), the sums a block at a time (the checksum is updated
// as they go), so that writing takes no second copy of G.
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
	h := statsfile.Header{Samples: s.N, Outputs: m, Nodes: l, Classes: s.Classes, ClassCounts: s.ClassCounts}
	var tri statsfile.Triangle
	if f := s.Factor; f != nil {
		if err := checkFactor(f, l, s.N); err != nil {
			return 0, err
		}
		h.Factor = &statsfile.FactorHeader{Samples: f.N, Ridge: f.Ridge}
		tri = suffstats.Tri(f)
	}
	return statsfile.Write(w, h, rec.Bytes(), g, s.HT, s.TT, tri)
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
	var skip *statsfile.GramAt
	if lazy && size >= 0 {
		skip = &statsfile.GramAt{Path: path, Size: size}
	}
	s, err := readStats(f, size, skip)
	if err != nil {
		return nil, wrapErr(path, err)
	}
	return s, nil
}

// loadGram reads the G a statistics file left unread and checks its
// values.
func loadGram(a *statsfile.GramAt) func() ([]float64, error) {
	return func() ([]float64, error) {
		g, err := a.Load()
		if err != nil {
			return nil, err
		}
		if err := checkFinite(g, "statistics"); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrStats, a.Path, err)
		}
		return g, nil
	}
}

// ReadStats reads statistics from r, checking the magic, version, header,
// every size against the header before reading it, the embedded recipe and
// the checksums.
func ReadStats(r io.Reader) (*Stats, error) { return readStats(r, -1, nil) }

// readStats is ReadStats of a reader holding size bytes (-1: unknown),
// statsfile.Read's sections mapped to Stats: with skip (r an io.Seeker of
// known size), the G of a version 2 file holding the factor of its own G
// is left unread (Stats.loadG set). The recipe, the sums' values and the
// factor are checked once every byte is read.
func readStats(r io.Reader, size int64, skip *statsfile.GramAt) (*Stats, error) {
	var fa *Factor
	c, err := statsfile.Read(r, size, skip, func(l int) statsfile.Triangle {
		fa = suffstats.NewPacked(l)
		return suffstats.Tri(fa)
	})
	if err != nil {
		return nil, err
	}
	h := c.Header
	s := &Stats{N: h.Samples, M: h.Outputs, Classes: h.Classes, ClassCounts: h.ClassCounts, G: c.G, HT: c.HT, TT: c.TT}
	if c.Gram != nil {
		s.loadG = loadGram(c.Gram)
	}
	if fa != nil {
		fa.N, fa.Ridge = h.Factor.Samples, h.Factor.Ridge
		s.Factor = fa
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrStats, fmt.Sprintf(format, a...))
	}
	rec, err := Read(bytes.NewReader(c.Recipe))
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
		if err := checkFactor(s.Factor, h.Nodes, s.N); err != nil {
			return nil, bad("%v", err)
		}
	}
	return s, nil
}
