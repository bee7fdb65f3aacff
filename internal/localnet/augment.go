package localnet

import (
	"context"
	"fmt"

	"github.com/scn2d/scn/internal/augment"
	"github.com/scn2d/scn/internal/lsq"
)

// Data augmentation of local fits (the root's Config.Augment, issue 31
// item 4; the copies' draws are internal/augment's).
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
// The root's model selection (selectLocal) scores held-out images as they
// are, with their copies taken out of the sums it solves (HeldCopies).

// augMove is one augmented copy of an image.
type augMove = augment.Move

// augBatch is the augmented images a pass computes at a time.
const augBatch = 64

// augHidden writes the standardised pooled outputs of every filter of the
// fit on the augmented copies moves[k] of images src[k] (k < len(src)),
// node-major into h (L rows of len(src)), with scratch for the images and
// outputs of augBatch copies.
func (f *Fit) augHidden(layers []Applier, src []int, moves []augMove, h []float32) error {
	x, d, l := f.x, f.rows*f.cols*f.imgCh, f.Eng.L
	r := len(src)
	img := make([]float32, min(r, augBatch)*d)
	out := make([]float32, min(r, augBatch)*l)
	for b0 := 0; b0 < r; b0 += augBatch {
		b := min(augBatch, r-b0)
		for k := 0; k < b; k++ {
			i := src[b0+k]
			augment.Image(img[k*d:(k+1)*d], x[i*d:(i+1)*d], f.rows, f.cols, f.imgCh, moves[b0+k])
		}
		off := 0
		for _, ly := range layers {
			if err := ly.Apply(img[:b*d], b, out, l, off); err != nil {
				return err
			}
			off += ly.Outputs()
		}
		StandardizeRows(out[:b*l], l, f.meanOrNil(), f.sc)
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
func (f *Fit) meanOrNil() []float32 {
	if !f.g.Standardize {
		return nil
	}
	return f.mean
}

// augLayers returns the fit's banks as local.Layers (a two-layer fit's:
// the first layer with Concat, then both layers as a local.Stack).
func (f *Fit) augLayers() []Applier {
	var ls []Applier
	if f.two != nil {
		top := f.two.top
		if top.Second.Concat {
			ls = append(ls, f.two.first)
		}
		if len(f.Banks) > 1 && f.Banks[1].Filters() > 0 {
			ls = append(ls, f.opt.Stack(top, f.two.first, f.Banks[1], f.rows, f.cols))
		}
		return ls
	}
	for _, b := range f.Banks {
		if b.Filters() > 0 {
			ls = append(ls, f.opt.Bank(f.g, b, f.rows, f.cols, f.imgCh))
		}
	}
	return ls
}

// AugmentSums forms the Gram sums of the training images (targets t) and
// their augmented copies, extra per image, moves[i*extra+c] the copy c of
// image i, in an engine of their own (Aug), in one pass of row shards per
// copy, and grows its factor.
func (f *Fit) AugmentSums(ctx context.Context, t []float64, moves []augment.Move, extra int) error {
	l, n := f.Eng.L, f.n
	f.moves, f.extra = moves, extra
	// The images' own G and factor are not needed any more (the output
	// weights solve the augmented sums, the training residual reads H
	// only): released before the augmented engine takes as much.
	f.Eng.G, f.Eng.GD = nil, nil
	eng := lsq.NewGramH(t, n, f.m, f.opt.Ridge, f.Eng.F32, l, false)
	eng.BF16 = f.Eng.BF16
	var blocks []int
	step := RandomBlock * f.g.PerFilter()
	for j := 0; j < l; j += step {
		blocks = append(blocks, min(step, l-j))
	}
	rmax := 0
	for _, sh := range eng.Shards {
		rmax = max(rmax, sh.Hi-sh.Lo)
	}
	layers := f.augLayers()
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
				orig := f.Eng.Shards[s].H
				hidden = func(_, _, j0, j1 int, h []float32) { copy(h, orig[j0*r:j1*r]) }
			} else {
				src, mv = src[:0], mv[:0]
				for i := sh.Lo; i < sh.Hi; i++ {
					src = append(src, i)
					mv = append(mv, f.moves[i*extra+c-1])
				}
				hidden = func(lo, _, j0, j1 int, h []float32) {
					if j0 == 0 && j1 == l {
						herr = firstError(herr, f.augHidden(layers, src, mv, h))
						return
					}
					if cacheLo != lo {
						cache = lsq.Grow(cache, l*r)
						herr = firstError(herr, f.augHidden(layers, src, mv, cache[:l*r]))
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
			return fmt.Errorf("scn: pooled outputs of local filters on the augmented images are linearly dependent (ridge %g)", f.opt.Ridge)
		}
	}
	f.Aug = eng
	return nil
}

// firstError returns the first non-nil error.
func firstError(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// Solver returns the engine whose sums the output weights solve: the
// augmented one when there is one.
func (f *Fit) Solver() *lsq.Gram {
	if f.Aug != nil {
		return f.Aug
	}
	return f.Eng
}

// HeldCopies calls fn with the pooled outputs (float64, rows x L
// row-major) and targets (rows x m, from t) of the augmented copies of the
// images held, a chunk of rows at a time (nothing without augmentation):
// selection takes them out of the sums with the held-out images.
func (f *Fit) HeldCopies(held []int, t []float64, fn func(rows int, h, th []float64)) error {
	if f.Aug == nil {
		return nil
	}
	extra, l, m := f.extra, f.Eng.L, f.m
	layers := f.augLayers()
	const chunk = 256
	var src []int
	var mv []augMove
	flush := func() error {
		r := len(src)
		if r == 0 {
			return nil
		}
		h := make([]float32, l*r)
		if err := f.augHidden(layers, src, mv, h); err != nil {
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
		fn(r, h64, th)
		src, mv = src[:0], mv[:0]
		return nil
	}
	for _, i := range held {
		for c := 0; c < extra; c++ {
			src = append(src, i)
			mv = append(mv, f.moves[i*extra+c])
			if len(src) == chunk {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}
