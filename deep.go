package scn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/scn2d/scn/internal/linalg"
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

// Layer is one further layer of a deep model: Nodes() supervised vector
// nodes, each reading the outputs of every node of the layer before.
type Layer struct {
	// Params holds the nodes' weights, Nodes() rows of the previous
	// layer's width.
	Params []float32
	Bias   []float32
}

// Nodes returns the layer's node count.
func (l Layer) Nodes() int { return len(l.Bias) }

// ErrDeep is wrapped by the refusals of what deep models do not support.
var ErrDeep = errors.New("scn: not supported for deep models (Config.Layers)")

// IsDeep reports whether the model has layers after the first.
func (m *Model) IsDeep() bool { return len(m.Deep) > 0 }

// LayerSizes returns the node count of each layer, the first included.
func (m *Model) LayerSizes() []int {
	s := []int{len(m.Bias)}
	for _, l := range m.Deep {
		s = append(s, l.Nodes())
	}
	return s
}

// deepNodes returns the nodes of the layers after the first.
func (m *Model) deepNodes() int {
	n := 0
	for _, l := range m.Deep {
		n += l.Nodes()
	}
	return n
}

// deepParamCount returns every trained number of the further layers:
// each node's weights (the previous layer's width), bias and output weights.
func (m *Model) deepParamCount() int {
	n, prev := 0, len(m.Bias)
	for _, l := range m.Deep {
		n += l.Nodes() * (prev + 1 + m.M)
		prev = l.Nodes()
	}
	return n
}

// checkDeep reports whether the further layers' slices agree.
func (m *Model) checkDeep() error {
	prev := len(m.Bias)
	for k, l := range m.Deep {
		if l.Nodes() == 0 {
			return fmt.Errorf("scn: layer %d has no nodes", k+2)
		}
		if len(l.Params) != l.Nodes()*prev {
			return fmt.Errorf("scn: layer %d holds %d weights for %d nodes of %d inputs", k+2, len(l.Params), l.Nodes(), prev)
		}
		for _, v := range l.Params {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("scn: layer %d has a non-finite weight", k+2)
			}
		}
		for _, v := range l.Bias {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("scn: layer %d has a non-finite bias", k+2)
			}
		}
		prev = l.Nodes()
	}
	return nil
}

// forwardDeep fills the outputs of the further layers in h, node-major
// (row j holds node j on each of rows images), whose first len(m.Bias) rows
// hold the first layer's outputs; xt is scratch. Each layer's outputs are
// the scoring kernel's on the previous layer's outputs, as the fit scores
// that layer's candidates.
func (m *Model) forwardDeep(h []float32, rows int, xt *[]float32) {
	off, prev := 0, len(m.Bias)
	for _, l := range m.Deep {
		in := h[off*rows : (off+prev)*rows]
		*xt = grow(*xt, rows*prev)
		t := *xt
		for j := 0; j < prev; j++ {
			for i, v := range in[j*rows : (j+1)*rows] {
				t[i*prev+j] = v
			}
		}
		off += prev
		c := l.Nodes()
		out := h[off*rows : (off+c)*rows]
		linalg.ScoreNT(c, rows, prev, l.Params, t, out, rows)
		act := m.Activation
		forChunks(c, 16, func(_, a, b int) {
			for j := a; j < b; j++ {
				act.applyRow(out[j*rows:(j+1)*rows], l.Bias[j])
			}
		})
		prev = c
	}
}

// truncateDeep returns the further layers of a prefix of l nodes (l beyond
// the first layer): whole layers, then part of the one l ends in.
func (m *Model) truncateDeep(l int) []Layer {
	l -= len(m.Bias)
	var out []Layer
	prev := len(m.Bias)
	for _, ly := range m.Deep {
		if l <= 0 {
			break
		}
		c := min(l, ly.Nodes())
		out = append(out, Layer{Params: ly.Params[: c*prev : c*prev], Bias: ly.Bias[:c:c]})
		l -= c
		prev = ly.Nodes()
	}
	return out
}

// layerConfig returns the configuration of the further layers' node
// choice: supervised vector nodes on the previous layer's outputs, the
// block path's settings of c without receptive fields or pairs.
func (c Config) layerConfig() Config {
	lc := c
	lc.Kind = SCN
	lc.FieldMin, lc.FieldMax = 0, 0
	lc.Pairs = false
	lc.Layers = nil
	if len(lc.Ratios) == 0 {
		lc.Ratios = FastRatios()
	}
	return lc
}

// validateLayers reports what is wrong with c.Layers, if anything.
func (c Config) validateLayers() error {
	if len(c.Layers) == 0 {
		return nil
	}
	total := c.MaxNodes
	for i, n := range c.Layers {
		if n < 1 || n > maxNodes {
			return fmt.Errorf("%w: layer %d of %d nodes, want 1 ... %d", ErrConfig, i+2, n, maxNodes)
		}
		total += n
	}
	switch {
	case total > maxNodes:
		return fmt.Errorf("%w: %d nodes over all layers, want <= %d", ErrConfig, total, maxNodes)
	case !c.blockMode():
		return fmt.Errorf("%w: Layers needs the block path (BlockSize > 1, as the fast and default presets)", ErrConfig)
	case c.BF16Gram:
		return fmt.Errorf("%w: Layers with BF16Gram: the further layers read the first layer's outputs, which bfloat16 Gram products round", ErrConfig)
	case c.Robust:
		return fmt.Errorf("%w: Layers with Robust", ErrDeep)
	}
	for i, r := range c.layerConfig().Ratios {
		if !(r > 0 && r < 1) {
			return fmt.Errorf("%w: r %d = %v, want 0 < r < 1", ErrConfig, i, r)
		}
	}
	return nil
}

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
	n := db.n
	pix := make([]float32, n*prev)
	l0 := db.eng.L - prev
	forChunks(len(db.eng.Shards), 1, func(s, _, _ int) {
		sh := db.eng.Shards[s]
		r := sh.Hi - sh.Lo
		for j := 0; j < prev; j++ {
			col := sh.H[(l0+j)*r : (l0+j+1)*r]
			for i, v := range col {
				pix[(sh.Lo+i)*prev+j] = v
			}
		}
	})
	return Images{Rows: 1, Cols: prev, Pix: pix}
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
	m.Summary = Summary{
		Nodes: m.Nodes(), Samples: db.n, Stop: stop, TrainRMSE: db.rmse(),
		Tried: db.tried, Rejected: db.reject, Trace: db.trace,
	}
	beta, err := p.beta(m, m.Nodes(), db.top.Ridge)
	if err != nil {
		return nil, err
	}
	m.Beta = beta
	db.prof.Solve = time.Since(t0)
	m.Summary.Profile = db.prof
	m.Config.Scales = append([]float64(nil), db.top.Scales...)
	m.Config.Ratios = append([]float64(nil), db.top.Ratios...)
	m.Config.Layers = append([]int(nil), db.top.Layers...)
	return p, nil
}

// deepScratch is the working memory of a deep model's prediction pass.
type deepScratch struct {
	h, xt []float32 // every node's outputs (node-major), transposed inputs
	h64   []float64
	yt    []float64
}

// predictDeep returns a deep model's outputs on x (checked by the caller):
// each pass of predictBatch images scores the first layer as the shallow
// Predictor does (Score2D for matrix nodes), then every further layer
// (forwardDeep), and forms the outputs from all nodes in float64. Each
// image's outputs do not depend on the other images of the call.
func (p *Predictor) predictDeep(x Images) []float64 {
	m := p.m
	n, d, l, l1 := x.Len(), x.Dim(), m.Nodes(), len(m.Bias)
	out := make([]float64, n*m.M)
	sc, _ := p.deep.Get().(*deepScratch)
	if sc == nil {
		sc = &deepScratch{}
	}
	defer p.deep.Put(sc)
	np := m.ParamsPerNode()
	for lo := 0; lo < n; lo += predictBatch {
		rows := min(predictBatch, n-lo)
		xb := x.Pix[lo*d : (lo+rows)*d]
		sc.h = grow(sc.h, l*rows)
		h := sc.h
		if m.Kind.Input == Vector {
			linalg.ScoreNT(l1, rows, d, m.Params, xb, h, rows)
		} else {
			forChunks(l1, predictNodeChunk, func(_, a, b int) {
				linalg.Score2D(b-a, rows, m.Rows, m.Cols, m.Params[a*np:], np, xb, h[a*rows:], rows)
			})
		}
		act := m.Activation
		forChunks(l1, 16, func(_, a, b int) {
			for j := a; j < b; j++ {
				act.applyRow(h[j*rows:(j+1)*rows], m.Bias[j])
			}
		})
		m.forwardDeep(h, rows, &sc.xt)
		sc.h64 = grow(sc.h64, l*rows)
		for i, v := range h {
			sc.h64[i] = float64(v)
		}
		sc.yt = grow(sc.yt, m.M*rows)
		linalg.Dgemm(true, false, m.M, rows, l, 1, m.Beta, m.M, sc.h64, rows, 0, sc.yt, rows)
		for q := 0; q < m.M; q++ {
			for i, v := range sc.yt[q*rows : (q+1)*rows] {
				out[(lo+i)*m.M+q] = v
			}
		}
	}
	return out
}
