package scn

import (
	"context"
	"time"

	"github.com/scn2d/scn/internal/deep"
	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/lsq"
)

// Deep networks (Config.Layers): the model, its nodes' numbering and the
// fit of its further layers are described in internal/deep's doc.go; the
// layer loop is internal/drive's RunLayers. This file points the block
// builder at each layer and makes the model.

// deepBuilder grows a deep network: the first layer as a block fit, then
// each further layer on the block builder's engine (drive.RunLayers).
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
	first := bb.cfg
	first.MaxNodes = c.MaxNodes
	bb.setConfig(first)
	if bb.E == nil {
		bb.E = append([]float64(nil), bb.Eng.TC...)
	}
	return &deepBuilder{blockBuilder: bb, top: c, pathX: p.X}
}

// Nodes returns the nodes accepted so far in every layer.
func (db *deepBuilder) Nodes() int {
	n := len(db.Bias)
	if db.first != nil {
		n += len(db.firstB) + deep.Nodes(db.layers)
	}
	return n
}

// Grow builds the first layer, then each further layer, until every layer
// is full or a layer adds no node. A layer that stops for want of an
// admissible candidate hands on to the next; the model records the last
// layer's reason.
func (db *deepBuilder) Grow(ctx context.Context, progress func(Step)) (StopReason, error) {
	stop, err := drive.RunBlocks(ctx, db.Spec, db.Block, progress)
	if err != nil || stop == Cancelled {
		return stop, err
	}
	if db.cfg.Kind.Choice == Random && len(db.top.Layers) > 0 {
		// The residual the further layers' choice needs; the training
		// RMSE stays the one the random blocks computed.
		rss := db.RSS
		db.UpdateResidual()
		db.RSS = rss
	}
	db.first, db.firstB = db.Params, db.Bias
	p := Problem{M: db.M, T: db.tAll()}
	if db.Diffs != nil && db.Diffs.Classified() {
		p.Classes = make([]string, db.M)
	}
	next := func(prev, size int) { db.nextLayer(p, prev, size) }
	add := func(params, bias []float32) { db.layers = append(db.layers, Layer{Params: params, Bias: bias}) }
	return drive.RunLayers(ctx, db.Block, stop, db.top.Layers, next, add, progress)
}

// tAll returns the training targets, N x m.
func (db *deepBuilder) tAll() []float64 {
	if db.T == nil {
		db.T = lsq.Transposed(db.Eng.TC, db.M, db.N)
	}
	return db.T
}

// nextLayer points the block builder at a further layer of size nodes
// whose input is the last prev columns of the engine (the previous
// layer's outputs on the training images, deep.Input: N images of
// 1 x prev).
func (db *deepBuilder) nextLayer(p Problem, prev, size int) {
	t0 := time.Now()
	p.X = Images{Rows: 1, Cols: prev, Pix: deep.Input(db.Eng.Shards, db.Eng.L, db.N, prev)}
	lc := db.top.layerConfig()
	lc.MaxNodes = size
	db.setConfig(lc)
	db.x, db.D = p.X, prev
	db.NM = fieldVector{Vector: vectorMap{D: prev}, Rows: 1, Cols: prev, Ch: 1}
	db.NP = prev
	db.Params, db.Bias = nil, nil
	if lc.Standardize {
		db.XBar, db.NS = meanImage(p.X), min(db.N, momentSample)
	}
	if lc.Differences {
		db.Diffs = newDiffSource(p)
	}
	db.Profile.Draw += time.Since(t0)
}

// path assembles the deep model.
func (db *deepBuilder) path(stop StopReason) (*Path, error) {
	if db.first == nil { // stopped within the first layer
		return db.blockBuilder.path(stop)
	}
	db.Params, db.Bias = db.first, db.firstB
	db.setConfig(db.top)
	db.x, db.D = db.pathX, db.pathX.Dim()
	db.NM = newNodeMap(db.top.Kind.Input, db.x.Rows, db.x.Cols, db.x.Channels)
	db.NP = db.NM.Size()
	p := db.blockBuilder.partial()
	p.model.Deep = db.layers
	p.independent = p.model.Nodes()
	m := p.model
	t0 := time.Now()
	s := Summary{Nodes: m.Nodes(), Samples: db.N, Stop: stop, TrainRMSE: db.RMSE(), Tried: db.Tried, Rejected: db.Reject, Trace: db.Trace}
	if _, err := finishPath(p, s, db.top, &db.Profile, t0); err != nil {
		return nil, err
	}
	m.Config.Layers = append([]int(nil), db.top.Layers...)
	return p, nil
}
