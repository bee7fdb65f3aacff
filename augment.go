package scn

import (
	"context"
	"fmt"

	"github.com/scn2d/scn/internal/augment"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/memest"
)

// Data augmentation of local fits (Config.Augment, issue 31 item 4).
//
// Each training image gives, besides itself, its mirror image (Flip) and
// Copies copies shifted by (dy, dx) pixels, each drawn uniformly from
// [-Shift, Shift]^2 without (0, 0) (with Flip, each shifted copy is also
// mirrored with probability 1/2); a shifted copy's pixels that come from
// outside the image are 0, as the filters' zero padding. The draws come
// from the seed (a stream of their own, so the filters are the ones the
// fit draws without augmentation), image by image, copy by copy.
//
// The copies are extra rows of the output weights' least squares only:
// the filters are drawn (or, for the supervised learners, chosen against
// the residual) and the pooled outputs standardised on the training
// images as they are, exactly as without augmentation. Once every filter
// is known, a second block engine without stored hidden outputs forms the
// Gram sums G = H^T H and H^T T of every row, the originals' from the
// outputs the fit holds and each copy's computed one row shard at a time
// (lsq.Gram's one-pass Accumulate), and the output weights are its ridge
// solution. The copies' pooled outputs are never held: the cost is one
// more pass of the filters over the images per copy and the Gram products
// of their rows, the memory G (L x L float64) and one shard's outputs.
// Model selection (selectLocal) scores held-out images as they are, with
// their copies taken out of the sums it solves.

// augBatch is the augmented images a pass computes at a time.
const augBatch = 64

// augHidden writes the standardised pooled outputs of every filter of the
// fit on the augmented copies moves[k] of images src[k] (k < len(src)),
// node-major into h (L rows of len(src)), with scratch for the images and
// outputs of augBatch copies.
func (lf *localFit) augHidden(layers []localApplier, src []int, moves []augMove, h []float32) error {
	x, d, l := lf.x, lf.x.Dim(), lf.eng.L
	r := len(src)
	img := make([]float32, min(r, augBatch)*d)
	out := make([]float32, min(r, augBatch)*l)
	for b0 := 0; b0 < r; b0 += augBatch {
		b := min(augBatch, r-b0)
		for k := 0; k < b; k++ {
			i := src[b0+k]
			augment.Image(img[k*d:(k+1)*d], x.Pix[i*d:(i+1)*d], x.Rows, x.Cols, x.Chans(), moves[b0+k])
		}
		off := 0
		for _, ly := range layers {
			if err := ly.Apply(img[:b*d], b, out, l, off); err != nil {
				return err
			}
			off += ly.Outputs()
		}
		standardizeRows(out[:b*l], l, lf.meanOrNil(), lf.sc)
		for k := 0; k < b; k++ {
			for j, v := range out[k*l : (k+1)*l] {
				h[j*r+b0+k] = v
			}
		}
	}
	return nil
}

// meanOrNil returns the columns' means when the geometry standardises
// them, nil otherwise.
func (lf *localFit) meanOrNil() []float32 {
	if !lf.g.Standardize {
		return nil
	}
	return lf.mean
}

// augLayers returns the fit's banks as local.Layers (a two-layer fit's
// as augLayers2 gives them).
func (lf *localFit) augLayers() []localApplier {
	if lf.two != nil {
		return lf.augLayers2() // augment_local2.go
	}
	var ls []localApplier
	for _, b := range lf.banks {
		if b.Filters() > 0 {
			ls = append(ls, bankLayer(lf.cfg.Kind.Input, lf.cfg.Activation, lf.g, b, lf.x.Rows, lf.x.Cols, lf.x.Chans()))
		}
	}
	return ls
}

// augmentSums forms the Gram sums of the training images and their
// augmented copies in an engine of their own (lf.aug, see the top of the
// file), in one pass of row shards per copy, and grows its factor.
func (lf *localFit) augmentSums(ctx context.Context, t []float64) error {
	a, l, n := lf.cfg.Augment, lf.eng.L, lf.n
	lf.moves = a.moves(n, lf.cfg.Seed)
	extra := a.Extra()
	// The images' own G and factor are not needed any more (the output
	// weights solve the augmented sums, the training residual reads H
	// only): released before the augmented engine takes as much.
	lf.eng.G, lf.eng.GD = nil, nil
	eng := lsq.NewGramH(t, n, lf.m, lf.cfg.Ridge, lf.eng.F32, l, false)
	eng.BF16 = lf.eng.BF16
	var blocks []int
	step := localRandomBlock * lf.g.PerFilter()
	for j := 0; j < l; j += step {
		blocks = append(blocks, min(step, l-j))
	}
	rmax := 0
	for _, sh := range eng.Shards {
		rmax = max(rmax, sh.Hi-sh.Lo)
	}
	layers := lf.augLayers()
	ps := eng.NewPass(blocks, rmax)
	// With bfloat16 products the pass asks for a shard's outputs a chunk of
	// columns at a time: the copy's outputs of every column are computed
	// once per shard and kept for the chunks.
	var cache []float32
	var cacheLo = -1
	var herr error
	src := make([]int, 0, rmax)
	mv := make([]augMove, 0, rmax)
	for c := 0; c <= extra; c++ {
		cacheLo = -1
		for s, sh := range eng.Shards {
			if err := ctx.Err(); err != nil {
				return err
			}
			r := sh.Hi - sh.Lo
			var hidden func(lo, hi, j0, j1 int, h []float32)
			if c == 0 {
				orig := lf.eng.Shards[s].H
				hidden = func(_, _, j0, j1 int, h []float32) { copy(h, orig[j0*r:j1*r]) }
			} else {
				src, mv = src[:0], mv[:0]
				for i := sh.Lo; i < sh.Hi; i++ {
					src = append(src, i)
					mv = append(mv, lf.moves[i*extra+c-1])
				}
				hidden = func(lo, _, j0, j1 int, h []float32) {
					if j0 == 0 && j1 == l {
						herr = errorsJoin(herr, lf.augHidden(layers, src, mv, h))
						return
					}
					if cacheLo != lo {
						cache = lsq.Grow(cache, l*r)
						herr = errorsJoin(herr, lf.augHidden(layers, src, mv, cache[:l*r]))
						cacheLo = lo
					}
					copy(h, cache[j0*r:j1*r])
				}
			}
			eng.PassShard(ps, sh.Lo, r, hidden)
			if herr != nil {
				return herr
			}
		}
	}
	eng.EndPass(ps)
	for range blocks {
		if !eng.AddAccumulated() {
			return fmt.Errorf("scn: pooled outputs of local filters on the augmented images are linearly dependent (ridge %g)", lf.cfg.Ridge)
		}
	}
	lf.aug = eng
	return nil
}

// errorsJoin returns the first non-nil error.
func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// solver returns the engine whose sums the output weights solve: the
// augmented one when there is one.
func (lf *localFit) solver() *lsq.Gram {
	if lf.aug != nil {
		return lf.aug
	}
	return lf.eng
}

// heldCopies calls f with the pooled outputs (float64, rows x L row-major)
// and targets (rows x m) of the augmented copies of the images held, a
// chunk of rows at a time (nothing without augmentation): selection takes
// them out of the sums with the held-out images.
func (lf *localFit) heldCopies(held []int, t []float64, f func(rows int, h, th []float64)) error {
	if lf.aug == nil {
		return nil
	}
	extra, l, m := lf.cfg.Augment.Extra(), lf.eng.L, lf.m
	layers := lf.augLayers()
	const chunk = 256
	var src []int
	var mv []augMove
	flush := func() error {
		r := len(src)
		if r == 0 {
			return nil
		}
		h := make([]float32, l*r)
		if err := lf.augHidden(layers, src, mv, h); err != nil {
			return err
		}
		h64 := make([]float64, r*l)
		th := make([]float64, r*m)
		for k := 0; k < r; k++ {
			for j := 0; j < l; j++ {
				h64[k*l+j] = float64(h[j*r+k])
			}
			copy(th[k*m:(k+1)*m], t[src[k]*m:(src[k]+1)*m])
		}
		f(r, h64, th)
		src, mv = src[:0], mv[:0]
		return nil
	}
	for _, i := range held {
		for c := 0; c < extra; c++ {
			src = append(src, i)
			mv = append(mv, lf.moves[i*extra+c])
			if len(src) == chunk {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// augmentMemory returns the bytes an augmented local fit adds to Memory's
// Factor (internal/memest's Augment): its second engine, one row shard's
// outputs and the copies' moves.
func (c Config) augmentMemory(n int) int64 {
	if c.Augment == nil || c.Local == nil {
		return 0
	}
	return memest.Augment(n, c.Local.Outputs(), localRandomBlock*c.Local.PerFilter(), n*c.Augment.Extra(), c.Float32Gram, c.BF16Gram)
}

// copiesNote says, for selection's record, which copies the output
// weights saw ("" without augmentation).
func (lf *localFit) copiesNote() string {
	if lf.aug == nil {
		return ""
	}
	return fmt.Sprintf(" and their %d augmented copies (%s)", lf.n*lf.cfg.Augment.Extra(), lf.cfg.Augment)
}
