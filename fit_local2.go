package scn

import (
	"context"
	"runtime"
	"time"

	"github.com/scn2d/scn/internal/local"
)

// Fitting two layers of local nodes (Local.Second, config_local2.go).
//
// The first layer's filters are drawn as a random learner's single bank
// is (whitened with Local.Whiten); with Concat their pooled outputs join
// the block engine first, as randomBank adds them. The moments of each
// plane the second layer reads (the first layer's pooled maps) are taken
// over up to secondMomentImages training images, evenly spaced, summed
// in float64 image by image in order; the second layer's filters are then
// drawn (random learners) or chosen (supervised ones, by the block form
// of the supervisory inequality, as supervisedBank chooses a bank) exactly
// as the filters of one bank are, those planes standing for the images'
// planes: drawn standard normal at the first scale on the planes
// standardised by those moments, the standardisation folded into the
// filters and biases (drawFilter). Each block of candidates' pooled outputs
// is computed image by image through both layers (local.Stack), so that
// no N x positions x filters array is held: the first layer is applied
// again for every block of second-layer filters.

// secondMomentImages bounds the images the planes' moments are taken
// over.
var secondMomentImages = 2048 // a variable for the tests

// twoLayers is the state of the second layer's fit.
type twoLayers struct {
	top   *Local       // the configuration's geometry (with Second)
	first *local.Layer // the first layer, ready to apply
}

// stack returns the two layers with the second layer's bank b.
func (t *twoLayers) stack(lf *localFit, b LocalBank) *local.Stack {
	return stackOf(lf.cfg.Kind.Input, lf.cfg.Activation, t.top, t.first, b, lf.x.Rows, lf.x.Cols)
}

// growTwo fits the two layers.
func (lf *localFit) growTwo(ctx context.Context, progress func(Step)) (StopReason, error) {
	top := lf.g
	k := top.Sizes[0]
	lf.banks = append(lf.banks, LocalBank{Size: k, Params: []float32{}, Bias: []float32{}})
	if err := lf.whiten(k); err != nil {
		return ReachedMaxNodes, err
	}
	if top.Second.Concat {
		if stop, err := lf.randomBank(ctx, k, progress); err != nil || stop == Cancelled {
			return stop, err
		}
		if lf.cfg.Kind.Choice == Supervised {
			// The second layer's filters are judged on the residual of
			// the first layer's outputs.
			lf.updateResidual()
			if lf.rmse() <= lf.cfg.Tolerance {
				return ReachedTolerance, nil
			}
		}
	} else {
		lf.drawBank(k)
	}
	first := bankLayer(lf.cfg.Kind.Input, lf.cfg.Activation, top, lf.banks[0], lf.x.Rows, lf.x.Cols, lf.ch)
	t0 := time.Now()
	mean, sd, err := planeMomentsOf(&local.Stack{First: first, Mid: top.Second.Mid(),
		Second: secondLayer(lf.cfg.Kind.Input, lf.cfg.Activation, top, LocalBank{Size: top.Second.Size, Params: []float32{}, Bias: []float32{}}, lf.x.Rows, lf.x.Cols)},
		lf.x)
	lf.prof.Scoring += time.Since(t0)
	if err != nil {
		return ReachedMaxNodes, err
	}
	// The second layer: its planes stand for the images' planes.
	p := top.Planes(lf.x.Rows, lf.x.Cols)
	lf.two = &twoLayers{top: top, first: first}
	lf.g, lf.ch, lf.cmean, lf.csd, lf.pw, lf.wm = top.SecondGeometry(), p.Chans, mean, sd, nil, nil
	defer func() { lf.g = top }()
	k2 := top.Second.Size
	lf.banks = append(lf.banks, LocalBank{Size: k2, Params: []float32{}, Bias: []float32{}})
	if lf.cfg.Kind.Choice == Supervised {
		return lf.supervisedBank(ctx, k2, progress)
	}
	return lf.randomBank(ctx, k2, progress)
}

// secondBanks returns the first layer's bank and the second layer's
// (empty when the fit stopped before it: a supervised fit whose first
// layer met the tolerance).
func (lf *localFit) secondBanks() ([]LocalBank, *LocalBank) {
	if len(lf.banks) > 1 {
		return lf.banks[:1], &lf.banks[1]
	}
	return lf.banks, &LocalBank{Size: lf.cfg.Local.Second.Size, Params: []float32{}, Bias: []float32{}}
}

// drawBank draws the filters of the last bank, of side k, without their
// pooled outputs: the random stream randomBank would use.
func (lf *localFit) drawBank(k int) {
	nm := filterMap(lf.cfg.Kind.Input, k, lf.ch)
	np := nm.Size()
	bank := &lf.banks[len(lf.banks)-1]
	bank.Params = make([]float32, lf.g.Filters*np)
	bank.Bias = make([]float32, lf.g.Filters)
	for j := range bank.Bias {
		bank.Bias[j] = lf.drawFilter(nm, k, lf.cfg.Scales[0], bank.Params[j*np:(j+1)*np])
	}
	lf.tried += lf.g.Filters
}

// planeMomentsOf returns the mean and standard deviation of each plane of
// the first layer's pooled maps (st's first layer and pooling) over up to
// secondMomentImages of the images x, image i*N/S for i < S (a deviation
// of 0 is taken as 1).
func planeMomentsOf(st *local.Stack, x Images) (mean, sd []float64, err error) {
	n, d := x.Len(), x.Dim()
	s := min(n, secondMomentImages)
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
			copy(img[i*d:(i+1)*d], x.Pix[j*d:(j+1)*d])
		}
		if err := st.Maps(img, r, maps); err != nil {
			return nil, nil, err
		}
		mo.Add(maps, r)
	}
	mean, sd = mo.Result()
	return mean, sd, nil
}

// secondBlockBytes bounds the pooled outputs (float32) of one block of a
// random second layer's filters on every image.
var secondBlockBytes = 64 << 20 // a variable for the tests

// secondBlock returns the filters per block of a random second layer of
// f filters with per pooled outputs each on n images: as many as
// secondBlockBytes holds, at least localRandomBlock. Each block applies
// the first layer again, so larger blocks save its passes.
func secondBlock(n, per, f int) int {
	b := secondBlockBytes / (4 * max(n, 1) * max(per, 1))
	return max(localRandomBlock, min(b, f))
}

// randomBlock returns the filters per block of randomBank.
func (lf *localFit) randomBlock() int {
	if lf.two == nil {
		return localRandomBlock
	}
	return secondBlock(lf.n, lf.g.PerFilter(), lf.g.Filters)
}

// secondMemory returns the bytes a second layer adds to a fit's working
// memory per goroutine (see localMemory): one image's first-layer maps,
// pooled maps, the second layer's patches and maps (float32).
func (c Config) secondMemory(n, rows, cols int) int64 {
	g := c.Local
	if g.Second == nil || len(g.Sizes) != 1 {
		return 0
	}
	blocks := 2 * 4 * float64(secondBlock(n, g.PerFilter(), g.Second.Filters)) * float64(g.PerFilter()) * float64(max(n, 1))
	pos := float64(rows+g.Sizes[0]) * float64(cols+g.Sizes[0])
	p := g.Planes(max(rows, 1), max(cols, 1))
	pl := float64(max(p.Rows, 0)+g.Second.Size) * float64(max(p.Cols, 0)+g.Second.Size)
	per := float64(g.Filters)*pos + float64(p.Chans)*pl*(1+float64(g.Second.Size*g.Second.Size)) + float64(localRandomBlock)*pl
	return bytesOf(4*per*float64(runtime.GOMAXPROCS(0)) + blocks)
}
