package drive

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/scn2d/scn/internal/lsq"
)

// One-pass block fits.
//
// A random learner (RVFL, 2DRVFL) knows every node before it needs any
// data, and with a ridge its block fit uses H only to form G = H^T H and
// H^T T. Such a fit draws all its nodes first (in the order the
// block-by-block loop draws them), forms the sums of every block in one
// pass over the row shards of the training images (lsq.Gram.Accumulate),
// then grows the factor block by block (lsq.Gram.AddAccumulated) with
// the same steps, progress calls and Patience checks as run (RunBlocks).
// The sums are the products the block-by-block path forms, of the same
// shapes on the same operands, reduced in the same shard order, so the
// model file is the same bytes; but H (N x L float32: 1.7 GB for MNIST at
// L = 7000) is never stored, only one shard's outputs of every node
// (L x lsq.ShardRows).
//
// Without a ridge a column may be dependent on the earlier ones, and the
// block-by-block path then leaves it out and retries the block, which
// needs the block's hidden outputs and those of every earlier column: such
// fits keep that path (package scn's Config.onePass is false for them).

// Drawn are the nodes of a one-pass fit, drawn before the pass: the block
// sizes in order, L x np parameters and L biases. Their weights over the
// image are not kept (L x d: as much again as the parameters of a vector
// node, 14 times them for a 2D node on 28 x 28 images): Hidden forms them
// from the parameters, a few nodes at a time, as prediction does
// (Standardize leaves weights that are those of the parameters).
type Drawn struct {
	Blocks       []int
	Params, Bias []float32
	W            []float32 // scratch: weights of WeightChunk nodes
}

// OnePassOps are the steps of a block builder of random nodes the
// one-pass loops call, besides BlockOps' Prof, Count and Record (a Block
// as OnePass).
type OnePassOps interface {
	Prof() *Profile
	Count(steps []Step)
	Record(steps []Step, progress func(Step)) bool
	// NP is the parameters per node; Engine the Gram engine; Deficient
	// whether a column was left out of it.
	NP() int
	Engine() *lsq.Gram
	Deficient() bool
	// DrawBatch draws b candidates at scale lambda as run draws a block
	// (standardised if asked) and returns their parameters and biases;
	// SetBatch makes cp, cb the batch RandomSteps accepts from; SetNodes
	// sets the accepted nodes' arrays (appended to as nodes are
	// accepted); ScoreBatch computes the batch's hidden outputs (b rows of
	// N) from its parameters.
	DrawBatch(b int, lambda float64) (cp, cb []float32)
	SetBatch(cp, cb []float32)
	SetNodes(params, bias []float32)
	ScoreBatch(b int) []float32
	// RandomSteps accepts the b nodes of the batch, of which those marked
	// in ok went into the engine (ok nil once past rank), and returns
	// their steps.
	RandomSteps(b int, lambda float64, ok []bool) []Step
	// Hidden writes the hidden outputs of the drawn nodes [j0, j1) on the
	// images [lo, hi) into h (the function Hidden).
	Hidden(nd *Drawn, lo, hi, j0, j1 int, h []float32)
	// Streamed says the images come from a stream; AccumulateStream is
	// the engine's Accumulate over it.
	Streamed() bool
	AccumulateStream(ctx context.Context, nd *Drawn, hidden func(lo, hi, j0, j1 int, h []float32)) error
	// Stages, if not nil (a Budget's), gives the nodes the next stage
	// adds given those fitted so far (0: stop).
	Stages() func(done int) int
}

// DrawAll draws every node of the fit block by block as run would draw
// them (DrawBatch per block: the same random numbers in the same order,
// standardised by block), without scoring them.
func DrawAll(spec BlockSpec, ops OnePassOps, lambda float64) *Drawn {
	L, bs, np := spec.MaxNodes, max(spec.BlockSize, 1), ops.NP()
	nd := &Drawn{Params: make([]float32, L*np), Bias: make([]float32, L)}
	for l0 := 0; l0 < L; {
		b := min(bs, L-l0)
		cp, cb := ops.DrawBatch(b, lambda)
		copy(nd.Params[l0*np:], cp[:b*np])
		copy(nd.Bias[l0:], cb[:b])
		nd.Blocks = append(nd.Blocks, b)
		l0 += b
	}
	return nd
}

// RunOnePass is RunBlocks for the fits that take one pass: draw every
// node, accumulate every block's sums in one pass over the data, then add
// the blocks to the factor one by one with the steps, progress calls and
// Patience checks run would make, and the same stops.
//
// Progress: a Step reports an added node, and no block can be added before
// the pass has seen every shard (its G needs every image), so nothing is
// reported during the pass; the steps follow block by block as the factor
// grows, which is quick next to the pass.
//
// Patience: the check runs after every block as in run and stops at the
// same node, with the same model; but the pass has then already formed
// the sums of all L_max nodes, which the block-by-block path would not
// have (an early stop saves less time here, for the memory of H).
func RunOnePass(ctx context.Context, spec BlockSpec, ops OnePassOps, progress func(Step)) (StopReason, error) {
	if ops.Stages() != nil && !ops.Streamed() {
		return RunStaged(ctx, spec, ops, progress)
	}
	lambda := spec.Scales[0]
	nd := DrawAll(spec, ops, lambda)
	hidden := func(lo, hi, j0, j1 int, h []float32) { ops.Hidden(nd, lo, hi, j0, j1, h) }
	prof, eng := ops.Prof(), ops.Engine()
	t0, scoring := time.Now(), prof.Scoring
	if ops.Streamed() {
		if err := ops.AccumulateStream(ctx, nd, hidden); err != nil {
			return StreamStop(err), err
		}
	} else if err := eng.Accumulate(ctx, nd.Blocks, hidden); err != nil {
		return Cancelled, err
	}
	// The pass's buffers (one shard's outputs of every node, the blocks'
	// sums) are garbage now: collected at once, the heap stays near the
	// live data (the images, G) instead of growing to twice it, as run
	// collects after each block.
	runtime.GC()
	prof.Ortho += time.Since(t0) - (prof.Scoring - scoring)
	prof.Products += int64(len(nd.Bias))
	prof.Batches++
	// RandomSteps accepts each node by appending its parameters and bias
	// to the builder's nodes: backed by the drawn nodes' arrays, the
	// appends write every node where it already is, and the nodes are not
	// stored twice (an RVFL node has d parameters: 22 MB at L = 7000 on
	// MNIST, and as much again in garbage as an append-grown copy grows).
	ops.SetNodes(nd.Params[:0], nd.Bias[:0])
	stop, _, err := AddBlocks(ctx, spec, ops, nd, 0, nd.Blocks, hidden, progress)
	return stop, err
}

// AddBlocks adds the drawn blocks (their sizes, from node l0 on) whose sums
// a pass accumulated, one by one, with the steps, progress calls and checks
// run makes. It returns the stop reason, whether the fit stopped before the
// last block (a check or cancellation), and the error.
func AddBlocks(ctx context.Context, spec BlockSpec, ops OnePassOps, nd *Drawn, l0 int, blocks []int, hidden func(lo, hi, j0, j1 int, h []float32), progress func(Step)) (StopReason, bool, error) {
	lambda := spec.Scales[0]
	np := ops.NP()
	prof, eng := ops.Prof(), ops.Engine()
	for _, b := range blocks {
		if err := ctx.Err(); err != nil {
			return Cancelled, true, err
		}
		l1 := l0 + b
		// The block's nodes as the batch that RandomSteps accepts.
		ops.SetBatch(nd.Params[l0*np:l1*np:l1*np], nd.Bias[l0:l1:l1])
		t1 := time.Now()
		var ok []bool
		if !ops.Deficient() {
			if ops.Streamed() && !eng.AddAccumulated() {
				return ReachedMaxNodes, true, ErrStreamDependent(l0)
			}
			if !ops.Streamed() {
				ok = AddDrawn(ops, b, hidden)
			} else {
				ok = AllTrue(b)
			}
		}
		steps := ops.RandomSteps(b, lambda, ok)
		prof.Ortho += time.Since(t1)
		ops.Count(steps)
		if ops.Record(steps, progress) {
			return NoValidationGain, true, nil
		}
		l0 = l1
	}
	return ReachedMaxNodes, false, nil
}

// RunStaged is RunOnePass in stages (OnePassOps.Stages, a Budget's): each
// stage draws the next nodes as run would draw them, accumulates their
// sums in one pass over the data (computing the outputs of the earlier
// nodes again, not storing them) and adds their blocks with the steps,
// progress calls and checks of run; then stages says how many nodes the
// next stage adds (0: stop). The sums of every block are the products
// run forms, so the model is the same bytes as run's with as many nodes;
// the stages only decide where the fit stops, as a check would.
//
// A stage takes one pass, which runs the products of a whole stage at the
// efficiency of one large product where run keeps H and forms each
// block's products on its own: on MNIST at 9500 nodes, 29 s against 52 s.
func RunStaged(ctx context.Context, spec BlockSpec, ops OnePassOps, progress func(Step)) (StopReason, error) {
	c := spec
	lambda, L, bs, np := c.Scales[0], c.MaxNodes, max(c.BlockSize, 1), ops.NP()
	eng, stages := ops.Engine(), ops.Stages()
	// The drawn nodes' arrays are made for every node the fit may reach,
	// so that stages append in place and RandomSteps' appends to the
	// builder's nodes (backed by them) never copy.
	nd := &Drawn{Params: make([]float32, 0, L*np), Bias: make([]float32, 0, L)}
	hidden := func(lo, hi, j0, j1 int, h []float32) { ops.Hidden(nd, lo, hi, j0, j1, h) }
	ops.SetNodes(nd.Params[:0], nd.Bias[:0])
	for l0 := 0; l0 < L; {
		next := stages(l0)
		if next <= 0 {
			return BudgetSpent, nil
		}
		// Whole blocks, so that the blocks are run's.
		next = min((next+bs-1)/bs*bs, L-l0)
		// Draw the stage's blocks as run draws them. The batch may
		// alias the drawn nodes since the last stage: draw into new ones.
		ops.SetBatch(nil, nil)
		var blocks []int
		for n := 0; n < next; {
			b := min(bs, next-n)
			cp, cb := ops.DrawBatch(b, lambda)
			nd.Params = append(nd.Params, cp[:b*np]...)
			nd.Bias = append(nd.Bias, cb[:b]...)
			blocks = append(blocks, b)
			n += b
		}
		nd.Blocks = append(nd.Blocks, blocks...)
		if ops.Deficient() || eng.Shards[0].H != nil {
			// A column was left out (or the engine went block by block
			// after one): the rest goes as run would, from the drawn
			// nodes, block by block.
			eng.Acc = nil
		} else if err := eng.Accumulate(ctx, blocks, hidden); err != nil {
			return Cancelled, err
		}
		runtime.GC()
		stop, stopped, err := AddBlocks(ctx, spec, ops, nd, l0, blocks, hidden, progress)
		if stopped || err != nil {
			return stop, err
		}
		l0 += next
	}
	return ReachedMaxNodes, nil
}

// AddDrawn adds the current block of b drawn nodes to the engine from the
// accumulated sums and returns which columns went in, as addBlock does.
// Should a column be dependent on the earlier ones despite the ridge
// (through rounding: a ridge below the rounding of G's pivots, or outputs
// that are not finite), leaving it out as the block-by-block path does
// takes the hidden outputs: those of the columns so far are recomputed
// (the same bits) and the fit goes on block by block from here.
func AddDrawn(ops OnePassOps, b int, hidden func(lo, hi, j0, j1 int, h []float32)) []bool {
	e := ops.Engine()
	if e.Acc != nil {
		if e.AddAccumulated() {
			ok := make([]bool, b)
			for j := range ok {
				ok[j] = true
			}
			return ok
		}
		e.LoadColumns(hidden)
	}
	return e.AddBlock(ops.ScoreBatch(b), b)
}

// ErrStreamDependent is the error of a streamed fit whose block at node
// l0 holds a column dependent on the earlier ones despite the ridge.
func ErrStreamDependent(l0 int) error {
	return fmt.Errorf("scn: a node of the block from node %d is dependent on the earlier ones despite the ridge (through rounding); a streamed fit cannot leave it out without a second pass: raise the ridge", l0+1)
}

// AllTrue returns b true values.
func AllTrue(b int) []bool {
	ok := make([]bool, b)
	for j := range ok {
		ok[j] = true
	}
	return ok
}
