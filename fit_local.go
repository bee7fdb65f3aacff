package scn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/memest"
	"github.com/scn2d/scn/internal/node"
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
// Random learners draw the filters of each bank in blocks of
// localRandomBlock; supervised ones take localSupervisedBlock filters per
// step (Config.BlockSize when it is 1 ... 64), each step drawing Candidates
// times as many at each scale of Config.Scales in turn and keeping those
// whose block of pooled outputs H_c (N x p^2 per kind and side) meets the
// block form of the supervisory inequality (Dai, Li, Zhou, Chai,
// Information Sciences 484, 2019) for every output q,
//
//	xi_q = e_q^T H_c (H_c^T H_c)^-1 H_c^T e_q - (1 - r) e_q^T e_q >= 0,
//
// at the first r of Config.Ratios that admits enough of them, best (largest
// sum of xi_q) first, e being the residual of the ridge solution of every
// output so far. The pooled outputs of the chosen filters are standardised
// (Local.Standardize: each column by its own mean and deviation over the
// training images, recorded in the model) and appended to the block
// engine's Gram sums; the output weights are its ridge solution.

// localRandomBlock is the filters per pass of a random local fit.
const localRandomBlock = 32

// localSupervisedBlock is the filters per step of a supervised local fit
// whose BlockSize is not 1 ... 64.
const localSupervisedBlock = 4

// localAcceptHook, when set (tests), is called for every filter a
// supervised local fit accepts, before its columns join the engine: its
// pooled outputs (per columns of n, standardised), the residual it was
// judged against (m rows of n) and r.
var localAcceptHook func(cols []float32, per, n int, e []float64, m int, r float64)

// localFit is the state of a local fit.
type localFit struct {
	cfg        Config
	g          *Local
	x          Images
	n, m, ch   int
	rng        *rand.Rand
	cmean, csd []float64 // the planes' moments
	eng        *lsq.Gram
	e, ee      []float64 // residual (m rows of N) and its column norms (supervised)
	mean, sc   []float32 // the standardisation of the columns so far
	banks      []LocalBank
	trace      []Step
	tried      int
	prof       Profile
	aug        *lsq.Gram       // the sums with the augmented copies (augment.go), nil without
	moves      []augMove       // the copies of each image (augment.go)
	pw         *patchWhitening // the current bank's whitening (local_whiten.go), nil without
	wm         []float32       // its matrix in float32, the bank's Whiten
	two        *twoLayers      // the second layer's fit (fit_local2.go), nil without
}

// fitLocal fits a model of local nodes.
func (c Config) fitLocal(ctx context.Context, p Problem, progress func(Step)) (*Model, error) {
	m, _, err := c.fitLocalState(ctx, p, progress)
	return m, err
}

// fitLocalState is fitLocal, returning the fit's state too (its engine
// holds the pooled outputs and their Gram sums).
func (c Config) fitLocalState(ctx context.Context, p Problem, progress func(Step)) (*Model, *localFit, error) {
	start := time.Now()
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	if err := p.check(); err != nil {
		return nil, nil, err
	}
	x := p.X
	g := c.Local.Clone()
	if err := g.ForImages(x.Rows, x.Cols, x.Chans()); err != nil {
		return nil, nil, err
	}
	if c.Augment != nil {
		if err := c.Augment.ForImages(x.Rows, x.Cols); err != nil {
			return nil, nil, err
		}
	}
	lf := &localFit{cfg: c, g: g, x: x, n: x.Len(), m: p.M, ch: x.Chans(), rng: newRand(c.Seed)}
	lf.cmean, lf.csd = planeMoments(x)
	lf.eng = lsq.NewGram(p.T, lf.n, lf.m, c.Ridge, c.Float32Gram || c.BF16Gram, g.Outputs())
	lf.eng.BF16 = c.BF16Gram
	if c.Kind.Choice == Supervised {
		lf.e = append([]float64(nil), lf.eng.TC...)
		lf.ee = append([]float64(nil), lf.eng.TT...)
		if rmse := lf.rmse(); rmse <= c.Tolerance {
			return nil, nil, fmt.Errorf("%w: Tolerance = %g, but the training RMSE is %.4g before any node: nothing to fit", ErrConfig, c.Tolerance, rmse)
		}
	}
	stop, err := lf.grow(ctx, progress)
	if lf.eng.L == 0 {
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("scn: no local filter could be added (%v)", stop)
	}
	t0 := time.Now()
	if c.Augment != nil && err == nil {
		if aerr := lf.augmentSums(ctx, p.T); aerr != nil {
			if ctx.Err() == nil {
				return nil, nil, aerr
			}
			// Interrupted: the output weights of the images as they are
			// (a partial model, recorded without augmentation).
			stop, err = Cancelled, aerr
		}
	}
	beta, serr := lf.solver().Solve(lf.eng.L, c.Ridge)
	if serr != nil {
		return nil, nil, serr
	}
	lf.prof.Solve = time.Since(t0)
	res := make([]float64, lf.n*lf.m)
	lf.eng.Residual(lf.eng.L, beta, res)
	cfg := c
	cfg.Local = g
	cfg.Augment = nil
	if lf.aug != nil {
		cfg.Augment = c.Augment.clone()
	}
	cfg.Scales = append([]float64(nil), c.Scales...)
	cfg.Ratios = append([]float64(nil), c.Ratios...)
	ll := &LocalLayer{Geometry: *g, Banks: lf.banks}
	if g.Second != nil {
		ll.Banks, ll.Second = lf.secondBanks()
	}
	if g.Standardize {
		ll.Mean, ll.Scale = lf.mean, lf.sc
	}
	m := &Model{
		Kind: c.Kind, Activation: c.Activation, Rows: x.Rows, Cols: x.Cols, Channels: x.Channels, M: p.M,
		Params: []float32{}, Bias: []float32{}, Beta: beta, Config: cfg, Local: ll,
		Summary: Summary{
			Nodes: lf.eng.L, Samples: lf.n, Stop: stop, TrainRMSE: math.Sqrt(floats.Dot(res, res) / float64(lf.n*lf.m)),
			Tried: lf.tried, Trace: lf.trace, Duration: time.Since(start), Profile: lf.prof,
		},
	}
	if p.Classes != nil {
		m.Classes = append([]string(nil), p.Classes...)
	}
	if cerr := m.check(); cerr != nil {
		return nil, nil, cerr
	}
	return m, lf, err
}

// planeMoments returns the mean and standard deviation of each plane's
// pixels over the images (a deviation of 0 is taken as 1; local.Moments).
func planeMoments(x Images) (mean, sd []float64) {
	mo := local.NewMoments(x.Chans(), x.Rows*x.Cols)
	mo.Add(x.Pix, x.Len())
	return mo.Result()
}

// rmse returns the training RMSE of the residual so far.
func (lf *localFit) rmse() float64 {
	return math.Sqrt(floats.Sum(lf.ee) / float64(lf.n*lf.m))
}

// drawFilter draws one filter of side k at scale lambda into p and returns
// its bias, the planes' standardisation folded in (see the top of the file).
func (lf *localFit) drawFilter(nm nodeMap, k int, lambda float64, p []float32) float32 {
	for i := range p {
		p[i] = float32(lf.rng.NormFloat64())
	}
	if nrm := nm.WeightNorm(p); nrm > 0 {
		scaleNode(lf.cfg.Kind.Input, p, k, lambda/nrm)
	}
	b := lambda * (lf.rng.Float64() - 0.5)
	kk := k * k
	w := make([]float32, lf.ch*kk)
	nm.Weight(p, w)
	if lf.pw != nil {
		// The filter acts on whitened patches: its planes' standardisation
		// is in the bank's matrix, the rest of the whitening in its bias.
		return float32(lf.pw.FoldBias(w, b))
	}
	for c := 0; c < lf.ch; c++ {
		var s float64
		for _, v := range w[c*kk : (c+1)*kk] {
			s += float64(v)
		}
		b -= s * lf.cmean[c] / lf.csd[c]
	}
	if lf.cfg.Kind.Input == Matrix {
		if lf.ch > 1 {
			for c := 0; c < lf.ch; c++ {
				p[2*k+c] = float32(float64(p[2*k+c]) / lf.csd[c])
			}
		} else {
			scaleNode(Matrix, p, k, 1/lf.csd[0])
		}
	} else {
		for c := 0; c < lf.ch; c++ {
			for i := c * kk; i < (c+1)*kk; i++ {
				p[i] = float32(float64(p[i]) / lf.csd[c])
			}
		}
	}
	return float32(b)
}

// drawColumns draws count filters of side k at scale lambda (their
// parameters and biases, in the order of the random stream) and returns
// them with their pooled output columns (columns).
func (lf *localFit) drawColumns(nm nodeMap, k int, lambda float64, count int) (params, bias, cols, mean, sc []float32, err error) {
	np := nm.Size()
	t0 := time.Now()
	params = make([]float32, count*np)
	bias = make([]float32, count)
	for j := range bias {
		bias[j] = lf.drawFilter(nm, k, lambda, params[j*np:(j+1)*np])
	}
	lf.prof.Draw += time.Since(t0)
	cols, mean, sc, err = lf.columns(k, params, bias)
	return params, bias, cols, mean, sc, err
}

// columns computes the pooled outputs of the filters (params, bias) of side
// k on every training image and returns them node-major (per*F rows of N),
// standardised with their own moments when the geometry says so, and those
// moments (nil without standardisation).
func (lf *localFit) columns(k int, params, bias []float32) (cols []float32, mean, sc []float32, err error) {
	b := LocalBank{Size: k, Params: params, Bias: bias, Whiten: lf.wm}
	var ly interface {
		Outputs() int
		Apply(x []float32, n int, out []float32, ldo, off int) error
	}
	if lf.two != nil {
		ly = lf.two.stack(lf, b)
	} else {
		ly = bankLayer(lf.cfg.Kind.Input, lf.cfg.Activation, lf.g, b, lf.x.Rows, lf.x.Cols, lf.ch)
	}
	l, n := ly.Outputs(), lf.n
	rows := make([]float32, n*l)
	t0 := time.Now()
	if err := ly.Apply(lf.x.Pix, n, rows, l, 0); err != nil {
		return nil, nil, nil, err
	}
	lf.prof.Scoring += time.Since(t0)
	lf.prof.Products += int64(b.Filters())
	lf.prof.Batches++
	cols = make([]float32, l*n)
	if lf.g.Standardize {
		mean, sc = make([]float32, l), make([]float32, l)
	}
	forChunks(l, 8, func(_, a, z int) {
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
func (lf *localFit) add(cols []float32, cnt int, mean, sc []float32) error {
	t0 := time.Now()
	ok := lf.eng.AddBlock(cols, cnt)
	lf.prof.Ortho += time.Since(t0)
	for _, o := range ok {
		if !o {
			return fmt.Errorf("scn: pooled outputs of local filters are linearly dependent (ridge %g)", lf.cfg.Ridge)
		}
	}
	lf.mean = append(lf.mean, mean...)
	lf.sc = append(lf.sc, sc...)
	return nil
}

// grow fills the banks, one filter size after another.
func (lf *localFit) grow(ctx context.Context, progress func(Step)) (StopReason, error) {
	if lf.g.Second != nil {
		return lf.growTwo(ctx, progress)
	}
	stop := ReachedMaxNodes
	for _, k := range lf.g.Sizes {
		lf.banks = append(lf.banks, LocalBank{Size: k, Params: []float32{}, Bias: []float32{}})
		if err := lf.whiten(k); err != nil {
			return ReachedMaxNodes, err
		}
		var err error
		if lf.cfg.Kind.Choice == Supervised {
			stop, err = lf.supervisedBank(ctx, k, progress)
		} else {
			stop, err = lf.randomBank(ctx, k, progress)
		}
		if err != nil || stop == ReachedTolerance || stop == Cancelled {
			return stop, err
		}
	}
	return stop, nil
}

// whiten sets the whitening of the bank of filters of side k (the last
// bank) when the geometry asks for it.
func (lf *localFit) whiten(k int) error {
	if !lf.g.Whiten {
		return nil
	}
	t0 := time.Now()
	pw, err := whitenPatches(lf.x, lf.g, k, lf.cmean, lf.csd, lf.cfg.Seed)
	lf.prof.Draw += time.Since(t0)
	if err != nil {
		return err
	}
	lf.pw, lf.wm = pw, pw.Matrix32()
	lf.banks[len(lf.banks)-1].Whiten = lf.wm
	return nil
}

// record notes the steps of added filters.
func (lf *localFit) record(steps []Step, progress func(Step)) {
	for _, st := range steps {
		lf.trace = append(lf.trace, st)
		if progress != nil {
			progress(st)
		}
	}
}

// randomBank draws the bank of filters of side k in blocks.
func (lf *localFit) randomBank(ctx context.Context, k int, progress func(Step)) (StopReason, error) {
	nm := filterMap(lf.cfg.Kind.Input, k, lf.ch)
	per := lf.g.PerFilter()
	lambda := lf.cfg.Scales[0]
	bank := &lf.banks[len(lf.banks)-1]
	for done := 0; done < lf.g.Filters; {
		if err := ctx.Err(); err != nil {
			return Cancelled, err
		}
		b := min(lf.randomBlock(), lf.g.Filters-done)
		params, bias, cols, mean, sc, err := lf.drawColumns(nm, k, lambda, b)
		if err != nil {
			return ReachedMaxNodes, err
		}
		if err := lf.add(cols, b*per, mean, sc); err != nil {
			return ReachedMaxNodes, err
		}
		bank.Params = append(bank.Params, params...)
		bank.Bias = append(bank.Bias, bias...)
		lf.tried += b
		steps := make([]Step, b)
		for j := range steps {
			steps[j] = Step{L: lf.eng.L - (b-1-j)*per, Scale: lambda, Tried: 1}
		}
		lf.record(steps, progress)
		done += b
	}
	return ReachedMaxNodes, nil
}

// supervisedBank chooses the bank of filters of side k step by step.
func (lf *localFit) supervisedBank(ctx context.Context, k int, progress func(Step)) (StopReason, error) {
	c := lf.cfg
	nm := filterMap(c.Kind.Input, k, lf.ch)
	np, per, n, m := nm.Size(), lf.g.PerFilter(), lf.n, lf.m
	step := localSupervisedBlock
	if c.BlockSize >= 1 && c.BlockSize <= 64 {
		step = c.BlockSize
	}
	bank := &lf.banks[len(lf.banks)-1]
	for bank.Filters() < lf.g.Filters {
		if err := ctx.Err(); err != nil {
			return Cancelled, err
		}
		b := min(step, lf.g.Filters-bank.Filters())
		added := false
		tried := 0
		for _, lambda := range c.Scales {
			kc := c.Candidates * b
			params, bias, cols, mean, sc, err := lf.drawColumns(nm, k, lambda, kc)
			if err != nil {
				return ReachedMaxNodes, err
			}
			tried += kc
			t1 := time.Now()
			xi := lf.blockXi(cols, kc, per)
			order, ratio := node.AdmissibleGroups(xi, kc, m, c.Ratios, lf.ee, b)
			lf.prof.Selection += time.Since(t1)
			if len(order) == 0 {
				continue
			}
			sel := make([]float32, 0, len(order)*per*n)
			var sm, ss []float32
			for _, j := range order {
				fc := cols[j*per*n : (j+1)*per*n]
				if localAcceptHook != nil {
					localAcceptHook(fc, per, n, lf.e, m, ratio)
				}
				sel = append(sel, fc...)
				bank.Params = append(bank.Params, params[j*np:(j+1)*np]...)
				bank.Bias = append(bank.Bias, bias[j])
				if mean != nil {
					sm = append(sm, mean[j*per:(j+1)*per]...)
					ss = append(ss, sc[j*per:(j+1)*per]...)
				}
			}
			if err := lf.add(sel, len(order)*per, sm, ss); err != nil {
				return ReachedMaxNodes, err
			}
			t2 := time.Now()
			lf.updateResidual()
			lf.prof.Ortho += time.Since(t2)
			steps := make([]Step, len(order))
			for i := range steps {
				steps[i] = Step{L: lf.eng.L - (len(order)-1-i)*per, RMSE: lf.rmse(), Scale: lambda, Ratio: ratio}
			}
			steps[0].Tried = tried
			lf.tried += tried
			lf.record(steps, progress)
			added = true
			break
		}
		if !added {
			lf.tried += tried
			return NoAdmissible, nil
		}
		if lf.rmse() <= c.Tolerance {
			return ReachedTolerance, nil
		}
	}
	return ReachedMaxNodes, nil
}

// updateResidual sets the residual of the ridge solution of every column
// so far, and its column norms.
func (lf *localFit) updateResidual() {
	l := lf.eng.L
	beta, err := lf.eng.Solve(l, lf.cfg.Ridge)
	if err != nil {
		return // the kept factor is non-singular by construction
	}
	lf.eng.Residual(l, beta, lf.e)
	for q := 0; q < lf.m; q++ {
		eq := lf.e[q*lf.n : (q+1)*lf.n]
		lf.ee[q] = floats.Dot(eq, eq)
	}
}

// blockXi returns, for each of the kc candidates whose pooled outputs
// cols holds (per columns of N each), the projections of the residual on
// their columns (xi[j*m+q], node.GroupXi), the candidates in parallel.
func (lf *localFit) blockXi(cols []float32, kc, per int) []float64 {
	n, m := lf.n, lf.m
	xi := make([]float64, kc*m)
	forChunks(kc, 1, func(j, _, _ int) {
		copy(xi[j*m:(j+1)*m], node.GroupXi(cols[j*per*n:(j+1)*per*n], lf.e, n, per, m))
	})
	return xi
}

// localMemory estimates a local fit's memory (see Memory; the arithmetic
// is internal/memest's Local.Fit): a step scores localRandomBlock random
// filters, or a supervised block's candidates; the second layer
// (secondMemory) and augmentation (augmentMemory) add their buffers.
func (c Config) localMemory(n, rows, cols, chans, m int) Memory {
	step := localRandomBlock
	if c.Kind.Choice == Supervised {
		step = localSupervisedBlock
		if c.BlockSize >= 1 && c.BlockSize <= 64 {
			step = c.BlockSize
		}
		step *= max(c.Candidates, 1)
	}
	g := c.localShape(n, rows, cols, chans, m)
	g.Step = step
	g.ExtraCandidates, g.ExtraFactor = c.secondMemory(n, rows, cols), c.augmentMemory(n)
	return g.Fit()
}

// localShape describes the local fit of c to internal/memest.
func (c Config) localShape(n, rows, cols, chans, m int) memest.Local {
	g := c.Local
	return memest.Local{
		N: n, Rows: rows, Cols: cols, Chans: chans, M: m,
		Outputs: g.Outputs(), PerFilter: g.PerFilter(), Sizes: g.Sizes, Filters: g.Filters,
		RandomBlock: localRandomBlock, Whiten: g.Whiten, WhitenSamples: localnet.WhitenSamples,
		Float32Gram: c.Float32Gram, BF16Gram: c.BF16Gram, Workers: runtime.GOMAXPROCS(0),
	}
}
