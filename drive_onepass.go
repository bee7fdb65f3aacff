package scn

import (
	"context"
	"runtime"
	"time"

	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/node"
)

// One-pass block fits.
//
// A random learner (RVFL, 2DRVFL) knows every node before it needs any
// data, and with a ridge its block fit uses H only to form G = H^T H and
// H^T T. Such a fit draws all its nodes first (in the order the
// block-by-block loop draws them), forms the sums of every block in one
// pass over the row shards of the training images (lsq.Gram.Accumulate),
// then grows the factor block by block (lsq.Gram.AddAccumulated) with
// the same steps, progress calls and Patience checks as run. The sums are
// the products the block-by-block path forms, of the same shapes on the
// same operands, reduced in the same shard order, so the model file is the
// same bytes; but H (N x L float32: 1.7 GB for MNIST at L = 7000) is never
// stored, only one shard's outputs of every node (L x lsq.ShardRows).
//
// Without a ridge a column may be dependent on the earlier ones, and the
// block-by-block path then leaves it out and retries the block, which
// needs the block's hidden outputs and those of every earlier column: such
// fits keep that path (onePass is false for them).

// onePassFits is false only in tests that compare the one-pass path with
// the block-by-block one.
var onePassFits = true

// onePass reports whether a fit of c takes the one-pass path: a block fit
// of random nodes with a ridge.
func (c Config) onePass() bool {
	return onePassFits && c.blockMode() && c.Kind.Choice == Random && c.Ridge > 0
}

// drawnNodes are the nodes of a one-pass fit, drawn before the pass: the
// block sizes in order, L x np parameters and L biases. Their weights over
// the image are not kept (L x d: as much again as the parameters of a
// vector node, 14 times them for a 2D node on 28 x 28 images): hidden
// forms them from the parameters, a few nodes at a time, as prediction
// does (standardize leaves weights that are those of the parameters).
type drawnNodes struct {
	blocks       []int
	params, bias []float32
	w            []float32 // scratch: weights of weightChunk nodes
}

// weightChunk is the nodes whose weights hidden forms and scores at a time
// (drive.WeightChunk).
const weightChunk = drive.WeightChunk

// drawAll draws every node of the fit block by block as run would draw
// them (drawParams per block: the same random numbers in the same order,
// standardised by block), without scoring them.
func (bb *blockBuilder) drawAll(lambda float64) *drawnNodes {
	L, bs, np := bb.cfg.MaxNodes, max(bb.cfg.BlockSize, 1), bb.np
	nd := &drawnNodes{params: make([]float32, L*np), bias: make([]float32, L)}
	for l0 := 0; l0 < L; {
		b := min(bs, L-l0)
		bb.drawParams(b, lambda)
		copy(nd.params[l0*np:], bb.cp[:b*np])
		copy(nd.bias[l0:], bb.cb[:b])
		nd.blocks = append(nd.blocks, b)
		l0 += b
	}
	return nd
}

// hidden writes the hidden outputs of the drawn nodes [j0, j1) on the
// images [lo, hi) into h (node-major: j1-j0 rows of hi-lo). Each output is
// the bits score gives it (ScoreNT computes every output alone, whatever
// the batch of nodes and images, and so does the activation): drive.Hidden.
func (bb *blockBuilder) hidden(nd *drawnNodes, lo, hi, j0, j1 int, h []float32) {
	drive.Hidden(bb.nm, node.Activation(bb.cfg.Activation), bb.d, bb.np, nd.params, nd.bias, bb.x.Pix, &nd.w, lo, hi, j0, j1, h, &bb.prof)
}

// runOnePass is run for the fits that take one pass (onePass): draw every
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
func (bb *blockBuilder) runOnePass(ctx context.Context, progress func(Step)) (StopReason, error) {
	if bb.opts.stages != nil && bb.stream == nil {
		return bb.runStaged(ctx, progress)
	}
	lambda := bb.cfg.Scales[0]
	nd := bb.drawAll(lambda)
	hidden := func(lo, hi, j0, j1 int, h []float32) { bb.hidden(nd, lo, hi, j0, j1, h) }
	t0, scoring := time.Now(), bb.prof.Scoring
	if bb.stream != nil {
		if err := bb.accumulateStream(ctx, nd, hidden); err != nil {
			return streamStop(err), err
		}
	} else if err := bb.eng.Accumulate(ctx, nd.blocks, hidden); err != nil {
		return Cancelled, err
	}
	// The pass's buffers (one shard's outputs of every node, the blocks'
	// sums) are garbage now: collected at once, the heap stays near the
	// live data (the images, G) instead of growing to twice it, as run
	// collects after each block.
	runtime.GC()
	bb.prof.Ortho += time.Since(t0) - (bb.prof.Scoring - scoring)
	bb.prof.Products += int64(len(nd.bias))
	bb.prof.Batches++
	// randomSteps accepts each node by appending its parameters and bias
	// to bb.params and bb.bias: backed by the drawn nodes' arrays, the
	// appends write every node where it already is, and the nodes are not
	// stored twice (an RVFL node has d parameters: 22 MB at L = 7000 on
	// MNIST, and as much again in garbage as an append-grown copy grows).
	bb.params, bb.bias = nd.params[:0], nd.bias[:0]
	stop, _, err := bb.addBlocks(ctx, nd, 0, nd.blocks, hidden, progress)
	return stop, err
}

// addBlocks adds the drawn blocks (their sizes, from node l0 on) whose sums
// a pass accumulated, one by one, with the steps, progress calls and checks
// run makes. It returns the stop reason, whether the fit stopped before the
// last block (a check or cancellation), and the error.
func (bb *blockBuilder) addBlocks(ctx context.Context, nd *drawnNodes, l0 int, blocks []int, hidden func(lo, hi, j0, j1 int, h []float32), progress func(Step)) (StopReason, bool, error) {
	lambda := bb.cfg.Scales[0]
	np := bb.np
	for _, b := range blocks {
		if err := ctx.Err(); err != nil {
			return Cancelled, true, err
		}
		l1 := l0 + b
		// The block's nodes as the batch that randomSteps accepts.
		bb.cp, bb.cb = nd.params[l0*np:l1*np:l1*np], nd.bias[l0:l1:l1]
		t1 := time.Now()
		var ok []bool
		if !bb.deficient {
			if bb.stream != nil && !bb.eng.AddAccumulated() {
				return ReachedMaxNodes, true, errStreamDependent(l0)
			}
			if bb.stream == nil {
				ok = bb.addDrawn(b, hidden)
			} else {
				ok = allTrue(b)
			}
		}
		steps := bb.randomSteps(b, lambda, ok)
		bb.prof.Ortho += time.Since(t1)
		for _, st := range steps {
			bb.tried += st.Tried
			bb.reject += st.Rejected
		}
		if bb.record(steps, progress) {
			return NoValidationGain, true, nil
		}
		l0 = l1
	}
	return ReachedMaxNodes, false, nil
}

// runStaged is runOnePass in stages (runOpts.stages, a Budget's): each
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
func (bb *blockBuilder) runStaged(ctx context.Context, progress func(Step)) (StopReason, error) {
	c := bb.cfg
	lambda, L, bs, np := c.Scales[0], c.MaxNodes, max(c.BlockSize, 1), bb.np
	// The drawn nodes' arrays are made for every node the fit may reach,
	// so that stages append in place and randomSteps' appends to bb.params
	// (backed by them) never copy.
	nd := &drawnNodes{params: make([]float32, 0, L*np), bias: make([]float32, 0, L)}
	hidden := func(lo, hi, j0, j1 int, h []float32) { bb.hidden(nd, lo, hi, j0, j1, h) }
	bb.params, bb.bias = nd.params[:0], nd.bias[:0]
	for l0 := 0; l0 < L; {
		next := bb.opts.stages(l0)
		if next <= 0 {
			return BudgetSpent, nil
		}
		// Whole blocks, so that the blocks are run's.
		next = min((next+bs-1)/bs*bs, L-l0)
		// Draw the stage's blocks as run draws them. bb.cp and bb.cb may
		// alias the drawn nodes since the last stage: draw into new ones.
		bb.cp, bb.cb = nil, nil
		var blocks []int
		for n := 0; n < next; {
			b := min(bs, next-n)
			bb.drawParams(b, lambda)
			nd.params = append(nd.params, bb.cp[:b*np]...)
			nd.bias = append(nd.bias, bb.cb[:b]...)
			blocks = append(blocks, b)
			n += b
		}
		nd.blocks = append(nd.blocks, blocks...)
		if bb.deficient || bb.eng.Shards[0].H != nil {
			// A column was left out (or the engine went block by block
			// after one): the rest goes as run would, from the drawn
			// nodes, block by block.
			bb.eng.Acc = nil
		} else if err := bb.eng.Accumulate(ctx, blocks, hidden); err != nil {
			return Cancelled, err
		}
		runtime.GC()
		stop, stopped, err := bb.addBlocks(ctx, nd, l0, blocks, hidden, progress)
		if stopped || err != nil {
			return stop, err
		}
		l0 += next
	}
	return ReachedMaxNodes, nil
}

// addDrawn adds the current block of b drawn nodes to the engine from the
// accumulated sums and returns which columns went in, as addBlock does.
// Should a column be dependent on the earlier ones despite the ridge
// (through rounding: a ridge below the rounding of G's pivots, or outputs
// that are not finite), leaving it out as the block-by-block path does
// takes the hidden outputs: those of the columns so far are recomputed
// (the same bits) and the fit goes on block by block from here.
func (bb *blockBuilder) addDrawn(b int, hidden func(lo, hi, j0, j1 int, h []float32)) []bool {
	e := bb.eng
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
	bb.cw = grow(bb.cw, b*bb.d)
	for j := 0; j < b; j++ {
		bb.nm.Weight(bb.cp[j*bb.np:(j+1)*bb.np], bb.cw[j*bb.d:(j+1)*bb.d])
	}
	bb.score(b)
	return e.AddBlock(bb.z[:b*bb.n], b)
}
