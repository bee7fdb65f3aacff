package scn

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/scn2d/scn/internal/local"
)

// Streamed fits of two layers of local random filters (Local.Second with
// RVFL or 2DRVFL): FitStream as for one layer (stream_local.go), with one
// more pass.
//
//   - Pass 1 (and the whitening's pass) as for one layer: the first
//     layer's filters are then drawn as the fit in memory draws them (the
//     same random numbers in the same order; with Concat in blocks of
//     localRandomBlock whose pooled outputs are kept, as randomBank adds
//     them).
//   - A pass takes the moments of the planes the second layer reads (the
//     first layer's activated maps pooled between the layers) over the
//     images the fit in memory takes them over (image i N/S for i < S, S =
//     min(N, secondMomentImages)), summed image by image in order: the
//     same bits (planeMomentsOf).
//   - The second layer's filters are drawn on those planes as in memory,
//     in the blocks the fit in memory takes (secondBlock of the images
//     counted), each block a local.Stack that applies both layers image
//     by image.
//   - The standardisation and Gram passes and the solve are one layer's
//     (localStreamSolve), every block applied to each row shard.
//
// The model is the fit in memory's as for one layer (TestLocal2Stream):
// the same filters of both layers, means and trace, scales to their last
// bit, output weights the same bits when the scales are. Memory is one
// layer's: one row shard's pooled outputs, never N x positions x filters;
// the moments' pass holds secondMomentBatch images and their pooled maps.

// secondMomentBatch is the images whose pooled maps the moments' pass
// computes at a time (planeMomentsOf's batch).
const secondMomentBatch = 64

// fitLocal2Stream is fitLocalStream for two layers: lf holds the images'
// plane moments, whitening the first layer's (nil without).
func (c Config) fitLocal2Stream(ctx context.Context, src Source, sc *streamScan, lf *localFit, whitening []*patchWhitening, channels int,
	start time.Time, progress func(Step)) (*Model, error) {
	top := lf.g
	s := top.Second
	k, per, lambda := top.Sizes[0], top.PerFilter(), c.Scales[0]
	if whitening != nil {
		lf.pw, lf.wm = whitening[0], whitening[0].Matrix32()
	}
	var blocks []localStreamBlock
	var sizes []int
	var trace []Step
	L := 0
	// draw draws count filters of side k over chans planes (the random
	// stream's next numbers).
	draw := func(k, chans, count int) ([]float32, []float32) {
		nm := filterMap(c.Kind.Input, k, chans)
		np := nm.Size()
		params, bias := make([]float32, count*np), make([]float32, count)
		for j := range bias {
			bias[j] = lf.drawFilter(nm, k, lambda, params[j*np:(j+1)*np])
		}
		return params, bias
	}
	// add records a block of b filters whose pooled outputs ly gives.
	add := func(ly localApplier, b int) {
		blocks = append(blocks, localStreamBlock{layer: ly, off: L})
		sizes = append(sizes, b*per)
		L += b * per
		for j := 0; j < b; j++ {
			trace = append(trace, Step{L: L - (b-1-j)*per, Scale: lambda, Tried: 1})
		}
	}
	t0 := time.Now()
	first := LocalBank{Size: k, Params: []float32{}, Bias: []float32{}, Whiten: lf.wm}
	for done := 0; done < top.Filters; {
		b := min(localRandomBlock, top.Filters-done)
		params, bias := draw(k, sc.chans, b)
		if s.Concat {
			add(bankLayer(c.Kind.Input, c.Activation, top, LocalBank{Size: k, Params: params, Bias: bias, Whiten: lf.wm}, sc.rows, sc.cols, sc.chans), b)
		}
		first.Params = append(first.Params, params...)
		first.Bias = append(first.Bias, bias...)
		done += b
	}
	lf.banks = append(lf.banks, first)
	lf.tried += top.Filters
	lf.prof.Draw += time.Since(t0)
	firstLayer := bankLayer(c.Kind.Input, c.Activation, top, first, sc.rows, sc.cols, sc.chans)
	t1 := time.Now()
	empty := LocalBank{Size: s.Size, Params: []float32{}, Bias: []float32{}}
	mean, sd, err := c.streamPlaneMoments(ctx, src, sc, channels, &local.Stack{First: firstLayer, Mid: s.Mid(),
		Second: secondLayer(c.Kind.Input, c.Activation, top, empty, sc.rows, sc.cols)})
	if err != nil {
		return nil, err
	}
	lf.prof.Scoring += time.Since(t1)
	// The second layer: its planes stand for the images' planes.
	t2 := time.Now()
	p := top.Planes(sc.rows, sc.cols)
	lf.ch, lf.cmean, lf.csd, lf.pw, lf.wm = p.Chans, mean, sd, nil, nil
	second := LocalBank{Size: s.Size, Params: []float32{}, Bias: []float32{}}
	blk := secondBlock(sc.n, per, s.Filters)
	for done := 0; done < s.Filters; {
		b := min(blk, s.Filters-done)
		params, bias := draw(s.Size, p.Chans, b)
		add(stackOf(c.Kind.Input, c.Activation, top, firstLayer, LocalBank{Size: s.Size, Params: params, Bias: bias}, sc.rows, sc.cols), b)
		second.Params = append(second.Params, params...)
		second.Bias = append(second.Bias, bias...)
		done += b
	}
	lf.banks = append(lf.banks, second)
	lf.tried += s.Filters
	lf.ch = sc.chans
	lf.prof.Draw += time.Since(t2)
	return c.localStreamSolve(ctx, src, sc, lf, blocks, sizes, trace, channels, start, progress)
}

// streamPlaneMoments is the moments' pass of a streamed two-layer fit:
// planeMomentsOf over the images of the stream, st being the first layer
// and the pooling between the layers.
func (c Config) streamPlaneMoments(ctx context.Context, src Source, sc *streamScan, channels int, st *local.Stack) (mean, sd []float64, err error) {
	n := sc.n
	s := min(n, secondMomentImages)
	p := st.Planes()
	plane := p.Rows * p.Cols
	mo := local.NewMoments(p.Chans, plane)
	x := Images{Rows: sc.rows, Cols: sc.cols, Channels: channels}
	d := x.Dim()
	img := make([]float32, secondMomentBatch*d)
	maps := make([]float32, secondMomentBatch*p.Chans*plane)
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
	err = streamRowsOf(ctx, src, sc, n, &x, func(r int, _ []float64) error {
		for ; next < s; next++ {
			j := next * n / s
			if j >= seen+r {
				break
			}
			copy(img[held*d:(held+1)*d], x.Pix[(j-seen)*d:(j-seen+1)*d])
			if held++; held == secondMomentBatch {
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
		err = fmt.Errorf("%w: the stream gave %d of the %d images the second layer's moments are taken over", ErrData, next, s)
	}
	if err != nil {
		return nil, nil, err
	}
	mean, sd = mo.Result()
	return mean, sd, nil
}

// secondStreamBytes is what a second layer adds to localStreamBytes: per
// goroutine one image's maps of both layers (as secondMemory counts them,
// without the blocks of pooled outputs on every image a fit in memory
// holds), and the moments' pass's images and pooled maps.
func (c Config) secondStreamBytes(rows, cols, chans int) int64 {
	g := c.Local
	if g.Second == nil || len(g.Sizes) != 1 {
		return 0
	}
	pos := float64(rows+g.Sizes[0]) * float64(cols+g.Sizes[0])
	p := g.Planes(max(rows, 1), max(cols, 1))
	pl := float64(max(p.Rows, 0)+g.Second.Size) * float64(max(p.Cols, 0)+g.Second.Size)
	per := float64(g.Filters)*pos + float64(p.Chans)*pl*(1+float64(g.Second.Size*g.Second.Size)) + float64(g.Second.Filters)*pl
	d := float64(max(rows, 1)) * float64(max(cols, 1)) * float64(max(chans, 1))
	batch := float64(secondMomentBatch) * (d + float64(p.Chans)*float64(max(p.Rows, 0)*max(p.Cols, 0)))
	return bytesOf(4*per*float64(runtime.GOMAXPROCS(0)) + 4*batch)
}
