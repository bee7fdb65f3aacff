package localnet

import (
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/memest"
	"github.com/scn2d/scn/internal/node"
)

// Layer is the hidden layer of a model of local nodes (Config.Local):
// banks of filters, one per filter size, and the standardisation of their
// pooled outputs. The model's Params and Bias are then empty, and Beta
// holds one row per pooled output, bank by bank, filter by filter, in the
// order of local.Layer.Apply.
//
// The root package names it scn.LocalLayer.
type Layer struct {
	// Geometry is the configuration's Local (Filters is the filters per
	// bank the fit was asked for; a supervised fit may keep fewer).
	Geometry Geometry
	Banks    []Bank
	// Mean and Scale standardise the pooled outputs, (h - Mean) / Scale,
	// one value per output; both nil without standardisation.
	Mean, Scale []float32
	// Second is the second layer's filters when Geometry.Second is set
	// (second.go): a bank of Geometry.Second.Size whose planes are the
	// first bank's pooled maps, without whitening.
	Second *Bank
}

// Bank is the filters of one size.
//
// The root package names it scn.LocalBank.
type Bank struct {
	Size int
	// Params holds each filter's parameters, ParamsPerFilter values: u (k),
	// v (k), then with C > 1 planes the channel weights w (C) for matrix
	// learners; the full weights C x k x k for vector learners.
	Params []float32
	Bias   []float32
	// Whiten is the bank's whitening folded into its filters (nil without
	// Geometry.Whiten): the C k^2 x C k^2 matrix M, row-major, whose
	// product M f with a filter's full weights f (the weights in the space
	// of whitened patches, from Params) gives the weights the bank applies
	// to the patches of the images as read (whiten.go).
	Whiten []float32
}

// Filters returns the bank's filters.
func (b *Bank) Filters() int { return len(b.Bias) }

// Outputs returns the pooled outputs of every bank.
func (ll *Layer) Outputs() int {
	if ll.Geometry.Second != nil {
		return ll.secondLayerOutputs()
	}
	n := 0
	for _, b := range ll.Banks {
		n += b.Filters() * ll.Geometry.PerFilter()
	}
	return n
}

// secondLayerOutputs returns the hidden outputs of a two-layer local
// layer: the filters it holds times the pooled outputs per filter.
func (ll *Layer) secondLayerOutputs() int {
	per := ll.Geometry.PerFilter()
	n := 0
	if ll.Geometry.Second.Concat && len(ll.Banks) > 0 {
		n += ll.Banks[0].Filters() * per
	}
	if ll.Second != nil {
		n += ll.Second.Filters() * per
	}
	return n
}

// Maps says how the filters read images: the learner's input map (Matrix:
// a separable filter u v^T times channel weights; else full weights) and
// its activation.
type Maps struct {
	Matrix bool
	Act    node.Activation
}

// FilterMap returns the node map of a filter of side k over chans planes:
// the 2D learners' separable u v^T (x w) or the 1D learners' full weights.
func (mp Maps) FilterMap(k, chans int) node.Map {
	if mp.Matrix {
		return node.Matrix{Rows: k, Cols: k, Ch: max(chans, 1)}
	}
	return node.Vector{D: max(chans, 1) * k * k}
}

// Bank returns the filters of bank b of geometry g as a local.Layer on
// images of rows x cols x chans.
func (mp Maps) Bank(g *Geometry, b Bank, rows, cols, chans int) *local.Layer {
	w := mp.Weights(b, chans)
	return &local.Layer{Spec: SpecOf(g, b.Size), In: local.Shape{Rows: rows, Cols: cols, Chans: chans}, W: w, Bias: b.Bias,
		Act: mp.Act.Apply, ReLU: mp.Act == node.ReLU}
}

// SecondBank returns the second layer's bank b as a local.Layer reading
// the planes of the first layer of geometry g on images of rows x cols.
func (mp Maps) SecondBank(g *Geometry, b Bank, rows, cols int) *local.Layer {
	p := PlanesOf(g, rows, cols)
	return mp.Bank(g.SecondGeometry(), b, p.Rows, p.Cols, p.Chans)
}

// Stack returns the two layers as a local.Stack: first, the pooling
// between them, and the second layer's bank b.
// A matrix learner's second layer is applied in its separable form
// (local.SepFilters): its filters read 2F planes, where mixing the planes
// once and filtering by v and u costs 2F + 2 k2 multiply-adds per
// position, against 2F k2^2 for the full weights.
func (mp Maps) Stack(g *Geometry, first *local.Layer, b Bank, rows, cols int) *local.Stack {
	st := &local.Stack{First: first, Mid: MidOf(g.Second), Second: mp.SecondBank(g, b, rows, cols)}
	if mp.Matrix {
		st.Sep = local.SepOf(b.Params, b.Size, b.Filters(), st.Second.In.Chans)
	}
	return st
}

// Weights returns the full weights bank b applies, F x C x k x k: each
// filter's weights from its parameters, times the whitening matrix when
// the bank has one (summed in float64, rounded to float32).
func (mp Maps) Weights(b Bank, chans int) []float32 {
	nm := mp.FilterMap(b.Size, chans)
	np, kk := nm.Size(), chans*b.Size*b.Size
	w := make([]float32, b.Filters()*kk)
	for j := range b.Bias {
		nm.Weight(b.Params[j*np:(j+1)*np], w[j*kk:(j+1)*kk])
	}
	if b.Whiten == nil {
		return w
	}
	f := make([]float32, kk)
	for j := range b.Bias {
		wj := w[j*kk : (j+1)*kk]
		copy(f, wj)
		for t := range wj {
			row := b.Whiten[t*kk : (t+1)*kk]
			var s float64
			for u, v := range f {
				s += float64(row[u]) * float64(v)
			}
			wj[t] = float32(s)
		}
	}
	return w
}

// Net is a fitted layer applied to images of Rows x Cols x Chans (Chans
// >= 1) as a model applies it.
type Net struct {
	Maps
	Layer             *Layer
	Rows, Cols, Chans int
}

// Batch is the images per pass of a local model's prediction.
const Batch = 64

// Layers returns the banks ready to apply to the images.
func (nt Net) Layers() []*local.Layer {
	ls := make([]*local.Layer, len(nt.Layer.Banks))
	for i, b := range nt.Layer.Banks {
		ls[i] = nt.Bank(&nt.Layer.Geometry, b, nt.Rows, nt.Cols, nt.Chans)
	}
	return ls
}

// Features writes the standardised pooled outputs of the n images x (row
// i at out[i*l:]) for the banks layers (Layers).
func (nt Net) Features(layers []*local.Layer, x []float32, n int, out []float32) error {
	l := nt.Layer.Outputs()
	if nt.Layer.Second != nil {
		if err := nt.secondFeatures(layers[0], x, n, out); err != nil {
			return err
		}
		StandardizeRows(out[:n*l], l, nt.Layer.Mean, nt.Layer.Scale)
		return nil
	}
	off := 0
	for _, ly := range layers {
		if err := ly.Apply(x, n, out, l, off); err != nil {
			return err
		}
		off += ly.Outputs()
	}
	StandardizeRows(out[:n*l], l, nt.Layer.Mean, nt.Layer.Scale)
	return nil
}

// secondFeatures writes the pooled outputs of a two-layer model (not yet
// standardised) of the n images x into out (row i at out[i*L:]), first
// being the first layer.
func (nt Net) secondFeatures(first *local.Layer, x []float32, n int, out []float32) error {
	l := nt.Layer.Outputs()
	off := 0
	g := &nt.Layer.Geometry
	if g.Second.Concat {
		if err := first.Apply(x, n, out, l, 0); err != nil {
			return err
		}
		off = first.Outputs()
	}
	st := nt.Stack(g, first, *nt.Layer.Second, nt.Rows, nt.Cols)
	return st.Apply(x, n, out, l, off)
}

// StandardizeRows sets v = (v - mean) / scale along each row of l values
// (nothing when mean is nil).
func StandardizeRows(h []float32, l int, mean, scale []float32) {
	if mean == nil {
		return
	}
	for i := 0; i+l <= len(h); i += l {
		row := h[i : i+l]
		for j, v := range row {
			row[j] = (v - mean[j]) / scale[j]
		}
	}
}

// Predict returns the outputs (n x m, row-major) of the layer's pooled
// outputs times beta (L x m) on the n images x.
func (nt Net) Predict(x []float32, n int, beta []float64, m int) ([]float64, error) {
	d, l := nt.Rows*nt.Cols*nt.Chans, nt.Layer.Outputs()
	layers := nt.Layers()
	out := make([]float64, n*m)
	h := make([]float32, min(n, Batch)*l)
	h64 := make([]float64, len(h))
	for lo := 0; lo < n; lo += Batch {
		r := min(Batch, n-lo)
		if err := nt.Features(layers, x[lo*d:(lo+r)*d], r, h); err != nil {
			return nil, err
		}
		for i, v := range h[:r*l] {
			h64[i] = float64(v)
		}
		linalg.Dgemm(false, false, r, m, l, 1, h64, l, beta, m, 0, out[lo*m:], m)
	}
	return out, nil
}

// Hidden calls f with the pooled outputs of consecutive batches of the n
// images x (L x rows, node-major); the banks must have been checked.
func (nt Net) Hidden(x []float32, n int, f func(lo, rows int, h []float32)) {
	d, l := nt.Rows*nt.Cols*nt.Chans, nt.Layer.Outputs()
	layers := nt.Layers()
	h := make([]float32, min(n, Batch)*l)
	ht := make([]float32, len(h))
	for lo := 0; lo < n; lo += Batch {
		r := min(Batch, n-lo)
		if err := nt.Features(layers, x[lo*d:(lo+r)*d], r, h); err != nil {
			panic(err) // the model's banks were checked when it was made or read
		}
		for i := 0; i < r; i++ {
			for j := 0; j < l; j++ {
				ht[j*r+i] = h[i*l+j]
			}
		}
		f(lo, r, ht[:l*r])
	}
}

// Check reports whether the banks agree with the geometry and the images'
// shape and hold finite numbers.
func (nt Net) Check() error {
	ll := nt.Layer
	g := ll.Geometry
	if err := g.ForImages(nt.Rows, nt.Cols, nt.Chans); err != nil {
		return err
	}
	if len(ll.Banks) != len(g.Sizes) {
		return fmt.Errorf("scn: %d banks of local nodes for %d filter sizes", len(ll.Banks), len(g.Sizes))
	}
	total := 0
	for i, b := range ll.Banks {
		np := nt.FilterMap(b.Size, nt.Chans).Size()
		switch {
		case b.Size != g.Sizes[i]:
			return fmt.Errorf("scn: bank %d of %d x %d filters, the geometry says %d", i, b.Size, b.Size, g.Sizes[i])
		case len(b.Params) != b.Filters()*np:
			return fmt.Errorf("scn: bank %d holds %d parameters for %d filters of %d", i, len(b.Params), b.Filters(), np)
		case b.Filters() > g.Filters:
			return fmt.Errorf("scn: bank %d holds %d filters, more than the %d asked", i, b.Filters(), g.Filters)
		}
		if kk := nt.Chans * b.Size * b.Size; (b.Whiten != nil) != g.Whiten || (b.Whiten != nil && len(b.Whiten) != kk*kk) {
			return fmt.Errorf("scn: bank %d holds a whitening matrix of %d values, want %d (whitening %v)", i, len(b.Whiten), kk*kk, g.Whiten)
		}
		if !lsq.Finite32(b.Params) || !lsq.Finite32(b.Bias) || !lsq.Finite32(b.Whiten) {
			return fmt.Errorf("scn: local filter bank %d has a non-finite parameter", i)
		}
		total += b.Filters()
	}
	if total == 0 {
		return fmt.Errorf("scn: model has no filters")
	}
	if err := nt.checkSecond(); err != nil {
		return err
	}
	l := ll.Outputs()
	if (ll.Mean == nil) != (ll.Scale == nil) || (ll.Mean != nil && (len(ll.Mean) != l || len(ll.Scale) != l)) {
		return fmt.Errorf("scn: standardisation of %d and %d values for %d pooled outputs", len(ll.Mean), len(ll.Scale), l)
	}
	if (ll.Mean != nil) != g.Standardize {
		return fmt.Errorf("scn: standardisation present = %v, the geometry says %v", ll.Mean != nil, g.Standardize)
	}
	for i := range ll.Mean {
		if s := ll.Scale[i]; !(s > 0) || math.IsInf(float64(s), 0) || math.IsNaN(float64(ll.Mean[i])) || math.IsInf(float64(ll.Mean[i]), 0) {
			return fmt.Errorf("scn: standardisation of pooled output %d is (%v, %v)", i, ll.Mean[i], s)
		}
	}
	return nil
}

// checkSecond reports whether a two-layer model's second bank agrees with
// its geometry and holds finite numbers (nil for other models).
func (nt Net) checkSecond() error {
	ll := nt.Layer
	s := ll.Geometry.Second
	switch {
	case s == nil && ll.Second == nil:
		return nil
	case s == nil || ll.Second == nil:
		return fmt.Errorf("scn: a second layer of local filters without its geometry, or the reverse")
	}
	b := ll.Second
	p := PlanesOf(&ll.Geometry, nt.Rows, nt.Cols)
	np := nt.FilterMap(s.Size, p.Chans).Size()
	switch {
	case len(ll.Banks) != 1:
		return fmt.Errorf("scn: a second layer of local filters after %d banks, want one", len(ll.Banks))
	case b.Size != s.Size:
		return fmt.Errorf("scn: second layer of %d x %d filters, the geometry says %d", b.Size, b.Size, s.Size)
	case b.Filters() > s.Filters:
		return fmt.Errorf("scn: second layer of %d filters, want 0 ... %d", b.Filters(), s.Filters)
	case len(b.Params) != b.Filters()*np:
		return fmt.Errorf("scn: second layer holds %d parameters for %d filters of %d", len(b.Params), b.Filters(), np)
	case b.Whiten != nil:
		return fmt.Errorf("scn: second layer of local filters with a whitening matrix")
	case ll.Banks[0].Filters() != ll.Geometry.Filters:
		return fmt.Errorf("scn: first layer of %d filters under a second layer, the geometry says %d", ll.Banks[0].Filters(), ll.Geometry.Filters)
	}
	if !lsq.Finite32(b.Params) {
		return fmt.Errorf("scn: the second layer of local filters has a non-finite parameter")
	}
	if !lsq.Finite32(b.Bias) {
		return fmt.Errorf("scn: the second layer of local filters has a non-finite bias")
	}
	return nil
}

// ParamCount returns the trained numbers of the filters and the
// standardisation, and the output weights of the pooled outputs to m
// outputs.
func (ll *Layer) ParamCount(m int) int {
	n := len(ll.Mean) + len(ll.Scale) + ll.Outputs()*m
	for _, b := range ll.Banks {
		n += len(b.Params) + len(b.Bias) + len(b.Whiten)
	}
	if b := ll.Second; b != nil {
		n += len(b.Params) + len(b.Bias)
	}
	return n
}

// SecondWeights returns the full weights of the second layer, F2 x P x k2
// x k2 row-major (P planes: the first layer's pooled maps, filter j's g(z)
// then g(-z) two-sided), the planes' standardisation folded in; nil
// without a second layer.
func (nt Net) SecondWeights() []float32 {
	if nt.Layer.Second == nil {
		return nil
	}
	p := PlanesOf(&nt.Layer.Geometry, nt.Rows, nt.Cols)
	return nt.Weights(*nt.Layer.Second, p.Chans)
}

// PredictBytes is the memory of a prediction of n images to m outputs
// through nodes hidden outputs (internal/memest's LocalPredict), with the
// second layer's.
func (nt Net) PredictBytes(n, m, nodes int) int64 {
	banks := make([][]int, len(nt.Layer.Banks))
	for i, b := range nt.Layer.Banks {
		banks[i] = []int{b.Size, b.Filters()}
	}
	return memest.LocalPredict{
		N: n, M: m, Nodes: nodes, Rows: nt.Rows, Cols: nt.Cols, Chans: nt.Chans,
		Banks: banks, Batch: Batch, Workers: runtime.GOMAXPROCS(0),
	}.Bytes() + nt.secondPredictBytes()
}

// secondPredictBytes is what a second layer adds to PredictBytes: per
// goroutine, one image's first-layer maps and pooled maps, the second
// layer's patches and maps; its weights transposed (0 without).
func (nt Net) secondPredictBytes() int64 {
	if nt.Layer.Second == nil {
		return 0
	}
	g := &nt.Layer.Geometry
	p := PlanesOf(g, nt.Rows, nt.Cols)
	k2 := g.Second.Size
	pos1 := float64(nt.Rows+1) * float64(nt.Cols+1)
	pos2 := float64(p.Rows+k2) * float64(p.Cols+k2)
	kk := float64(p.Chans * k2 * k2)
	f2 := float64(nt.Layer.Second.Filters())
	procs := float64(runtime.GOMAXPROCS(0))
	return memest.BytesOf(procs*4*(float64(g.Filters)*pos1+float64(p.Chans)*pos2+pos2*(kk+f2)) + 4*kk*f2)
}

// CloneGeometry returns a copy of the layer's geometry (nil for nil).
func (ll *Layer) CloneGeometry() *Geometry {
	if ll == nil {
		return nil
	}
	return ll.Geometry.Clone()
}

// SameSecond reports whether two layers have the same second layer
// (filters and biases), or none.
func (ll *Layer) SameSecond(b *Layer) bool {
	sa, sb := ll.Second, b.Second
	if sa == nil || sb == nil {
		return sa == nil && sb == nil
	}
	return sa.Size == sb.Size && slices.Equal(sa.Params, sb.Params) && slices.Equal(sa.Bias, sb.Bias)
}
