package scn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
	"gonum.org/v1/gonum/mat"
)

// Step reports one added hidden node to a progress callback (drive.Step).
type Step = drive.Step

// Summary describes a finished fit.
type Summary struct {
	Nodes     int        // hidden nodes L
	Samples   int        // training images N
	Stop      StopReason // why building stopped
	TrainRMSE float64    // final training RMSE of the least-squares residual
	Tried     int        // candidates scored in all
	Rejected  int        // candidates refused as dependent in all
	// Trace has one step per node. It is kept in memory, not in model files.
	Trace []Step
	// Duration is the fit's wall time, and Profile splits it. Neither is
	// saved, so that the same seed gives the same file.
	Duration time.Duration
	Profile  Profile
}

// Profile splits a fit's time into its parts (drive.Profile).
type Profile = drive.Profile

// randomBlockSize is how many random nodes are drawn and evaluated per matrix
// product by random node choice.
const randomBlockSize = 64

// Fit builds a network on p with the configuration c. progress, if not nil,
// is called after every added node. The returned model records why building
// stopped; if ctx is cancelled, Fit returns the model built so far together
// with ctx's error (a nil model if no node was added yet). The model holds
// its nodes and output weights only; FitPath also keeps what re-solving the
// output weights of its prefixes needs.
func (c Config) Fit(ctx context.Context, p Problem, progress func(Step)) (*Model, error) {
	if c.mode(runOpts{}) == modeLocal {
		return c.fitLocal(ctx, p, progress)
	}
	path, err := c.FitPath(ctx, p, progress)
	if path == nil {
		return nil, err
	}
	if c.Robust && err == nil {
		m, _, rerr := path.Model().Robust(p)
		return m, rerr
	}
	if c.DirectLink && err == nil {
		return c.directFinal(path.Model(), p)
	}
	return path.Model(), err
}

// FitPath is Fit, returning the fit's Path: the model together with the
// least-squares factorisation and the training data, from which the model
// after any number of its nodes, with any ridge term, is an L x L problem
// away. If ctx is cancelled, FitPath returns the path of the nodes built so
// far together with ctx's error (nil if no node was added yet).
func (c Config) FitPath(ctx context.Context, p Problem, progress func(Step)) (*Path, error) {
	return c.fitPath(ctx, p, progress, runOpts{})
}

// fitPath is FitPath with an optional check, called after every node with
// the path so far (whose model has no output weights yet), that stops
// building with NoValidationGain when it returns true.
func (c Config) fitPath(ctx context.Context, p Problem, progress func(Step), o runOpts) (*Path, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	var g grower
	switch c.mode(o) {
	case modeLocal:
		return nil, fmt.Errorf("%w: local nodes are fitted by Fit only (no path, selection or budget yet)", ErrConfig)
	case modeDeep:
		if o.check != nil {
			return nil, fmt.Errorf("%w: model selection and budgets choose prefixes of one layer", ErrDeep)
		}
		if p.X.Chans() > 1 {
			// The deep predictor scores the first layer plane by plane
			// for grey images only, so far.
			return nil, fmt.Errorf("%w: images of %d channels (the first layer of a deep model takes grey images)", ErrDeep, p.X.Chans())
		}
		g = newDeepBuilder(c, p)
	case modeBlock, modeOnePass:
		bb := newBlockBuilder(c, p, o)
		g = bb
	default: // modeOneNode
		b := newBuilder(c, p)
		b.opts = o
		g = b
	}
	return c.fitWith(ctx, p, g, progress)
}

// fitWith grows the network with g and returns its path.
func (c Config) fitWith(ctx context.Context, p Problem, g grower, progress func(Step)) (*Path, error) {
	start := time.Now()
	if rmse := g.rmse(); c.Kind.Choice == Supervised && rmse <= c.Tolerance {
		return nil, fmt.Errorf("%w: Tolerance = %g, but the training RMSE is %.4g before any node: nothing to fit", ErrConfig, c.Tolerance, rmse)
	}
	stop, err := g.grow(ctx, progress)
	if g.nodes() == 0 {
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("scn: no hidden node could be added (%v)", stop)
	}
	path, serr := g.path(stop)
	if serr != nil {
		return nil, serr
	}
	if p.Classes != nil {
		path.model.Classes = append([]string(nil), p.Classes...)
	}
	path.model.Summary.Duration = time.Since(start)
	return path, err
}

// grower is one way of growing a network: node by node with the QR
// factorisation (builder, the paper's path) or block by block with the
// Gram engine (blockBuilder). Both stop by the same rules and end in a Path.
type grower interface {
	rmse() float64 // the current training RMSE
	grow(ctx context.Context, progress func(Step)) (StopReason, error)
	nodes() int // nodes accepted so far
	path(stop StopReason) (*Path, error)
}

// grow adds nodes one at a time until a stopping rule holds.
func (b *builder) grow(ctx context.Context, progress func(Step)) (StopReason, error) {
	pick := b.pickRandom
	if b.cfg.Kind.Choice == Supervised {
		pick = b.pickSupervised
	}
	return b.run(ctx, pick, progress)
}

// nodes returns the nodes accepted so far.
func (b *builder) nodes() int { return len(b.bias) }

// builder holds the state of one fit: the data, the growing least-squares
// factorisation and the accepted nodes.
type builder struct {
	cfg    Config
	x      Images
	n, d   int
	nm     nodeMap
	np     int // hidden parameters per node
	rng    *rand.Rand
	ls     *lsq.QR
	params []float32 // accepted nodes, L x np
	bias   []float32 // accepted biases
	trace  []Step
	tried  int
	reject int

	prof Profile
	// A batch of k candidates: parameters, biases, weights, and outputs z
	// (k x N: candidate j's outputs are row j).
	cp, cb, cw, z []float32
	k             int
	h             []float64 // one column in float64
	z64, part     []float64 // the batch's outputs in float64; per-chunk sums
	// Random choice: a block's columns, its steps, and the next to hand out.
	hb      []float64
	pending []Step
	next    int
	// deficient is set once a random node was dependent on the earlier
	// ones; independent counts the nodes before the first such one.
	deficient   bool
	independent int
	// opts are the run options (runOpts): check, if set, is asked after
	// every node whether to stop (Patience).
	opts runOpts
	// hcols holds every chosen node's column once a supervised fit is past
	// rank (see acceptPastRank).
	hcols [][]float64
}

func newBuilder(c Config, p Problem) *builder {
	nm := newNodeMap(c.Kind.Input, p.X.Rows, p.X.Cols, p.X.Channels)
	n := p.X.Len()
	return &builder{
		cfg: c, x: p.X, n: n, d: p.X.Dim(), nm: nm, np: nm.Size(),
		rng: rand.New(rand.NewPCG(c.Seed, 0x2d5c4e)),
		ls:  lsq.NewQR(p.T, n, p.M),
		h:   make([]float64, n),
	}
}

// rmse returns the current training RMSE.
func (b *builder) rmse() float64 {
	return math.Sqrt(b.ls.ResidualNorm2() / float64(b.n*b.ls.M))
}

// run adds nodes until a stopping rule holds.
func (b *builder) run(ctx context.Context, pick func() (Step, bool), progress func(Step)) (StopReason, error) {
	supervised := b.cfg.Kind.Choice == Supervised
	for len(b.trace) < b.cfg.MaxNodes {
		if err := ctx.Err(); err != nil {
			return Cancelled, err
		}
		if supervised && b.rmse() <= b.cfg.Tolerance {
			return ReachedTolerance, nil
		}
		step, ok := pick()
		b.tried += step.Tried
		b.reject += step.Rejected
		if !ok {
			return NoAdmissible, nil
		}
		step.L = len(b.trace) + 1
		b.trace = append(b.trace, step)
		if progress != nil {
			progress(step)
		}
		if b.opts.check != nil && b.opts.check(b.partial()) {
			return NoValidationGain, nil
		}
	}
	if supervised && b.rmse() <= b.cfg.Tolerance {
		return ReachedTolerance, nil
	}
	return ReachedMaxNodes, nil
}

// drawBatch draws k candidates at scale lambda and computes their hidden
// outputs on the training set with one matrix product (drive.ScoreBatch).
func (b *builder) drawBatch(k int, lambda float64) {
	b.k = k
	b.cp = grow(b.cp, k*b.np)
	b.cb = grow(b.cb, k)
	b.cw = grow(b.cw, k*b.d)
	b.z = grow(b.z, b.n*k)
	drive.ScoreBatch(b.rng, b.nm, node.Activation(b.cfg.Activation), lambda, k, b.n, b.d, b.np, b.x.Pix, b.cp, b.cb, b.cw, b.z, &b.prof)
}

// addColumn offers candidate j to the factorisation and keeps it if it is
// independent of the chosen nodes.
func (b *builder) addColumn(j int) bool {
	t0 := time.Now()
	ok := b.ls.Add(b.column(j))
	if ok {
		b.accept(j)
	}
	b.prof.Ortho += time.Since(t0)
	return ok
}

// column copies candidate j's outputs into b.h as float64.
func (b *builder) column(j int) []float64 {
	for i, v := range b.z[j*b.n : (j+1)*b.n] {
		b.h[i] = float64(v)
	}
	return b.h
}

// acceptPastRank keeps candidate c although its column is dependent on the
// chosen ones (or the fit is already past rank), as the authors' SCN code
// does with MATLAB's pinv: the nodes from here on stay out of the QR
// factorisation, the output weights are the minimum-norm solution over all
// hidden columns (with the ridge term, if any), and the residual becomes
// what that solution leaves.
//
// Past L = N that residual is zero but for rounding, and the next nodes are
// chosen on the rounding of this SVD, fresh at every node, as in the
// authors' code: each node costs an SVD of the N x L matrix H (40 s of a 42
// s fit on ORL, N = 200, L = 1000). Cheaper ways to the same quantity were
// tried and dropped, on ORL images 1-5 of each subject (SCN, paper preset,
// test accuracy at L = 300 and 400; this SVD: 11.5% and 43.0%; the
// authors' SCN.m under Octave: 26.5% and 53.5%): projecting new columns
// out with the QR (20x faster) freezes the rounding, so every later node
// is chosen against the same vector: 11.5% and 21.0%; R^T R^-T T from a
// Givens-updated triangle of H^T (10x faster) gave 18.5% and 51.5% but its
// rounding made SCN stop for want of an admissible candidate in 2 of 8 E3
// fits; the SVD of that N x N triangle gave 10.0% and 44.0% and saved
// little, the N x N SVD being most of the cost.
func (b *builder) acceptPastRank(c *candidate) error {
	t0 := time.Now()
	defer func() { b.prof.Ortho += time.Since(t0) }()
	if !b.deficient {
		b.deficient, b.independent = true, len(b.bias)
		l := len(b.bias)
		m := &Model{Kind: b.cfg.Kind, Activation: b.cfg.Activation, Rows: b.x.Rows, Cols: b.x.Cols, Channels: b.x.Channels,
			Params: b.params[:l*b.np], Bias: b.bias[:l]}
		h := hiddenDense(m, b.x)
		b.hcols = make([][]float64, l)
		for c := range b.hcols {
			b.hcols[c] = mat.Col(nil, c, h)
		}
	}
	b.hcols = append(b.hcols, c.col)
	b.params = append(b.params, c.params...)
	b.bias = append(b.bias, c.bias)
	l, n, m := len(b.hcols), b.n, b.ls.M
	h := mat.NewDense(n, l, nil)
	for c, col := range b.hcols {
		h.SetCol(c, col)
	}
	beta, err := lsq.MinNorm(h, b.ls.T, m, b.cfg.Ridge)
	if err != nil {
		return err
	}
	var y mat.Dense
	y.Mul(h, mat.NewDense(l, m, beta))
	for i := 0; i < n; i++ {
		for q := 0; q < m; q++ {
			b.ls.E[q*n+i] = b.ls.T[i*m+q] - y.At(i, q)
		}
	}
	b.ls.EE = nil
	return nil
}

// accept appends candidate j, whose column was just added to the factorisation.
func (b *builder) accept(j int) {
	b.params = append(b.params, b.cp[j*b.np:(j+1)*b.np]...)
	b.bias = append(b.bias, b.cb[j])
}

// pickRandom adds the next random node (RVFL and 2DRVFL). Nodes are drawn
// randomBlockSize at a time at the first scale, their outputs computed with one
// matrix product and appended to the factorisation as one block; the steps
// are then handed out one by one.
func (b *builder) pickRandom() (Step, bool) {
	if b.next == len(b.pending) {
		b.randomBlock()
	}
	st := b.pending[b.next]
	b.next++
	return st, true
}

// randomBlock draws, scores and appends the next block of random nodes. A
// random learner keeps every node it draws: a node whose column is (nearly)
// dependent on the earlier ones (as when L exceeds N) is kept out of the QR
// factorisation, counted as rejected in its step, and the output weights are
// then solved by a pseudo-inverse of the whole H (see minNorm).
func (b *builder) randomBlock() {
	lambda := b.cfg.Scales[0]
	k := min(randomBlockSize, max(b.cfg.MaxNodes-len(b.bias), 1))
	b.drawBatch(k, lambda)
	t0 := time.Now()
	hb := grow(b.hb, k*b.n)
	b.hb = hb
	for j := 0; j < k; j++ {
		copy(hb[j*b.n:(j+1)*b.n], b.column(j))
	}
	last := b.rmse() // before the block
	ok, rmse := b.ls.AddBlock(hb, k)
	b.pending, b.next = b.pending[:0], 0
	for j, accepted := range ok {
		st := Step{Scale: lambda, Tried: 1, RMSE: last}
		if accepted {
			st.RMSE, last = rmse[j], rmse[j]
			if !b.deficient {
				b.independent++
			}
		} else {
			st.Rejected = 1
			b.deficient = true
		}
		b.accept(j)
		b.pending = append(b.pending, st)
	}
	b.prof.Ortho += time.Since(t0)
}

// pickSupervised adds one node by the supervisory inequality (the paper's
// Algorithm 1). For each lambda in turn it draws T_max candidates once and
// reuses them for every r in turn, as the authors' SCN code does; the first
// (lambda, r) with an admissible candidate gives the node, the admissible
// candidate with the largest sum of xi_q. With Config.Redraw, new candidates
// are drawn for every (lambda, r) pair instead, as the paper's Algorithm 1
// states the search. A candidate whose column turns out
// (nearly) dependent on the chosen ones is refused and the next best taken.
func (b *builder) pickSupervised() (Step, bool) {
	var st Step
	var fallback *candidate // the first admissible but dependent candidate
	m := b.ls.M
	ee := append([]float64(nil), b.ls.ResidualColumnNorms()...)
	for _, lambda := range b.cfg.Scales {
		k := b.cfg.Candidates
		b.drawBatch(k, lambda)
		st.Tried += k
		t0 := time.Now()
		hh, eh := b.correlations()
		dead := make([]bool, k)
		for ri, r := range b.cfg.Ratios {
			if b.cfg.Redraw && ri > 0 {
				// New candidates for this (lambda, r) pair (Config.Redraw).
				b.drawBatch(k, lambda)
				st.Tried += k
				t0 = time.Now()
				hh, eh = b.correlations()
				clear(dead)
			}
			order := node.Admissible(hh, eh, ee, m, r, dead)
			b.prof.Selection += time.Since(t0)
			for _, j := range order {
				if b.deficient {
					// Past rank: the best admissible candidate, as the
					// authors' code takes it.
					return b.pastRank(st, b.saveCandidate(j, lambda, r))
				}
				if b.addColumn(j) {
					st.Scale, st.Ratio, st.RMSE = lambda, r, b.rmse()
					return st, true
				}
				if fallback == nil {
					fallback = b.saveCandidate(j, lambda, r)
				}
				dead[j] = true
				st.Rejected++
			}
			t0 = time.Now()
		}
	}
	if fallback != nil && !b.cfg.StopAtRank {
		// Every admissible candidate was dependent on the chosen nodes:
		// rank is reached. Go on past it with the best of the first
		// (lambda, r) that had one, as the authors' code does.
		return b.pastRank(st, fallback)
	}
	return st, false
}

// candidate is a saved candidate node: its parameters, bias and column.
type candidate struct {
	params        []float32
	bias          float32
	col           []float64
	lambda, ratio float64
}

// saveCandidate copies candidate j of the current batch.
func (b *builder) saveCandidate(j int, lambda, r float64) *candidate {
	return &candidate{
		params: append([]float32(nil), b.cp[j*b.np:(j+1)*b.np]...), bias: b.cb[j],
		col: append([]float64(nil), b.column(j)...), lambda: lambda, ratio: r,
	}
}

// pastRank keeps c as the next node past rank and completes the step.
func (b *builder) pastRank(st Step, c *candidate) (Step, bool) {
	if err := b.acceptPastRank(c); err != nil {
		return st, false
	}
	st.Scale, st.Ratio, st.RMSE = c.lambda, c.ratio, b.rmse()
	return st, true
}

// corrChunk is the row chunk of the candidate statistics (drive.CorrChunk).
const corrChunk = drive.CorrChunk

// correlations returns, for the current batch, h_j^T h_j (k values) and
// e_q^T h_j (m x k: eh[q*k+j]), summed in float64 over fixed row chunks
// (drive.Correlations).
func (b *builder) correlations() (hh, eh []float64) {
	k, m, n := b.k, b.ls.M, b.n
	chunks := (n + corrChunk - 1) / corrChunk
	b.part = grow(b.part, chunks*k*(m+1))
	b.z64 = grow(b.z64, k*n)
	return drive.Correlations(b.ls, b.z, k, m, n, b.part, b.z64)
}

// partial returns the path of the nodes so far, without output weights.
func (b *builder) partial() *Path {
	l := len(b.trace)
	m := &Model{Kind: b.cfg.Kind, Activation: b.cfg.Activation, Rows: b.x.Rows, Cols: b.x.Cols, Channels: b.x.Channels, M: b.ls.M,
		Params: b.params[:l*b.np], Bias: b.bias[:l], Config: b.cfg}
	ind := b.ls.L
	if b.deficient {
		ind = b.independent
	}
	return &Path{model: m, eng: b.ls, x: b.x, t: b.ls.T, independent: min(ind, l), ridge: b.cfg.Ridge}
}

// path assembles the fitted model and its path.
func (b *builder) path(stop StopReason) (*Path, error) {
	t0 := time.Now()
	// A random learner draws its nodes by blocks: a fit stopped inside a
	// block keeps the nodes handed out so far, the ones its trace has.
	p := b.partial()
	l, rmse := len(b.trace), b.rmse()
	if l < len(b.bias) {
		rmse = b.trace[l-1].RMSE
	}
	s := Summary{
		Nodes: l, Samples: b.n, Stop: stop, TrainRMSE: rmse,
		Tried: b.tried, Rejected: b.reject, Trace: b.trace,
	}
	if err := p.finish(s, b.cfg.Ridge, b.cfg.Scales, b.cfg.Ratios, &b.prof, t0); err != nil {
		return nil, err
	}
	return p, nil
}
