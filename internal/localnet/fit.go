package localnet

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
	"github.com/scn2d/scn/internal/par"
	"gonum.org/v1/gonum/floats"
)

// Fitting local nodes (Config.Local).
//
// Every filter is drawn standard normal (u, v and w, or the full weights),
// scaled to norm lambda (the scale), with a bias uniform on
// [-lambda/2, lambda/2], as a filter acting on images whose planes are
// standardised (each plane's mean subtracted and divided by its standard
// deviation over the training images); the standardisation is then folded
// into the filter (w_c / s_c, or u / s for grey images) and its bias, so
// that the model applies its filters to the images as they are. Zero
// padding is padding of the images as they are.
//
// Random learners draw the filters of each bank in blocks of RandomBlock;
// supervised ones take SupervisedBlock filters per step (Options.BlockSize
// when it is 1 ... 64), each step drawing Candidates times as many at each
// scale of Options.Scales in turn and keeping those whose block of pooled
// outputs H_c (N x p^2 per kind and side) meets the block form of the
// supervisory inequality (Dai, Li, Zhou, Chai, Information Sciences 484,
// 2019) for every output q,
//
//	xi_q = e_q^T H_c (H_c^T H_c)^-1 H_c^T e_q - (1 - r) e_q^T e_q >= 0,
//
// at the first r of Options.Ratios that admits enough of them, best
// (largest sum of xi_q) first, e being the residual of the ridge solution
// of every output so far. The pooled outputs of the chosen filters are
// standardised (Geometry.Standardize: each column by its own mean and
// deviation over the training images, recorded in the model) and appended
// to the block engine's Gram sums; the output weights are its ridge
// solution.

// RandomBlock is the filters per pass of a random local fit.
const RandomBlock = 32

// SupervisedBlock is the filters per step of a supervised local fit
// whose BlockSize is not 1 ... 64.
const SupervisedBlock = 4

// AcceptHook, when set (tests), is called for every filter a supervised
// local fit accepts, before its columns join the engine: its pooled
// outputs (per columns of n, standardised), the residual it was judged
// against (m rows of n) and r.
var AcceptHook func(cols []float32, per, n int, e []float64, m int, r float64)

// Options is what a local fit needs of the configuration.
type Options struct {
	Maps
	// Supervised chooses the filters by the supervisory inequality;
	// otherwise every filter is drawn.
	Supervised bool
	Seed       uint64
	Ridge      float64
	Tolerance  float64
	Scales     []float64
	Ratios     []float64
	Candidates int
	BlockSize  int
}

// Stop says why a fit stopped (the root's StopReason: drive's).
type Stop = drive.StopReason

// The reasons a local fit stops.
const (
	ReachedMaxNodes  = drive.ReachedMaxNodes
	ReachedTolerance = drive.ReachedTolerance
	NoAdmissible     = drive.NoAdmissible
	Cancelled        = drive.Cancelled
)

// Step is one filter's step of the fit's trace (the root's Step: drive's).
type Step = drive.Step

// Profile splits the fit's time (the root's Profile: drive's).
type Profile = drive.Profile

// Applier is a block of filters ready to apply: a local.Layer, or a
// local.Stack (a block of a second layer's filters after the first
// layer).
type Applier interface {
	Outputs() int
	Apply(x []float32, n int, out []float32, ldo, off int) error
}

// Fit is the state of a local fit.
type Fit struct {
	opt        Options
	g          *Geometry
	x          []float32 // the images, n of rows x cols x ch (nil for a streamed fit)
	rows, cols int
	n, m, ch   int // ch: the planes the filters read (the second layer's while it is fitted)
	imgCh      int // the images' planes
	rng        *rand.Rand
	cmean, csd []float64 // the planes' moments
	// Eng is the block engine of the pooled outputs (nil for a streamed
	// fit, which draws only).
	Eng      *lsq.Gram
	e, ee    []float64 // residual (m rows of N) and its column norms (supervised)
	mean, sc []float32 // the standardisation of the columns so far
	// Banks are the banks drawn or chosen so far.
	Banks []Bank
	// Trace has a step per filter added.
	Trace []Step
	// Tried counts the filters drawn.
	Tried int
	// Prof splits the fit's time.
	Prof Profile
	// Aug is the engine of the sums with the augmented copies
	// (AugmentSums), nil without.
	Aug   *lsq.Gram
	moves []augMove // the copies of each image (augment.go)
	extra int       // the copies per image
	pw    *local.Whitening
	wm    []float32  // the current bank's whitening in float32, the bank's Whiten
	two   *twoLayers // the second layer's fit (second_fit.go), nil without
	top   *Geometry  // the configuration's geometry (g is the second layer's while it is fitted)
}

// NewFit starts a local fit of geometry g (checked against the images) on
// the n images x of rows x cols x ch (ch >= 1; nil for a streamed fit),
// the planes' moments (cmean, csd) given, m outputs, drawing from rng. A
// fit in memory then sets its engine (Start).
func NewFit(opt Options, g *Geometry, x []float32, n, rows, cols, ch, m int, cmean, csd []float64, rng *rand.Rand) *Fit {
	return &Fit{opt: opt, g: g, top: g, x: x, rows: rows, cols: cols, n: n, m: m, ch: ch, imgCh: ch, rng: rng, cmean: cmean, csd: csd}
}

// Start sets the fit's block engine, holding the targets' sums (a
// supervised fit's residual starts from them).
func (f *Fit) Start(eng *lsq.Gram) {
	f.Eng = eng
	if f.opt.Supervised {
		f.e = append([]float64(nil), eng.TC...)
		f.ee = append([]float64(nil), eng.TT...)
	}
}

// N returns the training images.
func (f *Fit) N() int { return f.n }

// PlaneMoments returns the mean and standard deviation of each of the ch
// planes of plane pixels over the n images x (a deviation of 0 is taken
// as 1; local.Moments).
func PlaneMoments(x []float32, n, ch, plane int) (mean, sd []float64) {
	mo := local.NewMoments(ch, plane)
	mo.Add(x, n)
	return mo.Result()
}

// RMSE returns the training RMSE of the residual so far (supervised).
func (f *Fit) RMSE() float64 {
	return math.Sqrt(floats.Sum(f.ee) / float64(f.n*f.m))
}

// DrawFilter draws one filter of side k at scale lambda into p and
// returns its bias, the planes' standardisation folded in (see the top of
// the file).
func (f *Fit) DrawFilter(nm node.Map, k int, lambda float64, p []float32) float32 {
	for i := range p {
		p[i] = float32(f.rng.NormFloat64())
	}
	if nrm := nm.WeightNorm(p); nrm > 0 {
		node.Scale(f.opt.Matrix, p, k, lambda/nrm)
	}
	b := lambda * (f.rng.Float64() - 0.5)
	kk := k * k
	w := make([]float32, f.ch*kk)
	nm.Weight(p, w)
	if f.pw != nil {
		// The filter acts on whitened patches: its planes' standardisation
		// is in the bank's matrix, the rest of the whitening in its bias.
		return float32(f.pw.FoldBias(w, b))
	}
	for c := 0; c < f.ch; c++ {
		var s float64
		for _, v := range w[c*kk : (c+1)*kk] {
			s += float64(v)
		}
		b -= s * f.cmean[c] / f.csd[c]
	}
	if f.opt.Matrix {
		if f.ch > 1 {
			for c := 0; c < f.ch; c++ {
				p[2*k+c] = float32(float64(p[2*k+c]) / f.csd[c])
			}
		} else {
			node.Scale(true, p, k, 1/f.csd[0])
		}
	} else {
		for c := 0; c < f.ch; c++ {
			for i := c * kk; i < (c+1)*kk; i++ {
				p[i] = float32(float64(p[i]) / f.csd[c])
			}
		}
	}
	return float32(b)
}

// drawColumns draws count filters of side k at scale lambda (their
// parameters and biases, in the order of the random stream) and returns
// them with their pooled output columns (columns).
func (f *Fit) drawColumns(nm node.Map, k int, lambda float64, count int) (params, bias, cols, mean, sc []float32, err error) {
	np := nm.Size()
	t0 := time.Now()
	params = make([]float32, count*np)
	bias = make([]float32, count)
	for j := range bias {
		bias[j] = f.DrawFilter(nm, k, lambda, params[j*np:(j+1)*np])
	}
	f.Prof.Draw += time.Since(t0)
	cols, mean, sc, err = f.columns(k, params, bias)
	return params, bias, cols, mean, sc, err
}

// columns computes the pooled outputs of the filters (params, bias) of side
// k on every training image and returns them node-major (per*F rows of N),
// standardised with their own moments when the geometry says so, and those
// moments (nil without standardisation).
func (f *Fit) columns(k int, params, bias []float32) (cols []float32, mean, sc []float32, err error) {
	b := Bank{Size: k, Params: params, Bias: bias, Whiten: f.wm}
	var ly Applier
	if f.two != nil {
		ly = f.two.stack(f, b)
	} else {
		ly = f.opt.Bank(f.g, b, f.rows, f.cols, f.ch)
	}
	l, n := ly.Outputs(), f.n
	rows := make([]float32, n*l)
	t0 := time.Now()
	if err := ly.Apply(f.x, n, rows, l, 0); err != nil {
		return nil, nil, nil, err
	}
	f.Prof.Scoring += time.Since(t0)
	f.Prof.Products += int64(b.Filters())
	f.Prof.Batches++
	cols = make([]float32, l*n)
	if f.g.Standardize {
		mean, sc = make([]float32, l), make([]float32, l)
	}
	par.Chunks(l, 8, func(_, a, z int) {
		for j := a; j < z; j++ {
			col := cols[j*n : (j+1)*n]
			for i := range col {
				col[i] = rows[i*l+j]
			}
			if mean == nil {
				continue
			}
			var s, s2 float64
			for _, v := range col {
				s += float64(v)
			}
			mu := s / float64(n)
			for _, v := range col {
				d := float64(v) - mu
				s2 += d * d
			}
			mean[j], sc[j] = float32(mu), float32(math.Sqrt(s2/float64(n))+1e-6)
			for i, v := range col {
				col[i] = (v - mean[j]) / sc[j]
			}
		}
	})
	return cols, mean, sc, nil
}

// add appends the columns of filters to the engine and their
// standardisation to the model's.
func (f *Fit) add(cols []float32, cnt int, mean, sc []float32) error {
	t0 := time.Now()
	ok := f.Eng.AddBlock(cols, cnt)
	f.Prof.Ortho += time.Since(t0)
	for _, o := range ok {
		if !o {
			return fmt.Errorf("scn: pooled outputs of local filters are linearly dependent (ridge %g)", f.opt.Ridge)
		}
	}
	f.mean = append(f.mean, mean...)
	f.sc = append(f.sc, sc...)
	return nil
}

// Grow fills the banks, one filter size after another, calling progress
// (when not nil) with every step.
func (f *Fit) Grow(ctx context.Context, progress func(Step)) (Stop, error) {
	if f.g.Second != nil {
		return f.growTwo(ctx, progress)
	}
	stop := ReachedMaxNodes
	for _, k := range f.g.Sizes {
		f.Banks = append(f.Banks, Bank{Size: k, Params: []float32{}, Bias: []float32{}})
		if err := f.whiten(k); err != nil {
			return ReachedMaxNodes, err
		}
		var err error
		if f.opt.Supervised {
			stop, err = f.supervisedBank(ctx, k, progress)
		} else {
			stop, err = f.randomBank(ctx, k, progress)
		}
		if err != nil || stop == ReachedTolerance || stop == Cancelled {
			return stop, err
		}
	}
	return stop, nil
}

// whiten sets the whitening of the bank of filters of side k (the last
// bank) when the geometry asks for it.
func (f *Fit) whiten(k int) error {
	if !f.g.Whiten {
		return nil
	}
	t0 := time.Now()
	pw, err := WhitenPatches(f.x, f.n, f.rows, f.cols, f.ch, f.g, k, f.cmean, f.csd, f.opt.Seed)
	f.Prof.Draw += time.Since(t0)
	if err != nil {
		return err
	}
	f.SetWhitening(pw)
	f.Banks[len(f.Banks)-1].Whiten = f.wm
	return nil
}

// SetWhitening sets the whitening of the filters drawn next (nil: none),
// and returns its matrix in float32 (the bank's Whiten).
func (f *Fit) SetWhitening(pw *local.Whitening) []float32 {
	f.pw, f.wm = pw, nil
	if pw != nil {
		f.wm = pw.Matrix32()
	}
	return f.wm
}

// record notes the steps of added filters.
func (f *Fit) record(steps []Step, progress func(Step)) {
	for _, st := range steps {
		f.Trace = append(f.Trace, st)
		if progress != nil {
			progress(st)
		}
	}
}

// randomBank draws the bank of filters of side k in blocks.
func (f *Fit) randomBank(ctx context.Context, k int, progress func(Step)) (Stop, error) {
	nm := f.opt.FilterMap(k, f.ch)
	per := f.g.PerFilter()
	lambda := f.opt.Scales[0]
	bank := &f.Banks[len(f.Banks)-1]
	for done := 0; done < f.g.Filters; {
		if err := ctx.Err(); err != nil {
			return Cancelled, err
		}
		b := min(f.randomBlock(), f.g.Filters-done)
		params, bias, cols, mean, sc, err := f.drawColumns(nm, k, lambda, b)
		if err != nil {
			return ReachedMaxNodes, err
		}
		if err := f.add(cols, b*per, mean, sc); err != nil {
			return ReachedMaxNodes, err
		}
		bank.Params = append(bank.Params, params...)
		bank.Bias = append(bank.Bias, bias...)
		f.Tried += b
		steps := make([]Step, b)
		for j := range steps {
			steps[j] = Step{L: f.Eng.L - (b-1-j)*per, Scale: lambda, Tried: 1}
		}
		f.record(steps, progress)
		done += b
	}
	return ReachedMaxNodes, nil
}

// SupervisedStep returns the filters per step of a supervised fit of
// BlockSize blockSize.
func SupervisedStep(blockSize int) int {
	if blockSize >= 1 && blockSize <= 64 {
		return blockSize
	}
	return SupervisedBlock
}

// supervisedBank chooses the bank of filters of side k step by step.
func (f *Fit) supervisedBank(ctx context.Context, k int, progress func(Step)) (Stop, error) {
	c := f.opt
	nm := c.FilterMap(k, f.ch)
	np, per, n, m := nm.Size(), f.g.PerFilter(), f.n, f.m
	step := SupervisedStep(c.BlockSize)
	bank := &f.Banks[len(f.Banks)-1]
	for bank.Filters() < f.g.Filters {
		if err := ctx.Err(); err != nil {
			return Cancelled, err
		}
		b := min(step, f.g.Filters-bank.Filters())
		added := false
		tried := 0
		for _, lambda := range c.Scales {
			kc := c.Candidates * b
			params, bias, cols, mean, sc, err := f.drawColumns(nm, k, lambda, kc)
			if err != nil {
				return ReachedMaxNodes, err
			}
			tried += kc
			t1 := time.Now()
			xi := f.blockXi(cols, kc, per)
			order, ratio := node.AdmissibleGroups(xi, kc, m, c.Ratios, f.ee, b)
			f.Prof.Selection += time.Since(t1)
			if len(order) == 0 {
				continue
			}
			sel := make([]float32, 0, len(order)*per*n)
			var sm, ss []float32
			for _, j := range order {
				fc := cols[j*per*n : (j+1)*per*n]
				if AcceptHook != nil {
					AcceptHook(fc, per, n, f.e, m, ratio)
				}
				sel = append(sel, fc...)
				bank.Params = append(bank.Params, params[j*np:(j+1)*np]...)
				bank.Bias = append(bank.Bias, bias[j])
				if mean != nil {
					sm = append(sm, mean[j*per:(j+1)*per]...)
					ss = append(ss, sc[j*per:(j+1)*per]...)
				}
			}
			if err := f.add(sel, len(order)*per, sm, ss); err != nil {
				return ReachedMaxNodes, err
			}
			t2 := time.Now()
			f.updateResidual()
			f.Prof.Ortho += time.Since(t2)
			steps := make([]Step, len(order))
			for i := range steps {
				steps[i] = Step{L: f.Eng.L - (len(order)-1-i)*per, RMSE: f.RMSE(), Scale: lambda, Ratio: ratio}
			}
			steps[0].Tried = tried
			f.Tried += tried
			f.record(steps, progress)
			added = true
			break
		}
		if !added {
			f.Tried += tried
			return NoAdmissible, nil
		}
		if f.RMSE() <= c.Tolerance {
			return ReachedTolerance, nil
		}
	}
	return ReachedMaxNodes, nil
}

// updateResidual sets the residual of the ridge solution of every column
// so far, and its column norms.
func (f *Fit) updateResidual() {
	l := f.Eng.L
	beta, err := f.Eng.Solve(l, f.opt.Ridge)
	if err != nil {
		return // the kept factor is non-singular by construction
	}
	f.Eng.Residual(l, beta, f.e)
	for q := 0; q < f.m; q++ {
		eq := f.e[q*f.n : (q+1)*f.n]
		f.ee[q] = floats.Dot(eq, eq)
	}
}

// blockXi returns, for each of the kc candidates whose pooled outputs
// cols holds (per columns of N each), the projections of the residual on
// their columns (xi[j*m+q], node.GroupXi), the candidates in parallel.
func (f *Fit) blockXi(cols []float32, kc, per int) []float64 {
	n, m := f.n, f.m
	xi := make([]float64, kc*m)
	par.Chunks(kc, 1, func(j, _, _ int) {
		copy(xi[j*m:(j+1)*m], node.GroupXi(cols[j*per*n:(j+1)*per*n], f.e, n, per, m))
	})
	return xi
}

// Layer returns the fitted layer: the banks (the second layer's apart),
// the standardisation of their pooled outputs when the geometry asks.
func (f *Fit) Layer() *Layer {
	g := f.top
	ll := &Layer{Geometry: *g, Banks: f.Banks}
	if g.Second != nil {
		ll.Banks, ll.Second = f.SecondBanks()
	}
	if g.Standardize {
		ll.Mean, ll.Scale = f.mean, f.sc
	}
	return ll
}
