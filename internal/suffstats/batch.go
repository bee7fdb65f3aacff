package suffstats

import (
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/score"
)

// BatchSum sums statistics over images given a batch at a time, in order
// (scn.StatsSum): the images are regrouped into batches of batch images
// whose hidden outputs hidden forms at once, and those into chunks of
// products, so that the sums are those of all the images at once, bit for
// bit, whatever the batches' sizes, with memory of a batch.
type BatchSum struct {
	S       *Sums
	N, Seen int // the images the sum was started for, and added
	cs      *lsq.ChunkSums
	d       int // values an image
	batch   int // images a batch of hidden outputs
	pix     []float32
	t       []float64
	hidden  func(pix []float32, f func(lo, rows int, hb []float32))
}

// NewBatchSum starts the sums of l columns (hidden outputs only) over n
// images of d values and outputs targets each, of the given classes (nil
// for a regression). hidden calls its function with the hidden outputs
// (node-major) of the images pix, a batch of consecutive images at a time.
func NewBatchSum(l, outputs, n, d, batch int, classes []string, hidden func(pix []float32, f func(lo, rows int, hb []float32))) *BatchSum {
	s := NewSums(l, outputs, 0, 1, nil, classes, true)
	return &BatchSum{S: s, N: n, d: d, batch: batch, hidden: hidden,
		cs: lsq.NewChunkSums(l, outputs, min(n, Chunk), s.G, s.HT, s.TT, nil, false)}
}

// Done reports whether Sums ended the sum.
func (a *BatchSum) Done() bool { return a.cs == nil }

// Add adds k images pix (d values each) of targets t (row-major, S.M a
// row); the caller checks them, and that they are no more than the sum
// was started for.
func (a *BatchSum) Add(pix []float32, t []float64, k int) {
	d, mm := a.d, a.S.M
	for i := 0; i < k; {
		take := min(k-i, a.batch-len(a.t)/mm)
		a.pix = append(a.pix, pix[i*d:(i+take)*d]...)
		a.t = append(a.t, t[i*mm:(i+take)*mm]...)
		i += take
		if len(a.t)/mm == a.batch {
			a.flush()
		}
	}
	a.Seen += k
}

// flush adds the images waiting: one batch of hidden outputs.
func (a *BatchSum) flush() {
	mm, rows := a.S.M, len(a.t)/a.S.M
	if rows == 0 {
		return
	}
	if a.S.Classes != nil {
		for _, c := range score.ArgMax(a.t, mm) {
			a.S.ClassCounts[c]++
		}
	}
	a.hidden(a.pix, func(lo, rows int, hb []float32) {
		AddRows(a.cs, a.S.L, lo, rows, hb, a.t, nil, nil)
	})
	a.S.N += rows
	a.pix, a.t = a.pix[:0], a.t[:0]
}

// Sums ends the sum (the caller checks that every image was added) and
// returns the sums, G exactly symmetric.
func (a *BatchSum) Sums() *Sums {
	a.flush()
	a.cs.Flush()
	a.cs, a.pix, a.t = nil, nil, nil
	lsq.Symmetrize(a.S.G, a.S.L)
	return a.S
}
