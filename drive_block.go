package scn

import (
	"context"
	"math"
	"time"

	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
	"gonum.org/v1/gonum/floats"
)

// Block increments (Dai, Li, Zhou, Chai, Information Sciences 484 (2019)
// 367-386): the choice and the loops are internal/drive's (blockrun.go:
// RunBlocks, SupervisedBlock; block.go: ChooseBlock); this file holds the
// block builder's state and steps.

// blockBuilder is the state of a block fit.
type blockBuilder struct {
	*builder
	eng     *lsq.Gram
	m       int
	e, ee   []float64 // residual by output (m rows of N) and its column norms
	rss     float64   // ||e||_F^2
	t       []float64 // targets N x m, row-major (for paths past rank)
	xbar    []float32 // mean image (standardised nodes)
	ns      int       // images the spread of a standardised node is measured on
	scratch []float32
	hb32    []float32   // the accepted candidates' columns, scratch
	diffs   *diffSource // difference nodes (Config.Differences), else nil
	stream  Source      // a streamed fit's training set (FitStream), else nil
	scan    *streamScan // what the streamed fit's first pass found
}

func newBlockBuilder(c Config, p Problem, o runOpts) *blockBuilder {
	bb := newBlockBuilderOn(c, p, lsq.NewGramH(p.T, p.X.Len(), p.M, c.Ridge, c.Float32Gram || c.BF16Gram, c.MaxNodes, c.mode(o) != modeOnePass))
	bb.opts = o
	return bb
}

// newBlockBuilderOn is newBlockBuilder with the engine eng (a streamed
// fit's, empty, for the whole stream: p then holds its first images).
func newBlockBuilderOn(c Config, p Problem, eng *lsq.Gram) *blockBuilder {
	nm := newNodeMap(c.Kind.Input, p.X.Rows, p.X.Cols, p.X.Channels)
	if v, ok := nm.(vectorMap); ok {
		nm = fieldVector{Vector: v, Rows: p.X.Rows, Cols: p.X.Cols, Ch: p.X.Chans()}
	}
	n := p.X.Len()
	b := &builder{
		cfg: c, x: p.X, n: n, d: p.X.Dim(), nm: nm, np: nm.Size(),
		rng: newRand(c.Seed),
	}
	bb := &blockBuilder{builder: b, m: p.M}
	bb.eng = eng
	bb.eng.BF16 = c.BF16Gram
	if c.Kind.Choice == Supervised {
		bb.e = append([]float64(nil), bb.eng.TC...)
	}
	bb.ee = append([]float64(nil), bb.eng.TT...)
	bb.rss = floats.Sum(bb.ee)
	if c.Standardize {
		bb.xbar, bb.ns = meanImage(p.X), min(n, momentSample)
	}
	if c.Differences {
		bb.diffs = newDiffSource(p)
	}
	return bb
}

// grow adds blocks of nodes until a stopping rule holds (see run, and
// runOnePass for the fits that can take one pass over the data).
func (bb *blockBuilder) grow(ctx context.Context, progress func(Step)) (StopReason, error) {
	if bb.cfg.mode(bb.opts) == modeOnePass {
		return bb.runOnePass(ctx, progress)
	}
	return bb.run(ctx, progress)
}

// nodes returns the nodes accepted so far.
func (bb *blockBuilder) nodes() int { return len(bb.bias) }

// rmse returns the current training RMSE (of the regularised fit).
func (bb *blockBuilder) rmse() float64 {
	return math.Sqrt(bb.rss / float64(bb.n*bb.m))
}

// run adds blocks until a stopping rule holds (drive.RunBlocks).
func (bb *blockBuilder) run(ctx context.Context, progress func(Step)) (StopReason, error) {
	return drive.RunBlocks(ctx, bb.spec(), blockOps{bb}, progress)
}

// spec is what the block loops need of the configuration being fitted.
func (bb *blockBuilder) spec() drive.BlockSpec {
	c := bb.cfg
	return drive.BlockSpec{
		Supervised: c.Kind.Choice == Supervised, MaxNodes: c.MaxNodes, BlockSize: c.BlockSize,
		Candidates: c.Candidates, Tolerance: c.Tolerance, Ridge: c.Ridge, Scales: c.Scales, Pairs: c.Pairs,
	}
}

// blockOps are the block builder's steps as internal/drive's loops call
// them (drive.BlockOps).
type blockOps struct{ bb *blockBuilder }

func (o blockOps) Nodes() int                 { return len(o.bb.bias) }
func (o blockOps) RMSE() float64              { return o.bb.rmse() }
func (o blockOps) Prof() *Profile             { return &o.bb.prof }
func (o blockOps) Draw(k int, lambda float64) { o.bb.draw(k, lambda) }
func (o blockOps) Correlations(k int) (hh, eh []float64) {
	return o.bb.correlations(k)
}
func (o blockOps) PairCandidates(tu, tv int, lambda float64) (hh, eh []float64) {
	return o.bb.pairCandidates(tu, tv, lambda)
}
func (o blockOps) ChooseBlock(hh, eh []float64, k, b int) ([]int, float64) {
	return o.bb.chooseBlock(hh, eh, k, b)
}
func (o blockOps) Columns(order []int) []float32 {
	if o.bb.cfg.Pairs {
		return o.bb.exactColumns(order)
	}
	return drive.Gather(o.bb.z, o.bb.n, order, &o.bb.hb32)
}
func (o blockOps) AddBlock(hb []float32, b int) []bool { return o.bb.eng.AddBlock(hb, b) }
func (o blockOps) AcceptAdded(order []int, ok []bool, lambda, ratio float64) ([]Step, int) {
	return o.bb.acceptAdded(order, ok, lambda, ratio)
}
func (o blockOps) UpdateResidual()          { o.bb.updateResidual() }
func (o blockOps) RandomBlock(b int) []Step { return o.bb.randomBlock(b) }
func (o blockOps) Count(steps []Step) {
	for _, st := range steps {
		o.bb.tried += st.Tried
		o.bb.reject += st.Rejected
	}
}
func (o blockOps) Record(steps []Step, progress func(Step)) bool { return o.bb.record(steps, progress) }

// record appends a step's nodes to the trace, reports them to progress and
// returns whether the check (Patience) asks to stop.
func (bb *blockBuilder) record(steps []Step, progress func(Step)) (stop bool) {
	for _, st := range steps {
		st.L = len(bb.trace) + 1
		bb.trace = append(bb.trace, st)
		if progress != nil {
			progress(st)
		}
	}
	return bb.opts.check != nil && bb.opts.check(bb.partial())
}

// draw draws k candidates at scale lambda (on receptive fields and
// standardised if the configuration asks) and computes their hidden
// outputs on the training images: row j of bb.z is candidate j's.
func (bb *blockBuilder) draw(k int, lambda float64) {
	bb.drawParams(k, lambda)
	bb.score(k)
}

// drawParams draws k candidates at scale lambda into bb.cp, bb.cb and
// their weights over the image into bb.cw (drive.DrawParams), standardised
// if the configuration asks.
func (bb *blockBuilder) drawParams(k int, lambda float64) {
	c := bb.cfg
	bb.k = k
	bb.cp = grow(bb.cp, k*bb.np)
	bb.cb = grow(bb.cb, k)
	bb.cw = grow(bb.cw, k*bb.d)
	t0 := time.Now()
	drive.DrawParams(bb.rng, bb.nm, nodeSpec(c), bb.diffs, lambda, k, bb.np, bb.d, bb.cp, bb.cb, bb.cw)
	if c.Standardize {
		bb.standardize(k, lambda)
	}
	bb.prof.Draw += time.Since(t0)
}

// score computes the hidden outputs of the k candidates in bb.cw, bb.cb on
// the training images: row j of bb.z is candidate j's (drive.Score).
func (bb *blockBuilder) score(k int) {
	bb.z = grow(bb.z, bb.n*k)
	drive.Score(node.Activation(bb.cfg.Activation), k, bb.n, bb.d, bb.cw, bb.cb, bb.x.Pix, bb.z, &bb.prof)
}

// standardize scales each of the k drawn candidates so that its input
// w^T x has spread lambda over the first bb.ns training images and is
// centred, before its random bias (drive.Standardize).
func (bb *blockBuilder) standardize(k int, lambda float64) {
	bb.scratch = grow(bb.scratch, k*bb.ns)
	drive.Standardize(bb.nm, bb.cfg.Kind.Input == Matrix, bb.x.Rows, k, bb.ns, bb.d, bb.np, lambda, bb.xbar, bb.x.Pix, bb.cp, bb.cb, bb.cw, bb.scratch)
}

// meanImage returns the mean of the images of x, pixel by pixel
// (node.MeanImage).
func meanImage(x Images) []float32 {
	mi := node.NewMeanImage(x.Dim())
	mi.Add(x.Pix, x.Len())
	return mi.Mean()
}

// momentSample is the images the spread of a standardised node is
// measured on (drive.MomentSample).
const momentSample = drive.MomentSample

// randomBlock draws b random nodes at the first scale and appends them.
// A node dependent on the earlier ones (only possible without a ridge) is
// kept but left out of the engine, as the one-node path does, and the
// output weights are then the minimum-norm solution.
func (bb *blockBuilder) randomBlock(b int) []Step {
	lambda := bb.cfg.Scales[0]
	bb.draw(b, lambda)
	t0 := time.Now()
	var ok []bool
	if !bb.deficient {
		ok = bb.eng.AddBlock(bb.z[:b*bb.n], b)
	}
	steps := bb.randomSteps(b, lambda, ok)
	bb.prof.Ortho += time.Since(t0)
	return steps
}

// randomSteps accepts the b random nodes of the current batch, of which
// those marked in ok went into the engine (ok is nil once the fit is past
// rank), and returns their steps, each with the training RMSE after the
// whole block.
func (bb *blockBuilder) randomSteps(b int, lambda float64, ok []bool) []Step {
	steps := make([]Step, b)
	for j := 0; j < b; j++ {
		steps[j] = Step{Scale: lambda, Tried: 1}
		if bb.deficient || !ok[j] {
			steps[j].Rejected = 1
			bb.deficient = true
		} else {
			bb.independent++
		}
		bb.accept(j)
	}
	beta, err := bb.eng.Solve(bb.eng.L, bb.cfg.Ridge)
	if err == nil {
		bb.rss = bb.eng.RSS(bb.eng.L, beta)
	}
	rmse := bb.rmse()
	for j := range steps {
		steps[j].RMSE = rmse
	}
	return steps
}

// supervisedBlock adds one block of supervised nodes (drive.SupervisedBlock).
func (bb *blockBuilder) supervisedBlock(b int) ([]Step, bool) {
	return drive.SupervisedBlock(bb.spec(), blockOps{bb}, b)
}

// chooseBlock returns up to b candidates of the k scored (hh, eh) that meet
// the supervisory inequality at the first r of the list that admits b of
// them (or at its last r, with fewer), best first, and that r
// (drive.ChooseBlock).
func (bb *blockBuilder) chooseBlock(hh, eh []float64, k, b int) (order []int, ratio float64) {
	return drive.ChooseBlock(hh, eh, bb.ee, bb.m, bb.cfg.Ratios, k, b)
}

// acceptAdded keeps the candidates of order whose columns the engine took
// (ok[i]) and returns their steps and how many it refused as dependent.
func (bb *blockBuilder) acceptAdded(order []int, ok []bool, lambda, ratio float64) (steps []Step, refused int) {
	for i, j := range order {
		if !ok[i] {
			refused++
			continue
		}
		bb.accept(j)
		steps = append(steps, Step{Scale: lambda, Ratio: ratio})
	}
	return steps, refused
}

// updateResidual sets e = T - H beta with beta the output weights of all
// nodes so far at the configuration's ridge, and its column norms.
func (bb *blockBuilder) updateResidual() {
	l := bb.eng.L
	beta, err := bb.eng.Solve(l, bb.cfg.Ridge)
	if err != nil {
		// The kept factor is non-singular by construction; should it not
		// be, the residual stays as it was rather than fail the fit.
		return
	}
	bb.eng.Residual(l, beta, bb.e)
	bb.ee = bb.eng.ResidualNorms(bb.e)
	bb.rss = floats.Sum(bb.ee)
}

// correlations returns, for the k candidates in bb.z, h_j^T h_j (k values)
// and e_q^T h_j (m x k, eh[q*k+j]) against the current residual, summed
// over the row shards of the engine (drive.BlockCorrelations).
func (bb *blockBuilder) correlations(k int) (hh, eh []float64) {
	return drive.BlockCorrelations(bb.eng.Shards, bb.z, bb.e, bb.n, bb.m, k)
}

// partial returns the path of the nodes so far, without output weights.
func (bb *blockBuilder) partial() *Path {
	l := len(bb.bias)
	m := &Model{Kind: bb.cfg.Kind, Activation: bb.cfg.Activation, Rows: bb.x.Rows, Cols: bb.x.Cols, Channels: bb.x.Channels, M: bb.m,
		Params: bb.params[:l*bb.np], Bias: bb.bias[:l], Config: bb.cfg}
	ind := bb.eng.L
	if bb.deficient {
		ind = bb.independent
	}
	if bb.t == nil {
		bb.t = lsq.Transposed(bb.eng.TC, bb.m, bb.n)
	}
	return &Path{model: m, eng: bb.eng, x: bb.x, t: bb.t, independent: min(ind, l), ridge: bb.cfg.Ridge}
}

// path assembles the fitted model of a block fit and its path.
func (bb *blockBuilder) path(stop StopReason) (*Path, error) {
	t0 := time.Now()
	p := bb.partial()
	s := Summary{
		Nodes: len(bb.bias), Samples: bb.n, Stop: stop, TrainRMSE: bb.rmse(),
		Tried: bb.tried, Rejected: bb.reject, Trace: bb.trace,
	}
	if err := p.finish(s, bb.cfg.Ridge, bb.cfg.Scales, bb.cfg.Ratios, &bb.prof, t0); err != nil {
		return nil, err
	}
	return p, nil
}
