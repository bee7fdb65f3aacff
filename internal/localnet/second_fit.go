package localnet

import (
	"context"
	"runtime"
	"time"

	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/memest"
)

// Fitting two layers of local nodes (Geometry.Second).
//
// The first layer's filters are drawn as a random learner's single bank
// is (whitened with Geometry.Whiten); with Concat their pooled outputs
// join the block engine first, as randomBank adds them. The moments of
// each plane the second layer reads (the first layer's pooled maps) are
// taken over up to SecondMomentImages training images, evenly spaced,
// summed in float64 image by image in order; the second layer's filters
// are then drawn (random learners) or chosen (supervised ones, by the
// block form of the supervisory inequality, as supervisedBank chooses a
// bank) exactly as the filters of one bank are, those planes standing for
// the images' planes: drawn standard normal at the first scale on the
// planes standardised by those moments, the standardisation folded into
// the filters and biases (DrawFilter). Each block of candidates' pooled
// outputs is computed image by image through both layers (local.Stack),
// so that no N x positions x filters array is held: the first layer is
// applied again for every block of second-layer filters.

// SecondMomentImages bounds the images the planes' moments are taken
// over.
var SecondMomentImages = 2048 // a variable for the tests

// twoLayers is the state of the second layer's fit.
type twoLayers struct {
	top   *Geometry    // the configuration's geometry (with Second)
	first *local.Layer // the first layer, ready to apply
}

// stack returns the two layers with the second layer's bank b.
func (t *twoLayers) stack(f *Fit, b Bank) *local.Stack {
	return f.opt.Stack(t.top, t.first, b, f.rows, f.cols)
}

// growTwo fits the two layers.
func (f *Fit) growTwo(ctx context.Context, progress func(Step)) (Stop, error) {
	top := f.g
	k := top.Sizes[0]
	f.Banks = append(f.Banks, Bank{Size: k, Params: []float32{}, Bias: []float32{}})
	if err := f.whiten(k); err != nil {
		return ReachedMaxNodes, err
	}
	if top.Second.Concat {
		if stop, err := f.randomBank(ctx, k, progress); err != nil || stop == Cancelled {
			return stop, err
		}
		if f.opt.Supervised {
			// The second layer's filters are judged on the residual of
			// the first layer's outputs.
			f.updateResidual()
			if f.RMSE() <= f.opt.Tolerance {
				return ReachedTolerance, nil
			}
		}
	} else {
		f.drawBank(k)
	}
	first := f.opt.Bank(top, f.Banks[0], f.rows, f.cols, f.ch)
	t0 := time.Now()
	mean, sd, err := planeMomentsOf(&local.Stack{First: first, Mid: MidOf(top.Second),
		Second: f.opt.SecondBank(top, Bank{Size: top.Second.Size, Params: []float32{}, Bias: []float32{}}, f.rows, f.cols)},
		f.x, f.n, f.rows*f.cols*f.ch)
	f.Prof.Scoring += time.Since(t0)
	if err != nil {
		return ReachedMaxNodes, err
	}
	// The second layer: its planes stand for the images' planes.
	p := PlanesOf(top, f.rows, f.cols)
	f.two = &twoLayers{top: top, first: first}
	f.g, f.ch, f.cmean, f.csd, f.pw, f.wm = top.SecondGeometry(), p.Chans, mean, sd, nil, nil
	defer func() { f.g = top }()
	k2 := top.Second.Size
	f.Banks = append(f.Banks, Bank{Size: k2, Params: []float32{}, Bias: []float32{}})
	if f.opt.Supervised {
		return f.supervisedBank(ctx, k2, progress)
	}
	return f.randomBank(ctx, k2, progress)
}

// SecondBanks returns the first layer's bank and the second layer's
// (empty when the fit stopped before it: a supervised fit whose first
// layer met the tolerance).
func (f *Fit) SecondBanks() ([]Bank, *Bank) {
	if len(f.Banks) > 1 {
		return f.Banks[:1], &f.Banks[1]
	}
	return f.Banks, &Bank{Size: f.top.Second.Size, Params: []float32{}, Bias: []float32{}}
}

// drawBank draws the filters of the last bank, of side k, without their
// pooled outputs: the random stream randomBank would use.
func (f *Fit) drawBank(k int) {
	nm := f.opt.FilterMap(k, f.ch)
	np := nm.Size()
	bank := &f.Banks[len(f.Banks)-1]
	bank.Params = make([]float32, f.g.Filters*np)
	bank.Bias = make([]float32, f.g.Filters)
	for j := range bank.Bias {
		bank.Bias[j] = f.DrawFilter(nm, k, f.opt.Scales[0], bank.Params[j*np:(j+1)*np])
	}
	f.Tried += f.g.Filters
}

// planeMomentsOf returns the mean and standard deviation of each plane of
// the first layer's pooled maps (st's first layer and pooling) over up to
// SecondMomentImages of the n images x of d values, image i*N/S for i < S
// (a deviation of 0 is taken as 1).
func planeMomentsOf(st *local.Stack, x []float32, n, d int) (mean, sd []float64, err error) {
	s := min(n, SecondMomentImages)
	p := st.Planes()
	plane := p.Rows * p.Cols
	mo := local.NewMoments(p.Chans, plane)
	const batch = 64
	img := make([]float32, batch*d)
	maps := make([]float32, batch*p.Chans*plane)
	for lo := 0; lo < s; lo += batch {
		r := min(batch, s-lo)
		for i := 0; i < r; i++ {
			j := (lo + i) * n / s
			copy(img[i*d:(i+1)*d], x[j*d:(j+1)*d])
		}
		if err := st.Maps(img, r, maps); err != nil {
			return nil, nil, err
		}
		mo.Add(maps, r)
	}
	mean, sd = mo.Result()
	return mean, sd, nil
}

// SecondBlockBytes bounds the pooled outputs (float32) of one block of a
// random second layer's filters on every image.
var SecondBlockBytes = 64 << 20 // a variable for the tests

// SecondBlock returns the filters per block of a random second layer of
// f filters with per pooled outputs each on n images: as many as
// SecondBlockBytes holds, at least RandomBlock. Each block applies the
// first layer again, so larger blocks save its passes.
func SecondBlock(n, per, f int) int {
	b := SecondBlockBytes / (4 * max(n, 1) * max(per, 1))
	return max(RandomBlock, min(b, f))
}

// randomBlock returns the filters per block of randomBank.
func (f *Fit) randomBlock() int {
	if f.two == nil {
		return RandomBlock
	}
	return SecondBlock(f.n, f.g.PerFilter(), f.g.Filters)
}

// SecondMemory returns the bytes a second layer of geometry g adds to a
// fit's working memory on n images of rows x cols per goroutine: one
// image's first-layer maps, pooled maps, the second layer's patches and
// maps (float32).
func SecondMemory(g *Geometry, n, rows, cols int) int64 {
	if g.Second == nil || len(g.Sizes) != 1 {
		return 0
	}
	blocks := 2 * 4 * float64(SecondBlock(n, g.PerFilter(), g.Second.Filters)) * float64(g.PerFilter()) * float64(max(n, 1))
	pos := float64(rows+g.Sizes[0]) * float64(cols+g.Sizes[0])
	p := PlanesOf(g, max(rows, 1), max(cols, 1))
	pl := float64(max(p.Rows, 0)+g.Second.Size) * float64(max(p.Cols, 0)+g.Second.Size)
	per := float64(g.Filters)*pos + float64(p.Chans)*pl*(1+float64(g.Second.Size*g.Second.Size)) + float64(RandomBlock)*pl
	return memest.BytesOf(4*per*float64(runtime.GOMAXPROCS(0)) + blocks)
}
