package suffstats

import (
	"fmt"
	"io"

	"github.com/scn2d/scn/internal/statsfile"
)

// Finite reports the first value of v that is not finite (NaN or
// infinite), as an error naming what the values are (scn's checkFinite).
type Finite func(v []float64, what string) error

// Write writes the sums in the statistics file format (version 2 with a
// factor, 1 without: internal/statsfile) after the recipe's bytes, G
// read (Gram) beforehand: their sizes and the factor checked first, the
// factor's values by finite.
func (s *Sums) Write(w io.Writer, recipe []byte, finite Finite) (int64, error) {
	g, err := s.Gram()
	if err != nil {
		return 0, err
	}
	l, m := s.L, s.M
	if len(g) != l*l || len(s.HT) != l*m || len(s.TT) != m*m {
		return 0, fmt.Errorf("%w: sums of %d, %d and %d values for L = %d, m = %d", ErrStats, len(g), len(s.HT), len(s.TT), l, m)
	}
	h := statsfile.Header{Samples: s.N, Outputs: m, Nodes: l, Classes: s.Classes, ClassCounts: s.ClassCounts}
	var tri statsfile.Triangle
	if f := s.Factor; f != nil {
		if err := CheckFactor(f, l, s.N); err != nil {
			return 0, err
		}
		if err := finite(f.p, "factor"); err != nil {
			return 0, err
		}
		h.Factor = &statsfile.FactorHeader{Samples: f.N, Ridge: f.Ridge}
		tri = f.tri()
	}
	return statsfile.Write(w, h, recipe, g, s.HT, s.TT, tri)
}

// Read reads statistics from r holding size bytes (-1: unknown):
// statsfile.Read's sections mapped to Sums, with the embedded recipe's
// bytes. With skip (r an io.Seeker of known size), the G of a version 2
// file holding the factor of its own G is left unread (LoadG set: it
// reads G then and checks its values by finite). The sums' values are
// checked by finite, and the factor, once every byte is read; the recipe
// is the caller's to read and to check against L (the header's Nodes).
func Read(r io.Reader, size int64, skip *statsfile.GramAt, finite Finite) (*Sums, []byte, error) {
	var fa *Factor
	c, err := statsfile.Read(r, size, skip, func(l int) statsfile.Triangle {
		fa = NewPacked(l)
		return fa.tri()
	})
	if err != nil {
		return nil, nil, err
	}
	h := c.Header
	s := &Sums{L: h.Nodes, N: h.Samples, M: h.Outputs, Classes: h.Classes, ClassCounts: h.ClassCounts, G: c.G, HT: c.HT, TT: c.TT}
	if c.Gram != nil {
		s.LoadG = loadGram(c.Gram, finite)
	}
	if fa != nil {
		fa.N, fa.Ridge = h.Factor.Samples, h.Factor.Ridge
		s.Factor = fa
	}
	return s, c.Recipe, nil
}

// Check checks the values of sums Read gave (every byte read, the recipe
// checked), and their factor.
func (s *Sums) Check(finite Finite) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrStats, fmt.Sprintf(format, a...))
	}
	for _, part := range [][]float64{s.G, s.HT, s.TT} {
		if err := finite(part, "statistics"); err != nil {
			return bad("%v", err)
		}
	}
	if s.Factor != nil {
		err := CheckFactor(s.Factor, s.L, s.N)
		if err == nil {
			err = finite(s.Factor.p, "factor")
		}
		if err != nil {
			return bad("%v", err)
		}
	}
	return nil
}

// loadGram reads the G a statistics file left unread and checks its
// values.
func loadGram(a *statsfile.GramAt, finite Finite) func() ([]float64, error) {
	return func() ([]float64, error) {
		g, err := a.Load()
		if err != nil {
			return nil, err
		}
		if err := finite(g, "statistics"); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrStats, a.Path, err)
		}
		return g, nil
	}
}
