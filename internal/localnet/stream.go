package localnet

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/memest"
	"github.com/scn2d/scn/internal/par"
)

// Streamed fits of local random learners: the images are read row shard by
// row shard (a Pass), never all held, nor the pooled outputs of every
// image. The root package's stream_local.go describes the passes; this
// file draws the filters as the fit in memory draws them (the same random
// numbers in the same order), takes the second layer's planes' moments,
// the pooled outputs' standardisation and the Gram sums, and solves.

// Streamed fits of two layers of local random filters (Geometry.Second with
// RVFL or 2DRVFL): a streamed fit as for one layer (the root's
// stream_local.go), with one more pass.
//
//   - Pass 1 (and the whitening's pass) as for one layer: the first
//     layer's filters are then drawn as the fit in memory draws them (the
//     same random numbers in the same order; with Concat in blocks of
//     RandomBlock whose pooled outputs are kept, as randomBank adds
//     them).
//   - A pass takes the moments of the planes the second layer reads (the
//     first layer's activated maps pooled between the layers) over the
//     images the fit in memory takes them over (image i N/S for i < S, S =
//     min(N, SecondMomentImages)), summed image by image in order: the
//     same bits (planeMomentsOf).
//   - The second layer's filters are drawn on those planes as in memory,
//     in the blocks the fit in memory takes (SecondBlock of the images
//     counted), each block a local.Stack that applies both layers image
//     by image.
//   - The standardisation and Gram passes and the solve are one layer's
//     (streamSolve), every block applied to each row shard.
//
// The model is the fit in memory's as for one layer (TestLocal2Stream):
// the same filters of both layers, means and trace, scales to their last
// bit, output weights the same bits when the scales are. Memory is one
// layer's: one row shard's pooled outputs, never N x positions x filters;
// the moments' pass holds SecondMomentBatch images and their pooled maps.

// Pass reads the training images once, in order, calling fn with each row
// shard: its r images x (r rows of rows x cols x ch values) and their
// targets by output tc (m rows of r); fn's error stops the pass.
type Pass func(fn func(x []float32, r int, tc []float64) error) error

// StreamBlock is one block of filters of a streamed local fit: the
// filters a pass of the fit in memory applies at once, and the first
// column of its pooled outputs.
type StreamBlock struct {
	Layer Applier
	Off   int
}

// ShortStreamError says that the pass of the second layer's moments met
// fewer images than the first pass counted.
type ShortStreamError struct{ Got, Want int }

// Error says how many of the images the pass met.
func (e *ShortStreamError) Error() string {
	return fmt.Sprintf("the stream gave %d of the %d images the second layer's moments are taken over", e.Got, e.Want)
}

// IsShortStream reports whether err is a ShortStreamError, and returns it.
func IsShortStream(err error) (*ShortStreamError, bool) {
	var s *ShortStreamError
	ok := errors.As(err, &s)
	return s, ok
}

// StreamWhitening returns the whitening of each filter size of g (in the
// order of g.Sizes) from one pass over the n images of rows x cols x ch,
// the planes' moments (cmean, csd) given (Gather).
func StreamWhitening(pass Pass, n, rows, cols, ch int, g *Geometry, cmean, csd []float64, seed uint64) ([]*local.Whitening, error) {
	ga, err := NewGather(n, rows, cols, ch, g, cmean, csd, seed)
	if err != nil {
		return nil, err
	}
	err = pass(func(x []float32, r int, _ []float64) error {
		ga.Add(x, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ga.Whitenings()
}

// streamDraw is the filters of a streamed fit drawn so far, their blocks
// of pooled outputs and steps.
type streamDraw struct {
	blocks []StreamBlock
	sizes  []int // the blocks' columns
	trace  []Step
	l      int
}

// add records a block of b filters with per pooled outputs each, ly
// giving them, drawn at scale lambda.
func (sd *streamDraw) add(ly Applier, b, per int, lambda float64) {
	sd.blocks = append(sd.blocks, StreamBlock{Layer: ly, Off: sd.l})
	sd.sizes = append(sd.sizes, b*per)
	sd.l += b * per
	for j := 0; j < b; j++ {
		sd.trace = append(sd.trace, Step{L: sd.l - (b-1-j)*per, Scale: lambda, Tried: 1})
	}
}

// draw draws count filters of side k over chans planes at scale lambda
// (the random stream's next numbers).
func (f *Fit) draw(k, chans, count int, lambda float64) ([]float32, []float32) {
	nm := f.opt.FilterMap(k, chans)
	np := nm.Size()
	params, bias := make([]float32, count*np), make([]float32, count)
	for j := range bias {
		bias[j] = f.DrawFilter(nm, k, lambda, params[j*np:(j+1)*np])
	}
	return params, bias
}

// StreamFit is the result of a streamed fit.
type StreamFit struct {
	// Layer is the fitted layer, Beta its output weights (L x m).
	Layer *Layer
	Beta  []float64
	// L is the pooled outputs; RSS the training residual's sum of squares
	// from the sums.
	L   int
	RSS float64
}

// Stream fits the layer of a random learner from passes over the images
// (a fit made by NewFit without images), whitening being each filter
// size's (StreamWhitening; nil without), tt the targets' T_q^T T_q, f32
// and bf16 the Gram products' precision.
func (f *Fit) Stream(pass Pass, tt []float64, whitening []*local.Whitening, f32, bf16 bool) (*StreamFit, error) {
	g := f.g
	if g.Second != nil {
		return f.streamTwo(pass, tt, whitening, f32, bf16)
	}
	// Every filter, bank by bank and block by block, as randomBank draws
	// them.
	per, lambda := g.PerFilter(), f.opt.Scales[0]
	var sd streamDraw
	t0 := time.Now()
	for bi, k := range g.Sizes {
		var wm []float32
		if whitening != nil {
			wm = f.SetWhitening(whitening[bi])
		}
		bank := Bank{Size: k, Params: []float32{}, Bias: []float32{}, Whiten: wm}
		for done := 0; done < g.Filters; {
			b := min(RandomBlock, g.Filters-done)
			params, bias := f.draw(k, f.ch, b, lambda)
			sd.add(f.opt.Bank(g, Bank{Size: k, Params: params, Bias: bias, Whiten: wm}, f.rows, f.cols, f.ch), b, per, lambda)
			bank.Params = append(bank.Params, params...)
			bank.Bias = append(bank.Bias, bias...)
			done += b
		}
		f.Banks = append(f.Banks, bank)
	}
	f.Prof.Draw = time.Since(t0)
	f.Tried = g.Filters * len(g.Sizes)
	return f.streamSolve(pass, tt, &sd, f32, bf16)
}

// SecondMomentBatch is the images whose pooled maps the moments' pass
// computes at a time (planeMomentsOf's batch).
const SecondMomentBatch = 64

// streamTwo is Stream for two layers.
func (f *Fit) streamTwo(pass Pass, tt []float64, whitening []*local.Whitening, f32, bf16 bool) (*StreamFit, error) {
	top := f.g
	s := top.Second
	k, per, lambda := top.Sizes[0], top.PerFilter(), f.opt.Scales[0]
	var wm []float32
	if whitening != nil {
		wm = f.SetWhitening(whitening[0])
	}
	var sd streamDraw
	t0 := time.Now()
	first := Bank{Size: k, Params: []float32{}, Bias: []float32{}, Whiten: wm}
	for done := 0; done < top.Filters; {
		b := min(RandomBlock, top.Filters-done)
		params, bias := f.draw(k, f.ch, b, lambda)
		if s.Concat {
			sd.add(f.opt.Bank(top, Bank{Size: k, Params: params, Bias: bias, Whiten: wm}, f.rows, f.cols, f.ch), b, per, lambda)
		}
		first.Params = append(first.Params, params...)
		first.Bias = append(first.Bias, bias...)
		done += b
	}
	f.Banks = append(f.Banks, first)
	f.Tried += top.Filters
	f.Prof.Draw += time.Since(t0)
	firstLayer := f.opt.Bank(top, first, f.rows, f.cols, f.ch)
	t1 := time.Now()
	empty := Bank{Size: s.Size, Params: []float32{}, Bias: []float32{}}
	mean, dev, err := streamPlaneMoments(pass, f.n, f.rows*f.cols*f.ch, &local.Stack{First: firstLayer, Mid: MidOf(s),
		Second: f.opt.SecondBank(top, empty, f.rows, f.cols)})
	if err != nil {
		return nil, err
	}
	f.Prof.Scoring += time.Since(t1)
	// The second layer: its planes stand for the images' planes.
	t2 := time.Now()
	p := PlanesOf(top, f.rows, f.cols)
	ch := f.ch
	f.ch, f.cmean, f.csd = p.Chans, mean, dev
	f.SetWhitening(nil)
	second := Bank{Size: s.Size, Params: []float32{}, Bias: []float32{}}
	blk := SecondBlock(f.n, per, s.Filters)
	for done := 0; done < s.Filters; {
		b := min(blk, s.Filters-done)
		params, bias := f.draw(s.Size, p.Chans, b, lambda)
		sd.add(f.opt.Stack(top, firstLayer, Bank{Size: s.Size, Params: params, Bias: bias}, f.rows, f.cols), b, per, lambda)
		second.Params = append(second.Params, params...)
		second.Bias = append(second.Bias, bias...)
		done += b
	}
	f.Banks = append(f.Banks, second)
	f.Tried += s.Filters
	f.ch = ch
	f.Prof.Draw += time.Since(t2)
	return f.streamSolve(pass, tt, &sd, f32, bf16)
}

// streamPlaneMoments is the moments' pass of a streamed two-layer fit:
// planeMomentsOf over the n images (d values each) of the pass, st being
// the first layer and the pooling between the layers.
func streamPlaneMoments(pass Pass, n, d int, st *local.Stack) (mean, sd []float64, err error) {
	s := min(n, SecondMomentImages)
	p := st.Planes()
	plane := p.Rows * p.Cols
	mo := local.NewMoments(p.Chans, plane)
	img := make([]float32, SecondMomentBatch*d)
	maps := make([]float32, SecondMomentBatch*p.Chans*plane)
	held, next, seen := 0, 0, 0 // images in img, the next of the S images, images streamed
	flush := func() error {
		if held == 0 {
			return nil
		}
		if err := st.Maps(img, held, maps); err != nil {
			return err
		}
		mo.Add(maps, held)
		held = 0
		return nil
	}
	err = pass(func(x []float32, r int, _ []float64) error {
		for ; next < s; next++ {
			j := next * n / s
			if j >= seen+r {
				break
			}
			copy(img[held*d:(held+1)*d], x[(j-seen)*d:(j-seen+1)*d])
			if held++; held == SecondMomentBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		seen += r
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err == nil && next != s {
		err = &ShortStreamError{Got: next, Want: s}
	}
	if err != nil {
		return nil, nil, err
	}
	mean, sd = mo.Result()
	return mean, sd, nil
}

// streamSolve ends a streamed fit whose filters are drawn (f.Banks,
// f.Tried): sd holds their blocks of pooled outputs, columns and steps.
// It forms the pooled outputs' standardisation (pass 2), the Gram sums
// (pass 3) and the output weights.
func (f *Fit) streamSolve(pass Pass, tt []float64, sd *streamDraw, f32, bf16 bool) (*StreamFit, error) {
	g := f.top
	L, blocks, sizes := sd.l, sd.blocks, sd.sizes
	f.Trace = sd.trace
	var err error
	rmax := min(f.n, lsq.ShardRows)
	rowsBuf := make([]float32, rmax*L) // one row shard's pooled outputs, image-major
	features := func(x []float32, r int) error {
		for _, b := range blocks {
			if err := b.Layer.Apply(x, r, rowsBuf, L, b.Off); err != nil {
				return err
			}
		}
		f.Prof.Products += int64(len(blocks))
		f.Prof.Batches++
		return nil
	}
	var cmean, csc []float32
	if g.Standardize {
		t1 := time.Now()
		if cmean, csc, err = streamOutputMoments(pass, f.n, L, rowsBuf, features); err != nil {
			return nil, err
		}
		f.Prof.Scoring += time.Since(t1)
	}
	// The Gram sums of every block in one pass.
	t2 := time.Now()
	eng := lsq.NewGramH(nil, 0, f.m, f.opt.Ridge, f32, L, false)
	eng.BF16 = bf16
	eng.TT = tt
	ps := eng.NewPass(sizes, rmax)
	hidden := func(lo, hi, j0, j1 int, h []float32) {
		w := hi - lo
		for j := j0; j < j1; j++ {
			dst := h[(j-j0)*w : (j-j0+1)*w]
			for i := range dst {
				dst[i] = rowsBuf[(lo+i)*L+j]
			}
		}
	}
	err = pass(func(x []float32, r int, tc []float64) error {
		if err := features(x, r); err != nil {
			return err
		}
		StandardizeRows(rowsBuf[:r*L], L, cmean, csc)
		eng.TC, eng.N = tc, r
		eng.PassShard(ps, 0, r, hidden)
		return nil
	})
	eng.TC, eng.N = nil, f.n
	if err != nil {
		return nil, err
	}
	eng.EndPass(ps)
	for range sizes {
		if !eng.AddAccumulated() {
			return nil, fmt.Errorf("scn: pooled outputs of local filters are linearly dependent (ridge %g)", f.opt.Ridge)
		}
	}
	f.Prof.Ortho = time.Since(t2)
	t3 := time.Now()
	beta, err := eng.Solve(L, f.opt.Ridge)
	if err != nil {
		return nil, err
	}
	f.Prof.Solve = time.Since(t3)
	ll := &Layer{Geometry: *g, Banks: f.Banks}
	if g.Second != nil {
		ll.Banks, ll.Second = f.SecondBanks()
	}
	if g.Standardize {
		ll.Mean, ll.Scale = cmean, csc
	}
	return &StreamFit{Layer: ll, Beta: beta, L: L, RSS: eng.RSS(L, beta)}, nil
}

// streamOutputMoments is the second pass of a streamed local fit: each
// pooled output's mean and scale over the n images, the outputs of a row
// shard computed by features into rows (L values an image). The mean is
// the fit in memory's, bit for bit; the deviation comes from sums shifted
// by the output on the first image (Sum (h - h_1) and Sum (h - h_1)^2).
func streamOutputMoments(pass Pass, n, L int, rows []float32, features func(x []float32, r int) error) (mean, scale []float32, err error) {
	s, a, b, first := make([]float64, L), make([]float64, L), make([]float64, L), make([]float64, L)
	seen := 0
	err = pass(func(x []float32, r int, _ []float64) error {
		if err := features(x, r); err != nil {
			return err
		}
		if seen == 0 {
			for j := range first {
				first[j] = float64(rows[j])
			}
		}
		par.Chunks(L, 64, func(_, j0, j1 int) {
			for i := 0; i < r; i++ {
				row := rows[i*L : (i+1)*L]
				for j := j0; j < j1; j++ {
					v := float64(row[j])
					s[j] += v
					d := v - first[j]
					a[j] += d
					b[j] += d * d
				}
			}
		})
		seen += r
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	nf := float64(n)
	mean, scale = make([]float32, L), make([]float32, L)
	for j := range mean {
		mu := s[j] / nf
		v := max(b[j]-a[j]*a[j]/nf, 0) / nf
		mean[j], scale[j] = float32(mu), float32(math.Sqrt(v)+1e-6)
	}
	return mean, scale, nil
}

// SecondStreamBytes is what a second layer of geometry g adds to a
// streamed fit's memory on images of rows x cols x chans: per goroutine
// one image's maps of both layers (as SecondMemory counts them,
// without the blocks of pooled outputs on every image a fit in memory
// holds), and the moments' pass's images and pooled maps.
func SecondStreamBytes(g *Geometry, rows, cols, chans int) int64 {
	if g.Second == nil || len(g.Sizes) != 1 {
		return 0
	}
	pos := float64(rows+g.Sizes[0]) * float64(cols+g.Sizes[0])
	p := PlanesOf(g, max(rows, 1), max(cols, 1))
	pl := float64(max(p.Rows, 0)+g.Second.Size) * float64(max(p.Cols, 0)+g.Second.Size)
	per := float64(g.Filters)*pos + float64(p.Chans)*pl*(1+float64(g.Second.Size*g.Second.Size)) + float64(g.Second.Filters)*pl
	d := float64(max(rows, 1)) * float64(max(cols, 1)) * float64(max(chans, 1))
	batch := float64(SecondMomentBatch) * (d + float64(p.Chans)*float64(max(p.Rows, 0)*max(p.Cols, 0)))
	return memest.BytesOf(4*per*float64(runtime.GOMAXPROCS(0)) + 4*batch)
}
