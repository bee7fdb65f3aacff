package drive

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
	"gonum.org/v1/gonum/floats"
)

// Block is the state of a block fit (package scn's blockBuilder holds
// one, with the configuration and images it was made from): the data's
// shape, the accepted nodes, the candidates' batch, the Gram engine and
// the residual. Its methods are the steps the block loops call: it is
// BlockOps, and OnePass makes it OnePassOps.
type Block struct {
	// Spec is what the loops need of the configuration (of the layer
	// being fitted); Ratios the r list; Act the activation; Node what a
	// draw needs (fields, standardisation); Matrix says the nodes are
	// matrix nodes.
	Spec   BlockSpec
	Ratios []float64
	Act    node.Activation
	Node   node.Spec
	Matrix bool
	// Img returns the images the steps read (a stream's row shard
	// during one of its passes); N is the training images (a stream's
	// whole count), D their dimension, M the outputs.
	Img     func() Images
	N, D, M int
	NM      node.Map
	NP      int // hidden parameters per node
	Rng     *rand.Rand
	// The accepted nodes (L x NP parameters, L biases), their steps and
	// counts, and the fit's profile.
	Params, Bias  []float32
	Trace         []Step
	Tried, Reject int
	Profile       Profile
	// A batch of K candidates: parameters, biases, weights, and outputs Z
	// (K x N: candidate j's outputs are row j).
	CP, CB, CW, Z []float32
	K             int
	// Deficient is set once a random node was dependent on the earlier
	// ones; Independent counts the nodes before the first such one.
	Deficient   bool
	Independent int
	// Eng is the Gram engine; E the residual by output (M rows of N), EE
	// its column norms, RSS ||E||_F^2; T the targets N x M, row-major (for
	// paths past rank).
	Eng   *lsq.Gram
	E, EE []float64
	RSS   float64
	T     []float64
	// XBar is the mean image (standardised nodes), NS the images the
	// spread of a standardised node is measured on.
	XBar []float32
	NS   int
	// Scratch, and the accepted candidates' columns (scratch).
	Scratch, HB32 []float32
	// Diffs draws difference nodes (Config.Differences), else nil.
	Diffs *node.DiffSource
	// Check, if set, is asked after every block whether to stop (model
	// selection's Patience, a Budget's clock).
	Check func() bool
}

// Nodes returns the nodes accepted so far.
func (b *Block) Nodes() int { return len(b.Bias) }

// RMSE returns the current training RMSE (of the regularised fit).
func (b *Block) RMSE() float64 {
	return math.Sqrt(b.RSS / float64(b.N*b.M))
}

// Prof returns the fit's profile.
func (b *Block) Prof() *Profile { return &b.Profile }

// Accept appends candidate j, whose column was just added to the engine.
func (b *Block) Accept(j int) {
	b.Params = append(b.Params, b.CP[j*b.NP:(j+1)*b.NP]...)
	b.Bias = append(b.Bias, b.CB[j])
}

// Record appends a step's nodes to the trace, reports them to progress
// and returns whether the check (Patience) asks to stop.
func (b *Block) Record(steps []Step, progress func(Step)) (stop bool) {
	for _, st := range steps {
		st.L = len(b.Trace) + 1
		b.Trace = append(b.Trace, st)
		if progress != nil {
			progress(st)
		}
	}
	return b.Check != nil && b.Check()
}

// Count adds the steps' candidates tried and refused to the fit's counts.
func (b *Block) Count(steps []Step) {
	for _, st := range steps {
		b.Tried += st.Tried
		b.Reject += st.Rejected
	}
}

// Draw draws k candidates at scale lambda (on receptive fields and
// standardised if the configuration asks) and computes their hidden
// outputs on the training images: row j of Z is candidate j's.
func (b *Block) Draw(k int, lambda float64) {
	b.DrawParams(k, lambda)
	b.Score(k)
}

// DrawParams draws k candidates at scale lambda into CP, CB and their
// weights over the image into CW (the function DrawParams), standardised
// if the configuration asks.
func (b *Block) DrawParams(k int, lambda float64) {
	b.K = k
	b.CP = lsq.Grow(b.CP, k*b.NP)
	b.CB = lsq.Grow(b.CB, k)
	b.CW = lsq.Grow(b.CW, k*b.D)
	t0 := time.Now()
	DrawParams(b.Rng, b.NM, b.Node, b.Diffs, lambda, k, b.NP, b.D, b.CP, b.CB, b.CW)
	if b.Node.Standardize {
		b.standardize(k, lambda)
	}
	b.Profile.Draw += time.Since(t0)
}

// Score computes the hidden outputs of the k candidates in CW, CB on the
// training images: row j of Z is candidate j's (the function Score).
func (b *Block) Score(k int) {
	b.Z = lsq.Grow(b.Z, b.N*k)
	Score(b.Act, k, b.N, b.D, b.CW, b.CB, b.Img().Pix, b.Z, &b.Profile)
}

// standardize scales each of the k drawn candidates so that its input
// w^T x has spread lambda over the first NS training images and is
// centred, before its random bias (the function Standardize).
func (b *Block) standardize(k int, lambda float64) {
	b.Scratch = lsq.Grow(b.Scratch, k*b.NS)
	x := b.Img()
	Standardize(b.NM, b.Matrix, x.Rows, k, b.NS, b.D, b.NP, lambda, b.XBar, x.Pix, b.CP, b.CB, b.CW, b.Scratch)
}

// RandomBlock draws k random nodes at the first scale and appends them.
// A node dependent on the earlier ones (only possible without a ridge) is
// kept but left out of the engine, as the one-node path does, and the
// output weights are then the minimum-norm solution.
func (b *Block) RandomBlock(k int) []Step {
	lambda := b.Spec.Scales[0]
	b.Draw(k, lambda)
	t0 := time.Now()
	var ok []bool
	if !b.Deficient {
		ok = b.Eng.AddBlock(b.Z[:k*b.N], k)
	}
	steps := b.RandomSteps(k, lambda, ok)
	b.Profile.Ortho += time.Since(t0)
	return steps
}

// RandomSteps accepts the k random nodes of the current batch, of which
// those marked in ok went into the engine (ok is nil once the fit is past
// rank), and returns their steps, each with the training RMSE after the
// whole block.
func (b *Block) RandomSteps(k int, lambda float64, ok []bool) []Step {
	steps := make([]Step, k)
	for j := 0; j < k; j++ {
		steps[j] = Step{Scale: lambda, Tried: 1}
		if b.Deficient || !ok[j] {
			steps[j].Rejected = 1
			b.Deficient = true
		} else {
			b.Independent++
		}
		b.Accept(j)
	}
	beta, err := b.Eng.Solve(b.Eng.L, b.Spec.Ridge)
	if err == nil {
		b.RSS = b.Eng.RSS(b.Eng.L, beta)
	}
	rmse := b.RMSE()
	for j := range steps {
		steps[j].RMSE = rmse
	}
	return steps
}

// ChooseBlock returns up to k candidates of the n scored (hh, eh) that
// meet the supervisory inequality at the first r of the list that admits
// k of them (or at its last r, with fewer), best first, and that r (the
// function ChooseBlock).
func (b *Block) ChooseBlock(hh, eh []float64, n, k int) (order []int, ratio float64) {
	return ChooseBlock(hh, eh, b.EE, b.M, b.Ratios, n, k)
}

// Columns returns the hidden outputs of the candidates order (len(order)
// rows of N): their exact outputs for pair candidates, else rows of Z.
func (b *Block) Columns(order []int) []float32 {
	if b.Spec.Pairs {
		return b.ExactColumns(order)
	}
	return Gather(b.Z, b.N, order, &b.HB32)
}

// AddBlock offers k columns hb to the engine and returns which went in.
func (b *Block) AddBlock(hb []float32, k int) []bool { return b.Eng.AddBlock(hb, k) }

// AcceptAdded keeps the candidates of order whose columns the engine took
// (ok[i]) and returns their steps and how many it refused as dependent.
func (b *Block) AcceptAdded(order []int, ok []bool, lambda, ratio float64) (steps []Step, refused int) {
	for i, j := range order {
		if !ok[i] {
			refused++
			continue
		}
		b.Accept(j)
		steps = append(steps, Step{Scale: lambda, Ratio: ratio})
	}
	return steps, refused
}

// UpdateResidual sets E = T - H beta with beta the output weights of all
// nodes so far at the configuration's ridge, and its column norms.
func (b *Block) UpdateResidual() {
	l := b.Eng.L
	beta, err := b.Eng.Solve(l, b.Spec.Ridge)
	if err != nil {
		// The kept factor is non-singular by construction; should it not
		// be, the residual stays as it was rather than fail the fit.
		return
	}
	b.Eng.Residual(l, beta, b.E)
	b.EE = b.Eng.ResidualNorms(b.E)
	b.RSS = floats.Sum(b.EE)
}

// Correlations returns, for the k candidates in Z, h_j^T h_j (k values)
// and e_q^T h_j (m x k, eh[q*k+j]) against the current residual, summed
// over the row shards of the engine (BlockCorrelations).
func (b *Block) Correlations(k int) (hh, eh []float64) {
	return BlockCorrelations(b.Eng.Shards, b.Z, b.E, b.N, b.M, k)
}

// PairCandidates draws tu row vectors and tv column vectors at scale
// lambda and returns the statistics of all tu x tv pairs as candidates
// (candidate j = t*tu + s is the pair (u_s, v_t)): h_j^T h_j and e_q^T h_j
// (eh[q*k+j]) against the residual (the function PairCandidates). The
// accepted ones' outputs are computed again by ExactColumns.
func (b *Block) PairCandidates(tu, tv int, lambda float64) (hh, eh []float64) {
	t0 := time.Now()
	pd := b.DrawPairs(tu, tv, lambda)
	return PairCandidates(pd, b.Img(), b.Eng.Shards, b.E, b.M, b.Act,
		b.Node.Standardize, lambda, b.NP, b.CP, b.CB, t0, &b.Profile)
}

// DrawPairs draws tu row vectors and tv column vectors at scale lambda
// and the bias of each of their tu x tv pairs into CP and CB (the
// function DrawPairs).
func (b *Block) DrawPairs(tu, tv int, lambda float64) *PairDraw {
	k := tu * tv
	b.K = k
	b.CP = lsq.Grow(b.CP, k*b.NP)
	b.CB = lsq.Grow(b.CB, k)
	return DrawPairs(b.Rng, b.Node, b.Diffs, b.Img(), tu, tv, lambda, b.NP, b.CP, b.CB)
}

// StandardizePairs centres and scales each pair candidate to spread
// lambda from its inputs' sums over the N training images
// (PairDraw.Standardize).
func (b *Block) StandardizePairs(pd *PairDraw, sum []float64, lambda float64) {
	pd.Standardize(sum, lambda, b.N, b.Img().Rows, b.NP, b.CP, b.CB)
}

// ExactColumns returns the hidden outputs (len(idx) rows of N) of the
// candidates idx, computed from their parameters with the kernel that
// predicts (the function ExactColumns).
func (b *Block) ExactColumns(idx []int) []float32 {
	return ExactColumns(b.NM, b.Act, b.Img(), b.D, b.NP, b.CP, b.CB, idx, &b.HB32, &b.Profile)
}

// Hidden writes the hidden outputs of the drawn nodes [j0, j1) on the
// images [lo, hi) into h (node-major: j1-j0 rows of hi-lo). Each output is
// the bits Score gives it (ScoreNT computes every output alone, whatever
// the batch of nodes and images, and so does the activation): the
// function Hidden.
func (b *Block) Hidden(nd *Drawn, lo, hi, j0, j1 int, h []float32) {
	Hidden(b.NM, b.Act, b.D, b.NP, nd.Params, nd.Bias, b.Img().Pix, &nd.W, lo, hi, j0, j1, h, &b.Profile)
}

// OnePass is a Block as the one-pass loops call it (OnePassOps): Stream,
// if set, accumulates the engine's sums over a stream (nil: the images in
// memory); StagesOf, if set (a Budget's), gives the nodes each stage adds.
type OnePass struct {
	*Block
	Stream   func(ctx context.Context, nd *Drawn, hidden func(lo, hi, j0, j1 int, h []float32)) error
	StagesOf func(done int) int
}

// NP returns the parameters per node.
func (o OnePass) NP() int { return o.Block.NP }

// Engine returns the Gram engine.
func (o OnePass) Engine() *lsq.Gram { return o.Eng }

// Deficient reports whether a column was left out of the engine.
func (o OnePass) Deficient() bool { return o.Block.Deficient }

// Streamed reports whether the images come from a stream.
func (o OnePass) Streamed() bool { return o.Stream != nil }

// Stages returns the stages' rule (nil: one pass).
func (o OnePass) Stages() func(int) int { return o.StagesOf }

// DrawBatch draws b candidates at scale lambda as a block fit draws them
// and returns their parameters and biases.
func (o OnePass) DrawBatch(b int, lambda float64) ([]float32, []float32) {
	o.DrawParams(b, lambda)
	return o.CP, o.CB
}

// SetBatch makes cp, cb the batch RandomSteps accepts from.
func (o OnePass) SetBatch(cp, cb []float32) { o.CP, o.CB = cp, cb }

// SetNodes sets the accepted nodes' arrays.
func (o OnePass) SetNodes(params, bias []float32) { o.Params, o.Bias = params, bias }

// ScoreBatch computes the batch's hidden outputs (b rows of N) from its
// parameters.
func (o OnePass) ScoreBatch(b int) []float32 {
	bb := o.Block
	bb.CW = lsq.Grow(bb.CW, b*bb.D)
	for j := 0; j < b; j++ {
		bb.NM.Weight(bb.CP[j*bb.NP:(j+1)*bb.NP], bb.CW[j*bb.D:(j+1)*bb.D])
	}
	bb.Score(b)
	return bb.Z[:b*bb.N]
}

// AccumulateStream is the engine's Accumulate over the stream.
func (o OnePass) AccumulateStream(ctx context.Context, nd *Drawn, hidden func(lo, hi, j0, j1 int, h []float32)) error {
	return o.Stream(ctx, nd, hidden)
}

// The block builder's steps are the loops' operations.
var (
	_ BlockOps   = (*Block)(nil)
	_ OnePassOps = OnePass{}
)

// RunLayers grows the further layers of a deep network on b, whose first
// layer RunBlocks has just fitted with the result stop: for each size, as
// long as the last layer has nodes and none was dependent, next(prev,
// size) points b at a layer of size nodes reading the prev columns of the
// last, RunBlocks fills it and layer is given its nodes (if any). A layer
// that stops for want of an admissible candidate hands on to the next;
// the result is the last layer's.
func RunLayers(ctx context.Context, b *Block, stop StopReason, sizes []int, next func(prev, size int), layer func(params, bias []float32), progress func(Step)) (StopReason, error) {
	for _, size := range sizes {
		prev := len(b.Bias)
		if b.Deficient || prev == 0 {
			break
		}
		next(prev, size)
		var err error
		stop, err = RunBlocks(ctx, b.Spec, b, progress)
		if len(b.Bias) > 0 {
			layer(b.Params, b.Bias)
		}
		if err != nil || stop == Cancelled || len(b.Bias) == 0 {
			return stop, err
		}
	}
	return stop, nil
}

// NewBlock returns the state of a block fit of n images of dimension d
// with m outputs on the engine eng (holding the targets' sums: the
// residual starts from them, a supervised fit's E too), node map nm,
// drawing from rng; bf16 rounds the engine's Gram products to bfloat16.
// The caller sets the configuration's fields (Spec, Ratios, Act, Node,
// Matrix), the images (Img) and, for standardised or difference nodes,
// XBar, NS and Diffs.
func NewBlock(eng *lsq.Gram, n, d, m int, nm node.Map, rng *rand.Rand, supervised, bf16 bool) *Block {
	b := &Block{N: n, D: d, M: m, NM: nm, NP: nm.Size(), Rng: rng, Eng: eng}
	b.Eng.BF16 = bf16
	if supervised {
		b.E = append([]float64(nil), b.Eng.TC...)
	}
	b.EE = append([]float64(nil), b.Eng.TT...)
	b.RSS = floats.Sum(b.EE)
	return b
}
