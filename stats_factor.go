package scn

import (
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/suffstats"
)

// Factor is a Cholesky factor kept with statistics (file format version
// 2), so that an update need not factor G (L^3 / 3 flops): F lower
// triangular with F F^T = G' + Ridge I for G' the G of N of the images
// the statistics summed. N = Stats.N means the statistics' own G (the
// factor Factorize gives and scn train --stats-out writes); fewer images
// mean an earlier G, before images were merged in (the factor Merge and
// an update carry on), which preconditions the next update all the same.
// F is held by panels of rows (about L^2 / 2 values, not L^2): Lower
// returns it whole (internal/suffstats).
type Factor = suffstats.Factor

// Factorize sets s.Factor to the Cholesky factor of G + ridge I (ridge >
// 0): the factor Model.Update would form, stored with the statistics.
func (s *Stats) Factorize(ridge float64) error {
	if !(ridge > 0) || math.IsInf(ridge, 0) {
		return fmt.Errorf("%w: ridge %v, want a finite value > 0", ErrConfig, ridge)
	}
	g, err := s.gram()
	if err != nil {
		return err
	}
	f, err := suffstats.Factorize(g, s.Nodes(), s.N, ridge)
	if err != nil {
		return err
	}
	s.Factor = f
	return nil
}

// gram returns s.G, reading it first if OpenStats left it unread.
func (s *Stats) gram() ([]float64, error) {
	v := s.view()
	g, err := v.Gram()
	s.absorb(v)
	return g, err
}
