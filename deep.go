package scn

import (
	"context"
	"time"

	"github.com/scn2d/scn/internal/deep"
	"github.com/scn2d/scn/internal/lsq"
)

// Deep networks (Config.Layers), after Wang and Li's deep stochastic
// configuration networks (DeepSCN, "Deep stochastic configuration networks
// with universal approximation property", IJCNN 2018), the 2DSCN paper's
// future work: a first layer of nodes on the image (the configuration's
// learner, 2DSCN or 2DRVFL by default), then further layers of supervised
// vector nodes, layer k's input being the hidden outputs h of layer k-1
// (node j of layer k: g(w_j^T h + b_j), w_j of the previous layer's width).
// The output layer reads every layer's nodes (the concatenation of all
// hidden outputs), and least squares is at the output only:
//
//	f(X) = sum over layers k and their nodes j of beta_kj h_kj(X)
//
// A further layer's nodes are chosen as the block path chooses supervised
// nodes (see drive_block.go): the best of Candidates x BlockSize candidates
// by the supervisory inequality against the residual of all the nodes so
// far (every layer's), at the first r of the list where a block fills.
// One Gram/Cholesky engine holds every layer's columns, so the output
// weights are the least squares over all of them. A further layer's
// candidates are drawn as the first layer's would be on a 1 x L_{k-1}
// "image" (standardised, difference nodes if the configuration has them,
// receptive fields and pairs off), and take the previous layer's columns
// as the fit computed them (the engine's).
//
// Nodes are numbered through the layers: the first layer's, then the
// second's, and so on; the trace, the output weights (Beta, L x M with L
// every layer's nodes) and a prefix (Path.Prefix) follow that order, a
// prefix ending inside layer k dropping the layers after it.

// deepBuilder grows a deep network: the first layer as a block fit, then
// each further layer on the block builder's engine.
type deepBuilder struct {
	*blockBuilder
	top    Config    // the whole configuration
	pathX  Images    // the training images
	first  []float32 // the first layer's parameters, once it is done
	firstB []float32
	layers []Layer
}

func newDeepBuilder(c Config, p Problem) *deepBuilder {
	total := c.MaxNodes
	for _, n := range c.Layers {
		total += n
	}
	wide := c
	wide.MaxNodes = total // the engine's room
	bb := newBlockBuilder(wide, p, runOpts{blockByBlock: true})
	bb.cfg.MaxNodes = c.MaxNodes
	if bb.e == nil {
		bb.e = append([]float64(nil), bb.eng.TC...)
	}
	return &deepBuilder{blockBuilder: bb, top: c, pathX: p.X}
}

// nodes returns the nodes accepted so far in every layer.
func (db *deepBuilder) nodes() int {
	n := len(db.bias)
	if db.first != nil {
		n += len(db.firstB)
		for _, l := range db.layers {
			n += l.Nodes()
		}
	}
	return n
}

// grow builds the first layer, then each further layer, until every layer
// is full or a layer adds no node. A layer that stops for want of an
// admissible candidate hands on to the next; the model records the last
// layer's reason.
func (db *deepBuilder) grow(ctx context.Context, progress func(Step)) (StopReason, error) {
	stop, err := db.run(ctx, progress)
	if err != nil || stop == Cancelled {
		return stop, err
	}
	if db.cfg.Kind.Choice == Random && len(db.top.Layers) > 0 {
		// The residual the further layers' choice needs; the training
		// RMSE stays the one the random blocks computed.
		rss := db.rss
		db.updateResidual()
		db.rss = rss
	}
	db.first, db.firstB = db.params, db.bias
	p := Problem{M: db.m, T: db.tAll()}
	if db.diffs != nil && db.diffs.Classified() {
		p.Classes = make([]string, db.m)
	}
	for _, size := range db.top.Layers {
		prev := len(db.bias)
		if db.deficient || prev == 0 {
			break
		}
		db.nextLayer(p, prev, size)
		stop, err = db.run(ctx, progress)
		if len(db.bias) > 0 {
			db.layers = append(db.layers, Layer{Params: db.params, Bias: db.bias})
		}
		if err != nil || stop == Cancelled || len(db.bias) == 0 {
			return stop, err
		}
	}
	return stop, nil
}

// tAll returns the training targets, N x m.
func (db *deepBuilder) tAll() []float64 {
	if db.t == nil {
		db.t = lsq.Transposed(db.eng.TC, db.m, db.n)
	}
	return db.t
}

// nextLayer points the block builder at a further layer of size nodes
// whose input is the last prev columns of the engine (the previous
// layer's outputs on the training images).
func (db *deepBuilder) nextLayer(p Problem, prev, size int) {
	t0 := time.Now()
	p.X = db.layerInput(prev)
	lc := db.top.layerConfig()
	lc.MaxNodes = size
	db.cfg, db.x, db.d = lc, p.X, prev
	db.nm = fieldVector{Vector: vectorMap{D: prev}, Rows: 1, Cols: prev, Ch: 1}
	db.np = prev
	db.params, db.bias = nil, nil
	if lc.Standardize {
		db.xbar, db.ns = meanImage(p.X), min(db.n, momentSample)
	}
	if lc.Differences {
		db.diffs = newDiffSource(p)
	}
	db.prof.Draw += time.Since(t0)
}

// layerInput returns the last prev columns of the engine as N images of
// 1 x prev: image i holds the previous layer's outputs on training image i.
func (db *deepBuilder) layerInput(prev int) Images {
	return Images{Rows: 1, Cols: prev, Pix: deep.Input(db.eng.Shards, db.eng.L, db.n, prev)}
}

// path assembles the deep model.
func (db *deepBuilder) path(stop StopReason) (*Path, error) {
	if db.first == nil { // stopped within the first layer
		return db.blockBuilder.path(stop)
	}
	db.params, db.bias = db.first, db.firstB
	db.cfg = db.top
	db.x, db.d = db.pathX, db.pathX.Dim()
	db.nm = newNodeMap(db.top.Kind.Input, db.x.Rows, db.x.Cols, db.x.Channels)
	db.np = db.nm.Size()
	p := db.blockBuilder.partial()
	p.model.Deep = db.layers
	p.independent = p.model.Nodes()
	m := p.model
	t0 := time.Now()
	s := Summary{
		Nodes: m.Nodes(), Samples: db.n, Stop: stop, TrainRMSE: db.rmse(),
		Tried: db.tried, Rejected: db.reject, Trace: db.trace,
	}
	if err := p.finish(s, db.top.Ridge, db.top.Scales, db.top.Ratios, &db.prof, t0); err != nil {
		return nil, err
	}
	m.Config.Layers = append([]int(nil), db.top.Layers...)
	return p, nil
}
