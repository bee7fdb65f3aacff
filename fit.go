package scn

import (
	"context"
	"fmt"
	"time"

	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/fitcfg"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
	"gonum.org/v1/gonum/mat"
)

// Step reports one added hidden node to a progress callback (drive.Step).
type Step = drive.Step

// Summary describes a finished fit (drive.Summary).
type Summary = drive.Summary

// Profile splits a fit's time into its parts (drive.Profile).
type Profile = drive.Profile

// randomBlockSize is how many random nodes are drawn and evaluated per matrix
// product by random node choice (drive.RandomBlockSize).
const randomBlockSize = drive.RandomBlockSize

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
		return nil, fitcfg.ErrLocalPath
	case modeDeep:
		if err := fitcfg.DeepPath(o.check != nil, p.X.Chans()); err != nil {
			return nil, err
		}
		g = newDeepBuilder(c, p)
	case modeBlock, modeOnePass:
		g = newBlockBuilder(c, p, o)
	default: // modeOneNode
		b := newBuilder(c, p)
		if o.check != nil {
			b.Check = func() bool { return o.check(b.partial()) }
		}
		g = b
	}
	return c.fitWith(ctx, p, g, progress)
}

// fitWith grows the network with g and returns its path.
func (c Config) fitWith(ctx context.Context, p Problem, g grower, progress func(Step)) (*Path, error) {
	start := time.Now()
	if rmse := g.RMSE(); c.Kind.Choice == Supervised && rmse <= c.Tolerance {
		return nil, fmt.Errorf("%w: Tolerance = %g, but the training RMSE is %.4g before any node: nothing to fit", ErrConfig, c.Tolerance, rmse)
	}
	stop, err := g.Grow(ctx, progress)
	if g.Nodes() == 0 {
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
	RMSE() float64 // the current training RMSE
	Grow(ctx context.Context, progress func(Step)) (StopReason, error)
	Nodes() int // nodes accepted so far
	path(stop StopReason) (*Path, error)
}

// oneNode is a fit on the paper's path (drive.OneNode: its Grow, Nodes
// and RMSE) with the configuration and images its path is made of.
type oneNode struct {
	*drive.OneNode
	cfg Config
	x   Images
}

func newBuilder(c Config, p Problem) *oneNode {
	nm := newNodeMap(c.Kind.Input, p.X.Rows, p.X.Cols, p.X.Channels)
	spec := drive.OneSpec{
		Supervised: c.Kind.Choice == Supervised, MaxNodes: c.MaxNodes, Candidates: c.Candidates,
		Tolerance: c.Tolerance, Ridge: c.Ridge, Scales: c.Scales, Ratios: c.Ratios,
		Redraw: c.Redraw, StopAtRank: c.StopAtRank, Act: node.Activation(c.Activation),
	}
	b := &oneNode{OneNode: drive.NewOneNode(spec, p.X.Pix, p.X.Len(), p.X.Dim(), nm, newRand(c.Seed), p.T, p.M), cfg: c, x: p.X}
	b.HiddenOf = func(params, bias []float32) *mat.Dense {
		m := &Model{Kind: c.Kind, Activation: c.Activation, Rows: p.X.Rows, Cols: p.X.Cols, Channels: p.X.Channels,
			Params: params, Bias: bias}
		return hiddenDense(m, p.X)
	}
	return b
}

// corrChunk is the row chunk of the candidate statistics (drive.CorrChunk).
const corrChunk = drive.CorrChunk

// partial returns the path of the nodes so far, without output weights.
func (b *oneNode) partial() *Path {
	return partialPath(b.cfg, b.x, b.LS.M, b.Params, b.Bias, len(b.Trace), b.NP, b.LS, b.LS.T, b.LS.L, b.Deficient, b.Independent)
}

// partialPath returns the path of the first l nodes (params, bias; np
// parameters each) of a fit of c on x with m outputs, without output
// weights: the engine eng, the targets t (N x m), the columns in eng
// (engL, or the nodes before the first dependent one, independent, once
// deficient).
func partialPath(c Config, x Images, m int, params, bias []float32, l, np int, eng lsq.Engine, t []float64, engL int, deficient bool, independent int) *Path {
	md := &Model{Kind: c.Kind, Activation: c.Activation, Rows: x.Rows, Cols: x.Cols, Channels: x.Channels, M: m,
		Params: params[:l*np], Bias: bias[:l], Config: c}
	ind := engL
	if deficient {
		ind = independent
	}
	return &Path{model: md, eng: eng, x: x, t: t, independent: min(ind, l), ridge: c.Ridge}
}

// path assembles the fitted model and its path.
func (b *oneNode) path(stop StopReason) (*Path, error) {
	t0 := time.Now()
	// A random learner draws its nodes by blocks: a fit stopped inside a
	// block keeps the nodes handed out so far, the ones its trace has.
	p := b.partial()
	l, rmse := len(b.Trace), b.RMSE()
	if l < len(b.Bias) {
		rmse = b.Trace[l-1].RMSE
	}
	s := Summary{Nodes: l, Samples: b.N, Stop: stop, TrainRMSE: rmse, Tried: b.Tried, Rejected: b.Reject, Trace: b.Trace}
	return finishPath(p, s, b.cfg, &b.Prof, t0)
}

// finishPath completes the path p of a fit of c (its output weights and
// summary s, the fit's profile prof; t0 when assembling began).
func finishPath(p *Path, s Summary, c Config, prof *Profile, t0 time.Time) (*Path, error) {
	if err := p.finish(s, c.Ridge, c.Scales, c.Ratios, prof, t0); err != nil {
		return nil, err
	}
	return p, nil
}
