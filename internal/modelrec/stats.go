package modelrec

import (
	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/suffstats"
)

// Sums returns the sufficient statistics of the model's hidden nodes (and
// of its direct features) over the n images x with targets t (mm outputs,
// the classes' names or nil), sw weighing each image (nil: every image
// weighs 1): G only if withG (nil otherwise); if keep, also the float64
// hidden outputs of the images, one chunk of suffstats.Chunk images
// (node-major, L x Chunk, the last one partly filled) after another. rows
// calls its f with the hidden outputs of the first lh nodes of every
// statistics row (scn's forStatsRows: the images, then an augmented
// model's copies, ForCopies).
//
// The hidden outputs of suffstats.Chunk images at a time (node-major,
// float64) and their targets (output-major), then the float64 products
// G += H_c^T H_c (its lower triangle), H^T T += H_c^T T_c and
// T^T T += T_c^T T_c (lsq.ChunkSums): a chunk of 2048 images keeps G's
// traffic small beside the products.
func (m *Model) Sums(x direct.Images, n int, t []float64, mm int, classes []string, sw []float64, withG, keep bool,
	rows func(lh int, f func(lo, rows int, hb []float32)) error) (*suffstats.Sums, []lsq.Chunk, error) {
	lh := m.Nodes()
	l := lh + m.DirectDim()
	var fd []float64 // direct features, D x take
	s := suffstats.NewSums(l, mm, n, m.AugmentRows(), t, classes, withG)
	cs := lsq.NewChunkSums(l, mm, min(n, suffstats.Chunk), s.G, s.HT, s.TT, nil, keep)
	features := func(at, take int) []float64 {
		fd = lsq.Grow(fd, (l-lh)*take)
		direct.Features(x, m.Direct.Pool, at, take, fd)
		return fd
	}
	herr := rows(lh, func(lo, rows int, hb []float32) {
		suffstats.AddRows(cs, lh, lo, rows, hb, t, sw, features)
	})
	if herr != nil {
		return nil, nil, herr
	}
	cs.Flush()
	kept := cs.Kept()
	if withG {
		lsq.Symmetrize(s.G, l)
	}
	return s, kept, nil
}
