package scn

import (
	"bytes"
	"fmt"
	"io"

	"github.com/scn2d/scn/internal/modelrec"
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
	v := s.view()
	n, err := v.Write(w, rec.Bytes(), checkFinite)
	s.absorb(v)
	return n, err
}

// Save writes the statistics to path atomically (as Model.Save).
func (s *Stats) Save(path string) error { return modelrec.Save(path, s) }

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
	f, size, skip, err := statsfile.Open(path, lazy)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := readStats(f, size, skip)
	if err != nil {
		return nil, wrapErr(path, err)
	}
	return s, nil
}

// ReadStats reads statistics from r, checking the magic, version, header,
// every size against the header before reading it, the embedded recipe and
// the checksums.
func ReadStats(r io.Reader) (*Stats, error) { return readStats(r, -1, nil) }

// readStats is ReadStats of a reader holding size bytes (-1: unknown),
// suffstats.Read's sums with their recipe: with skip (r an io.Seeker of
// known size), the G of a version 2 file holding the factor of its own G
// is left unread (Stats.loadG set). The recipe, the sums' values and the
// factor are checked once every byte is read.
func readStats(r io.Reader, size int64, skip *statsfile.GramAt) (*Stats, error) {
	v, recipe, err := suffstats.Read(r, size, skip, checkFinite)
	if err != nil {
		return nil, err
	}
	rec, err := Read(bytes.NewReader(recipe))
	if err != nil {
		return nil, fmt.Errorf("%w: recipe: %v", ErrStats, err)
	}
	if rec.Nodes()+rec.DirectDim() != v.L {
		return nil, fmt.Errorf("%w: recipe of %d nodes and %d direct features, header says %d columns", ErrStats, rec.Nodes(), rec.DirectDim(), v.L)
	}
	if err := v.Check(checkFinite); err != nil {
		return nil, err
	}
	return statsOf(rec, v), nil
}
