package drive

import (
	"context"
	"errors"
	"runtime"
	"time"

	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
)

// Block increments (Dai, Li, Zhou, Chai, "Stochastic configuration networks
// with block increments for data modeling", Information Sciences 484 (2019)
// 367-386): each step adds a block of up to BlockSpec.BlockSize nodes, and the
// least squares is the Gram/Cholesky block engine of internal/lsq (lsq.Gram).
//
// Supervised choice. A step draws Candidates x BlockSize candidates at each
// scale lambda in turn, scores them with one pass over the images and
// computes every candidate's xi_q = (e_q^T h)^2 / (h^T h) - (1-r) e_q^T e_q
// against the residual e before the step. For the r list in order, the
// first r at which at least BlockSize candidates satisfy min_q xi_q >= 0
// (or the last r) gives the admissible set, and the block is its BlockSize
// candidates with the largest sum of xi_q; the first scale with any
// admissible candidate is used. This is the per-node form of the
// inequality, top-b by xi, not the block form of Dai et al. (which asks
// e^T H_B (H_B^T H_B)^-1 H_B^T e >= (1-r) e^T e of the block as a whole):
// the block form would need a b x b solve for every candidate block and
// offers no way to search the combinations of K candidates for the best
// block; each node of a per-node block is admissible on its own, and the
// block form then holds as well for the block's best node, since the
// projection on the block is at least the projection on any one of its
// columns. package scn's TestBlockInequalityOnTrace checks every accepted
// node on the trace.
//
// The residual used by the inequality is the regularised one,
// e = T - H beta_alpha with alpha = BlockSpec.Ridge: with a ridge, a supervised
// fit keeps finding nodes that reduce it past L = N.
//
// Random choice (RVFL, 2DRVFL) draws each block at the first scale and
// appends it whole.

// BlockSpec is what a block fit's loops need of a configuration.
type BlockSpec struct {
	Supervised bool      // supervised choice (SCN, 2DSCN), else random (RVFL, 2DRVFL)
	MaxNodes   int       // L_max (of the layer being fitted)
	BlockSize  int       // nodes per block (at least 1 is used)
	Candidates int       // candidates per block node and scale
	Tolerance  float64   // the training RMSE that stops a supervised fit
	Ridge      float64   // the ridge of the output weights the residual is taken at
	Scales     []float64 // lambda, in the order tried
	Pairs      bool      // pair candidates (2D nodes)
}

// BlockOps are the steps of a block builder the loops here call (Block:
// its candidates, engine, residual and trace).
type BlockOps interface {
	// Nodes returns the nodes accepted so far (of the layer being fitted);
	// RMSE the current training RMSE; Prof the fit's profile.
	Nodes() int
	RMSE() float64
	Prof() *Profile
	// Draw draws and scores k candidates at scale lambda; Correlations
	// returns their h^T h and e_q^T h against the residual;
	// PairCandidates draws tu x tv pair candidates and returns the same
	// sums; ChooseBlock picks up to b of k scored candidates (ChooseBlock,
	// the function); Columns returns the hidden outputs of the candidates
	// order (len(order) rows of N).
	Draw(k int, lambda float64)
	Correlations(k int) (hh, eh []float64)
	PairCandidates(tu, tv int, lambda float64) (hh, eh []float64)
	ChooseBlock(hh, eh []float64, k, b int) (order []int, ratio float64)
	Columns(order []int) []float32
	// AddBlock offers b columns hb to the engine and returns which went in;
	// AcceptAdded keeps the candidates order whose columns went in (ok)
	// and returns their steps and how many were refused; UpdateResidual
	// sets the residual at every node's output weights.
	AddBlock(hb []float32, b int) []bool
	AcceptAdded(order []int, ok []bool, lambda, ratio float64) (steps []Step, refused int)
	UpdateResidual()
	// RandomBlock draws b random nodes and appends them; Count adds
	// steps' candidates tried and refused to the fit's counts; Record
	// appends steps to the trace, reports them to progress and returns
	// whether the check asks to stop.
	RandomBlock(b int) []Step
	Count(steps []Step)
	Record(steps []Step, progress func(Step)) bool
}

// RunBlocks adds blocks until a stopping rule holds: L_max nodes, the
// tolerance (supervised), no admissible candidate, or the check.
func RunBlocks(ctx context.Context, spec BlockSpec, ops BlockOps, progress func(Step)) (StopReason, error) {
	supervised := spec.Supervised
	bs := max(spec.BlockSize, 1)
	for ops.Nodes() < spec.MaxNodes {
		if err := ctx.Err(); err != nil {
			return Cancelled, err
		}
		if supervised && ops.RMSE() <= spec.Tolerance {
			return ReachedTolerance, nil
		}
		b := min(bs, spec.MaxNodes-ops.Nodes())
		var steps []Step
		var ok bool
		if supervised {
			steps, ok = SupervisedBlock(spec, ops, b)
		} else {
			steps, ok = ops.RandomBlock(b), true
		}
		ops.Count(steps)
		if !ok {
			return NoAdmissible, nil
		}
		if ops.Record(steps, progress) {
			return NoValidationGain, nil
		}
		// A block step leaves scratch of the order of the candidates'
		// outputs behind; collected at once, the heap stays near the live
		// data (H and the factor) instead of growing to twice it before
		// the next collection. The large buffers hold no pointers, so the
		// collection costs little.
		runtime.GC()
	}
	if supervised && ops.RMSE() <= spec.Tolerance {
		return ReachedTolerance, nil
	}
	return ReachedMaxNodes, nil
}

// SupervisedBlock adds one block of supervised nodes (see ChooseBlock for
// the choice). It returns the block's steps and false if no candidate at
// any scale was admissible (or all admissible ones were dependent on the
// chosen nodes).
func SupervisedBlock(spec BlockSpec, ops BlockOps, b int) ([]Step, bool) {
	k := spec.Candidates * b
	tried, rejected := 0, 0
	prof := ops.Prof()
	for _, lambda := range spec.Scales {
		var hh, eh []float64
		var t0 time.Time // the candidates' draws are profiled by ops
		if spec.Pairs {
			side := node.PairSide(k)
			hh, eh = ops.PairCandidates(side, side, lambda)
			k = side * side
			t0 = time.Now()
		} else {
			ops.Draw(k, lambda)
			t0 = time.Now()
			hh, eh = ops.Correlations(k)
		}
		tried += k
		order, ratio := ops.ChooseBlock(hh, eh, k, b)
		prof.Selection += time.Since(t0)
		if len(order) == 0 {
			continue
		}
		t1 := time.Now()
		hb := ops.Columns(order)
		steps, refused := ops.AcceptAdded(order, ops.AddBlock(hb, len(order)), lambda, ratio)
		rejected += refused
		if len(steps) == 0 {
			prof.Ortho += time.Since(t1)
			continue
		}
		ops.UpdateResidual()
		prof.Ortho += time.Since(t1)
		rmse := ops.RMSE()
		for i := range steps {
			steps[i].RMSE = rmse
		}
		steps[0].Tried, steps[0].Rejected = tried, rejected
		return steps, true
	}
	return []Step{{Tried: tried, Rejected: rejected}}, false
}

// Gather copies the outputs of the candidates order (rows of n in z) into
// the scratch *hb, in order, and returns them.
func Gather(z []float32, n int, order []int, hb *[]float32) []float32 {
	*hb = lsq.Grow(*hb, len(order)*n)
	h := *hb
	for i, j := range order {
		copy(h[i*n:(i+1)*n], z[j*n:(j+1)*n])
	}
	return h
}

// StreamOps are the steps of a streamed supervised block fit the loop
// RunStreamSupervised calls, besides BlockOps' (package scn's
// blockBuilder over its Source).
type StreamOps interface {
	BlockOps
	// DrawParams draws k candidates at scale lambda without scoring them;
	// StreamPairs draws side x side pair candidates (standardised over a
	// pass of their own if asked).
	DrawParams(k int, lambda float64)
	StreamPairs(ctx context.Context, side int, lambda float64) (*PairDraw, error)
	// Pass reads the stream once (StreamPass) for the k candidates drawn,
	// with the residual of the first resL nodes at beta.
	Pass(ctx context.Context, resL int, beta []float64, k int, pd *PairDraw) (*StreamSums, error)
	// SetNorms sets the residual's column norms ee (and the RSS, their
	// sum); AddSummed adds the candidates order from a pass's sums (the
	// function AddSummed); Solve returns the nodes so far and their
	// output weights at the ridge; RecordAt records steps with the
	// current RMSE (Record's answer); AddCounts adds to the fit's counts.
	SetNorms(ee []float64)
	AddSummed(s *StreamSums, k int, order []int) []bool
	Solve() (l int, beta []float64, err error)
	RecordAt(steps []Step, progress func(Step)) bool
	AddCounts(tried, rejected int)
}

// StreamStop is the stop reason of a streamed pass that failed with err.
func StreamStop(err error) StopReason {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Cancelled
	}
	return ReachedMaxNodes
}

// RunStreamSupervised is RunBlocks for a streamed supervised fit (see
// StreamPass): the same block steps, candidates, choices and stops, one
// pass over the stream per step.
func RunStreamSupervised(ctx context.Context, spec BlockSpec, ops StreamOps, progress func(Step)) (StopReason, error) {
	c := spec
	bs := max(c.BlockSize, 1)
	prof := ops.Prof()
	var (
		resL     int       // the nodes the residual is formed from
		resBeta  []float64 // and their output weights
		stale    bool      // a block was added since the residual's norms were measured
		pending  []Step    // the last block's steps, waiting for its residual
		si       int       // the scale the step tries
		tried    int       // candidates the step tried so far
		rejected int
	)
	for {
		if err := ctx.Err(); err != nil {
			return Cancelled, err
		}
		l := ops.Nodes()
		b := min(bs, c.MaxNodes-l)
		// RunBlocks' check before a step, when the residual's norms are known
		// (else after the pass that measures them).
		if !stale && (b == 0 || ops.RMSE() <= c.Tolerance) {
			break
		}
		k := 0
		var lambda float64
		var pd *PairDraw
		if b > 0 {
			lambda = c.Scales[si]
			k = c.Candidates * b
			if c.Pairs {
				side := node.PairSide(k)
				var err error
				if pd, err = ops.StreamPairs(ctx, side, lambda); err != nil {
					return StreamStop(err), err
				}
				k = pd.K
			} else {
				ops.DrawParams(k, lambda)
			}
		}
		sums, err := ops.Pass(ctx, resL, resBeta, k, pd)
		if err != nil {
			return StreamStop(err), err
		}
		prof.Products += int64(k)
		prof.Batches++
		// The pass's buffers (a shard's outputs of every node and
		// candidate, a shard's products) are garbage now: collected at
		// once, as RunBlocks collects after each block, the heap stays near the
		// estimate (G, the candidates' sums) instead of growing to twice
		// it.
		runtime.GC()
		if stale {
			ops.SetNorms(sums.EE)
			stale = false
			if ops.RecordAt(pending, progress) {
				return NoValidationGain, nil
			}
			pending = nil
		}
		if k == 0 || ops.RMSE() <= c.Tolerance {
			break
		}
		// supervisedBlock's choice, from the pass's sums.
		t0 := time.Now()
		tried += k
		order, ratio := ops.ChooseBlock(sums.HH, sums.EH, k, b)
		prof.Selection += time.Since(t0)
		var steps []Step
		if len(order) > 0 {
			t1 := time.Now()
			var refused int
			steps, refused = ops.AcceptAdded(order, ops.AddSummed(sums, k, order), lambda, ratio)
			rejected += refused
			prof.Ortho += time.Since(t1)
		}
		if len(steps) == 0 {
			// The next scale, in another pass.
			si++
			if si == len(c.Scales) {
				ops.AddCounts(tried, rejected)
				return NoAdmissible, nil
			}
			continue
		}
		steps[0].Tried, steps[0].Rejected = tried, rejected
		ops.AddCounts(tried, rejected)
		si, tried, rejected = 0, 0, 0
		// updateResidual: the output weights of every node at the ridge,
		// the residual's norms measured by the next pass; should the
		// solve fail, the residual stays as it was and the steps are
		// recorded at once with its RMSE.
		if l, beta, err := ops.Solve(); err == nil {
			resL, resBeta, stale, pending = l, beta, true, steps
		} else if ops.RecordAt(steps, progress) {
			return NoValidationGain, nil
		}
	}
	if ops.RMSE() <= c.Tolerance {
		return ReachedTolerance, nil
	}
	return ReachedMaxNodes, nil
}
