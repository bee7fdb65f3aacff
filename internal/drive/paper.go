package drive

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
	"gonum.org/v1/gonum/mat"
)

// RandomBlockSize is how many random nodes are drawn and evaluated per
// matrix product by random node choice on the one-node path.
const RandomBlockSize = 64

// OneSpec is what the one-node path needs of a configuration.
type OneSpec struct {
	Supervised bool            // supervised choice (SCN, 2DSCN), else random (RVFL, 2DRVFL)
	MaxNodes   int             // L_max
	Candidates int             // T_max: candidates per scale
	Tolerance  float64         // the training RMSE that stops a supervised fit
	Ridge      float64         // the ridge term of the minimum-norm solve past rank
	Scales     []float64       // lambda, in the order tried
	Ratios     []float64       // r, in the order tried
	Redraw     bool            // new candidates for every (lambda, r) pair
	StopAtRank bool            // stop, rather than go on past rank
	Act        node.Activation // the activation
}

// OneNode is the state of one fit on the paper's path, one node at a
// time: the images, the growing QR factorisation, the accepted nodes and
// the candidates' batch.
type OneNode struct {
	Spec OneSpec
	// The training images, N rows of D float32 values, and the node map
	// (NP parameters per node).
	Pix  []float32
	N, D int
	NM   node.Map
	NP   int
	Rng  *rand.Rand
	LS   *lsq.QR
	// Accepted nodes (L x NP parameters, L biases), the trace, the
	// candidates scored and refused in all, and the time's split.
	Params, Bias  []float32
	Trace         []Step
	Tried, Reject int
	Prof          Profile
	// Deficient is set once a random node was dependent on the earlier
	// ones; Independent counts the nodes before the first such one.
	Deficient   bool
	Independent int
	// HiddenOf returns the hidden outputs (N x l) of the nodes params,
	// bias (the first l accepted), as prediction computes them: a fit
	// past rank starts from them.
	HiddenOf func(params, bias []float32) *mat.Dense
	// Check, if set, is asked after every node whether to stop.
	Check func() bool

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
	// hcols holds every chosen node's column once a supervised fit is past
	// rank (see acceptPastRank).
	hcols [][]float64
}

// NewOneNode returns the state of a fit on the n images pix (n x d) with
// the node map nm, the random stream rng and the targets t (n x m).
func NewOneNode(spec OneSpec, pix []float32, n, d int, nm node.Map, rng *rand.Rand, t []float64, m int) *OneNode {
	return &OneNode{
		Spec: spec, Pix: pix, N: n, D: d, NM: nm, NP: nm.Size(), Rng: rng,
		LS: lsq.NewQR(t, n, m),
		h:  make([]float64, n),
	}
}

// Grow adds nodes one at a time until a stopping rule holds, reporting
// each to progress (if not nil).
func (b *OneNode) Grow(ctx context.Context, progress func(Step)) (StopReason, error) {
	pick := b.pickRandom
	if b.Spec.Supervised {
		pick = b.pickSupervised
	}
	return b.run(ctx, pick, progress)
}

// Nodes returns the nodes accepted so far.
func (b *OneNode) Nodes() int { return len(b.Bias) }

// DrawBatch draws k candidates at scale lambda and computes their hidden
// outputs on the training set with one matrix product (ScoreBatch).
func (b *OneNode) DrawBatch(k int, lambda float64) {
	b.k = k
	b.cp = lsq.Grow(b.cp, k*b.NP)
	b.cb = lsq.Grow(b.cb, k)
	b.cw = lsq.Grow(b.cw, k*b.D)
	b.z = lsq.Grow(b.z, b.N*k)
	ScoreBatch(b.Rng, b.NM, b.Spec.Act, lambda, k, b.N, b.D, b.NP, b.Pix, b.cp, b.cb, b.cw, b.z, &b.Prof)
}

// Correlations returns, for the current batch, h_j^T h_j (k values) and
// e_q^T h_j (m x k: eh[q*k+j]), summed in float64 over fixed row chunks
// (the function Correlations).
func (b *OneNode) Correlations() (hh, eh []float64) {
	k, m, n := b.k, b.LS.M, b.N
	chunks := (n + CorrChunk - 1) / CorrChunk
	b.part = lsq.Grow(b.part, chunks*k*(m+1))
	b.z64 = lsq.Grow(b.z64, k*n)
	return Correlations(b.LS, b.z, k, m, n, b.part, b.z64)
}

// RMSE returns the current training RMSE.
func (b *OneNode) RMSE() float64 {
	return math.Sqrt(b.LS.ResidualNorm2() / float64(b.N*b.LS.M))
}

// run adds nodes until a stopping rule holds.
func (b *OneNode) run(ctx context.Context, pick func() (Step, bool), progress func(Step)) (StopReason, error) {
	supervised := b.Spec.Supervised
	for len(b.Trace) < b.Spec.MaxNodes {
		if err := ctx.Err(); err != nil {
			return Cancelled, err
		}
		if supervised && b.RMSE() <= b.Spec.Tolerance {
			return ReachedTolerance, nil
		}
		step, ok := pick()
		b.Tried += step.Tried
		b.Reject += step.Rejected
		if !ok {
			return NoAdmissible, nil
		}
		step.L = len(b.Trace) + 1
		b.Trace = append(b.Trace, step)
		if progress != nil {
			progress(step)
		}
		if b.Check != nil && b.Check() {
			return NoValidationGain, nil
		}
	}
	if supervised && b.RMSE() <= b.Spec.Tolerance {
		return ReachedTolerance, nil
	}
	return ReachedMaxNodes, nil
}

// addColumn offers candidate j to the factorisation and keeps it if it is
// independent of the chosen nodes.
func (b *OneNode) addColumn(j int) bool {
	t0 := time.Now()
	ok := b.LS.Add(b.column(j))
	if ok {
		b.accept(j)
	}
	b.Prof.Ortho += time.Since(t0)
	return ok
}

// column copies candidate j's outputs into b.h as float64.
func (b *OneNode) column(j int) []float64 {
	for i, v := range b.z[j*b.N : (j+1)*b.N] {
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
func (b *OneNode) acceptPastRank(c *candidate) error {
	t0 := time.Now()
	defer func() { b.Prof.Ortho += time.Since(t0) }()
	if !b.Deficient {
		b.Deficient, b.Independent = true, len(b.Bias)
		l := len(b.Bias)
		h := b.HiddenOf(b.Params[:l*b.NP], b.Bias[:l])
		b.hcols = make([][]float64, l)
		for c := range b.hcols {
			b.hcols[c] = mat.Col(nil, c, h)
		}
	}
	b.hcols = append(b.hcols, c.col)
	b.Params = append(b.Params, c.params...)
	b.Bias = append(b.Bias, c.bias)
	l, n, m := len(b.hcols), b.N, b.LS.M
	h := mat.NewDense(n, l, nil)
	for c, col := range b.hcols {
		h.SetCol(c, col)
	}
	beta, err := lsq.MinNorm(h, b.LS.T, m, b.Spec.Ridge)
	if err != nil {
		return err
	}
	var y mat.Dense
	y.Mul(h, mat.NewDense(l, m, beta))
	for i := 0; i < n; i++ {
		for q := 0; q < m; q++ {
			b.LS.E[q*n+i] = b.LS.T[i*m+q] - y.At(i, q)
		}
	}
	b.LS.EE = nil
	return nil
}

// accept appends candidate j, whose column was just added to the factorisation.
func (b *OneNode) accept(j int) {
	b.Params = append(b.Params, b.cp[j*b.NP:(j+1)*b.NP]...)
	b.Bias = append(b.Bias, b.cb[j])
}

// pickRandom adds the next random node (RVFL and 2DRVFL). Nodes are drawn
// RandomBlockSize at a time at the first scale, their outputs computed with one
// matrix product and appended to the factorisation as one block; the steps
// are then handed out one by one.
func (b *OneNode) pickRandom() (Step, bool) {
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
func (b *OneNode) randomBlock() {
	lambda := b.Spec.Scales[0]
	k := min(RandomBlockSize, max(b.Spec.MaxNodes-len(b.Bias), 1))
	b.DrawBatch(k, lambda)
	t0 := time.Now()
	hb := lsq.Grow(b.hb, k*b.N)
	b.hb = hb
	for j := 0; j < k; j++ {
		copy(hb[j*b.N:(j+1)*b.N], b.column(j))
	}
	last := b.RMSE() // before the block
	ok, rmse := b.LS.AddBlock(hb, k)
	b.pending, b.next = b.pending[:0], 0
	for j, accepted := range ok {
		st := Step{Scale: lambda, Tried: 1, RMSE: last}
		if accepted {
			st.RMSE, last = rmse[j], rmse[j]
			if !b.Deficient {
				b.Independent++
			}
		} else {
			st.Rejected = 1
			b.Deficient = true
		}
		b.accept(j)
		b.pending = append(b.pending, st)
	}
	b.Prof.Ortho += time.Since(t0)
}

// pickSupervised adds one node by the supervisory inequality (the paper's
// Algorithm 1). For each lambda in turn it draws T_max candidates once and
// reuses them for every r in turn, as the authors' SCN code does; the first
// (lambda, r) with an admissible candidate gives the node, the admissible
// candidate with the largest sum of xi_q. With Config.Redraw, new candidates
// are drawn for every (lambda, r) pair instead, as the paper's Algorithm 1
// states the search. A candidate whose column turns out
// (nearly) dependent on the chosen ones is refused and the next best taken.
func (b *OneNode) pickSupervised() (Step, bool) {
	var st Step
	var fallback *candidate // the first admissible but dependent candidate
	m := b.LS.M
	ee := append([]float64(nil), b.LS.ResidualColumnNorms()...)
	for _, lambda := range b.Spec.Scales {
		k := b.Spec.Candidates
		b.DrawBatch(k, lambda)
		st.Tried += k
		t0 := time.Now()
		hh, eh := b.Correlations()
		dead := make([]bool, k)
		for ri, r := range b.Spec.Ratios {
			if b.Spec.Redraw && ri > 0 {
				// New candidates for this (lambda, r) pair (Config.Redraw).
				b.DrawBatch(k, lambda)
				st.Tried += k
				t0 = time.Now()
				hh, eh = b.Correlations()
				clear(dead)
			}
			order := node.Admissible(hh, eh, ee, m, r, dead)
			b.Prof.Selection += time.Since(t0)
			for _, j := range order {
				if b.Deficient {
					// Past rank: the best admissible candidate, as the
					// authors' code takes it.
					return b.pastRank(st, b.saveCandidate(j, lambda, r))
				}
				if b.addColumn(j) {
					st.Scale, st.Ratio, st.RMSE = lambda, r, b.RMSE()
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
	if fallback != nil && !b.Spec.StopAtRank {
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
func (b *OneNode) saveCandidate(j int, lambda, r float64) *candidate {
	return &candidate{
		params: append([]float32(nil), b.cp[j*b.NP:(j+1)*b.NP]...), bias: b.cb[j],
		col: append([]float64(nil), b.column(j)...), lambda: lambda, ratio: r,
	}
}

// pastRank keeps c as the next node past rank and completes the step.
func (b *OneNode) pastRank(st Step, c *candidate) (Step, bool) {
	if err := b.acceptPastRank(c); err != nil {
		return st, false
	}
	st.Scale, st.Ratio, st.RMSE = c.lambda, c.ratio, b.RMSE()
	return st, true
}
