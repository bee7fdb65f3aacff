package lsq

import (
	"github.com/scn2d/scn/internal/bigmem"
	"github.com/scn2d/scn/internal/linalg"
)

// ChunkSums forms the sums of statistics chunk by chunk: the hidden
// outputs of up to CW images (H, node-major: L rows of CW, float64) and
// their targets (T, output-major: M rows of CW) are written column by
// column from Filled on, and each full chunk (and the last, by Flush) is
// added to G's lower triangle (GramLower; not without G), H^T T and T^T T
// (the dense kernels: OpenBLAS's dgemm, or the project's float64 kernel).
// Fixed chunks keep the sums independent of the number of goroutines.
type ChunkSums struct {
	L, M, CW  int       // columns, outputs, images a chunk
	G, HT, TT []float64 // the sums added to (G nil: not formed)
	H, T      []float64 // the current chunk
	Filled    int       // the columns of the current chunk written
	keep      bool
	kept      []Chunk
}

// NewChunkSums returns chunk sums of l columns and m outputs, cw images a
// chunk, added to g (nil: none), ht and tt. h, if long enough (l x cw),
// is the chunk buffer (kept by a caller between calls); else one is
// taken. With keep, each chunk's H is kept (Kept) and a new buffer taken
// for the next, when it comes.
func NewChunkSums(l, m, cw int, g, ht, tt, h []float64, keep bool) *ChunkSums {
	if len(h) < l*cw {
		h = bigmem.Float64s(l * cw)
	}
	return &ChunkSums{L: l, M: m, CW: cw, G: g, HT: ht, TT: tt, H: h[:l*cw], T: make([]float64, m*cw), keep: keep}
}

// Room returns the columns the current chunk has left, its buffer ready.
func (c *ChunkSums) Room() int {
	if c.H == nil {
		c.H = bigmem.Float64s(c.L * c.CW)
	}
	return c.CW - c.Filled
}

// Added records n more columns written, adding the chunk when it is full.
func (c *ChunkSums) Added(n int) {
	c.Filled += n
	if c.Filled == c.CW {
		c.Flush()
	}
}

// Flush adds the columns written so far (nothing if none).
func (c *ChunkSums) Flush() {
	l, m, cw, filled := c.L, c.M, c.CW, c.Filled
	if filled == 0 {
		return
	}
	if c.G != nil {
		GramLower(l, filled, c.H, cw, c.G)
	}
	linalg.GemmNT64(l, m, filled, 1, c.H, cw, c.T, cw, 1, c.HT, m)
	linalg.GemmNT64(m, m, filled, 1, c.T, cw, c.T, cw, 1, c.TT, m)
	if c.keep {
		c.kept = append(c.kept, Chunk{H: c.H, LD: cw, Rows: filled})
		c.H = nil // the next chunk's buffer when it comes: no unused one after the last
	}
	c.Filled = 0
}

// Kept returns the chunks kept (with keep), in order.
func (c *ChunkSums) Kept() []Chunk { return c.kept }
