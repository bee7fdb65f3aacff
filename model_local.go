package scn

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/memest"
)

// LocalLayer is the hidden layer of a model of local nodes (Config.Local):
// banks of filters, one per filter size, and the standardisation of their
// pooled outputs. The model's Params and Bias are then empty, and Beta
// holds one row per pooled output, bank by bank, filter by filter, in the
// order of local.Layer.Apply.
type LocalLayer struct {
	// Geometry is the configuration's Local (Filters is the filters per
	// bank the fit was asked for; a supervised fit may keep fewer).
	Geometry Local
	Banks    []LocalBank
	// Mean and Scale standardise the pooled outputs, (h - Mean) / Scale,
	// one value per output; both nil without standardisation.
	Mean, Scale []float32
	// Second is the second layer's filters when Geometry.Second is set
	// (config_local2.go): a bank of Geometry.Second.Size whose planes are
	// the first bank's pooled maps, without whitening.
	Second *LocalBank
}

// LocalBank is the filters of one size.
type LocalBank struct {
	Size int
	// Params holds each filter's parameters, ParamsPerFilter values: u (k),
	// v (k), then with C > 1 planes the channel weights w (C) for matrix
	// learners; the full weights C x k x k for vector learners.
	Params []float32
	Bias   []float32
	// Whiten is the bank's whitening folded into its filters (nil without
	// Local.Whiten): the C k^2 x C k^2 matrix M, row-major, whose product
	// M f with a filter's full weights f (the weights in the space of
	// whitened patches, from Params) gives the weights the bank applies to
	// the patches of the images as read (local_whiten.go).
	Whiten []float32
}

// Filters returns the bank's filters.
func (b *LocalBank) Filters() int { return len(b.Bias) }

// Outputs returns the pooled outputs of every bank.
func (ll *LocalLayer) Outputs() int {
	if ll.Geometry.Second != nil {
		return ll.secondLayerOutputs()
	}
	n := 0
	for _, b := range ll.Banks {
		n += b.Filters() * ll.Geometry.perFilter()
	}
	return n
}

// filterMap returns the node map of a filter of side k: the 2D learners'
// separable u v^T (x w) or the 1D learners' full weights.
func filterMap(in InputMap, k, chans int) nodeMap { return newNodeMap(in, k, k, chans) }

// localOutputs returns the pooled outputs of a local model, 0 for others.
func (m *Model) localOutputs() int {
	if m.Local == nil {
		return 0
	}
	return m.Local.Outputs()
}

// localParamCount returns the trained numbers of a local model's filters
// and standardisation (its output weights are counted with the nodes).
func (m *Model) localParamCount() int {
	if m.Local == nil {
		return 0
	}
	n := len(m.Local.Mean) + len(m.Local.Scale) + m.Local.Outputs()*m.M
	for _, b := range m.Local.Banks {
		n += len(b.Params) + len(b.Bias) + len(b.Whiten)
	}
	if b := m.Local.Second; b != nil {
		n += len(b.Params) + len(b.Bias)
	}
	return n
}

// layers returns the banks ready to apply to the model's images.
func (m *Model) localLayers() []*local.Layer {
	ls := make([]*local.Layer, len(m.Local.Banks))
	for i, b := range m.Local.Banks {
		ls[i] = bankLayer(m.Kind.Input, m.Activation, &m.Local.Geometry, b, m.Rows, m.Cols, m.Chans())
	}
	return ls
}

// bankLayer returns the filters of bank b as a local.Layer.
func bankLayer(in InputMap, act Activation, g *Local, b LocalBank, rows, cols, chans int) *local.Layer {
	w := bankWeights(in, b, chans)
	return &local.Layer{Spec: g.spec(b.Size), In: local.Shape{Rows: rows, Cols: cols, Chans: chans}, W: w, Bias: b.Bias,
		Act: act.applyRow, ReLU: act == ReLU}
}

// localFeatures writes the standardised pooled outputs of the n images x
// (row i at out[i*l:]) for the model's banks.
func (m *Model) localFeatures(layers []*local.Layer, x []float32, n int, out []float32) error {
	l := m.localOutputs()
	if m.Local.Second != nil {
		if err := m.secondFeatures(layers[0], x, n, out); err != nil {
			return err
		}
		standardizeRows(out[:n*l], l, m.Local.Mean, m.Local.Scale)
		return nil
	}
	off := 0
	for _, ly := range layers {
		if err := ly.Apply(x, n, out, l, off); err != nil {
			return err
		}
		off += ly.Outputs()
	}
	standardizeRows(out[:n*l], l, m.Local.Mean, m.Local.Scale)
	return nil
}

// standardizeRows sets v = (v - mean) / scale along each row of l values
// (nothing when mean is nil).
func standardizeRows(h []float32, l int, mean, scale []float32) {
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

// localBatch is the images per pass of a local model's prediction.
const localBatch = 64

// predictLocal returns the outputs of a local model on x (checked).
func (m *Model) predictLocal(x Images) ([]float64, error) {
	n, d, l := x.Len(), x.Dim(), m.localOutputs()
	layers := m.localLayers()
	out := make([]float64, n*m.M)
	h := make([]float32, min(n, localBatch)*l)
	h64 := make([]float64, len(h))
	for lo := 0; lo < n; lo += localBatch {
		r := min(localBatch, n-lo)
		if err := m.localFeatures(layers, x.Pix[lo*d:(lo+r)*d], r, h); err != nil {
			return nil, err
		}
		for i, v := range h[:r*l] {
			h64[i] = float64(v)
		}
		linalg.Dgemm(false, false, r, m.M, l, 1, h64, l, m.Beta, m.M, 0, out[lo*m.M:], m.M)
	}
	return out, nil
}

// hiddenLocal calls f with the pooled outputs of consecutive batches of
// images as Model.hidden does (L x rows, node-major).
func (m *Model) hiddenLocal(x Images, f func(lo, rows int, h []float32)) {
	n, d, l := x.Len(), x.Dim(), m.localOutputs()
	layers := m.localLayers()
	h := make([]float32, min(n, localBatch)*l)
	ht := make([]float32, len(h))
	for lo := 0; lo < n; lo += localBatch {
		r := min(localBatch, n-lo)
		if err := m.localFeatures(layers, x.Pix[lo*d:(lo+r)*d], r, h); err != nil {
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

// checkLocal reports whether a local model's banks agree with its shapes
// and hold finite numbers.
func (m *Model) checkLocal() error {
	ll := m.Local
	if ll == nil {
		return nil
	}
	if len(m.Params) != 0 || len(m.Bias) != 0 || len(m.Deep) != 0 {
		return fmt.Errorf("scn: a model of local nodes holds global nodes too")
	}
	g := ll.Geometry
	if err := g.ForImages(m.Rows, m.Cols, m.Chans()); err != nil {
		return err
	}
	if len(ll.Banks) != len(g.Sizes) {
		return fmt.Errorf("scn: %d banks of local nodes for %d filter sizes", len(ll.Banks), len(g.Sizes))
	}
	total := 0
	for i, b := range ll.Banks {
		np := filterMap(m.Kind.Input, b.Size, m.Chans()).Size()
		switch {
		case b.Size != g.Sizes[i]:
			return fmt.Errorf("scn: bank %d of %d x %d filters, the geometry says %d", i, b.Size, b.Size, g.Sizes[i])
		case len(b.Params) != b.Filters()*np:
			return fmt.Errorf("scn: bank %d holds %d parameters for %d filters of %d", i, len(b.Params), b.Filters(), np)
		case b.Filters() > g.Filters:
			return fmt.Errorf("scn: bank %d holds %d filters, more than the %d asked", i, b.Filters(), g.Filters)
		}
		if kk := m.Chans() * b.Size * b.Size; (b.Whiten != nil) != g.Whiten || (b.Whiten != nil && len(b.Whiten) != kk*kk) {
			return fmt.Errorf("scn: bank %d holds a whitening matrix of %d values, want %d (whitening %v)", i, len(b.Whiten), kk*kk, g.Whiten)
		}
		if !finite32(b.Params) || !finite32(b.Bias) || !finite32(b.Whiten) {
			return fmt.Errorf("scn: local filter bank %d has a non-finite parameter", i)
		}
		total += b.Filters()
	}
	if total == 0 {
		return fmt.Errorf("scn: model has no filters")
	}
	if err := m.checkSecond(); err != nil {
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

// PadFor returns the zero pixels added on every border for filters of
// side k (k/2 for PadSame).
func (l *Local) PadFor(k int) int { return l.pad(k) }

// LocalWeights returns the full weights of bank i of a local model, F x C
// x k x k row-major (for a 2D learner, (u_a v_b) w_c in float32, the
// weights the model applies).
// With whitening, the weights are those it applies to the patches as
// read: the whitening matrix times the filter's weights.
func (m *Model) LocalWeights(i int) []float32 {
	return bankWeights(m.Kind.Input, m.Local.Banks[i], m.Chans())
}

// bankWeights returns the full weights bank b applies, F x C x k x k: each
// filter's weights from its parameters, times the whitening matrix when
// the bank has one (summed in float64, rounded to float32).
func bankWeights(in InputMap, b LocalBank, chans int) []float32 {
	nm := filterMap(in, b.Size, chans)
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

// ErrLocal is wrapped by the errors of what models of local nodes do not
// support yet.
var ErrLocal = errors.New("scn: not available for local nodes")

// refuseLocal returns an error wrapping ErrLocal for a local model.
func (m *Model) refuseLocal(what string) error {
	if m.Local == nil {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrLocal, what)
}

// localPredictBytes is PredictBytes for a local model (internal/memest's
// LocalPredict), with the second layer's.
func (m *Model) localPredictBytes(n int) int64 {
	banks := make([][]int, len(m.Local.Banks))
	for i, b := range m.Local.Banks {
		banks[i] = []int{b.Size, b.Filters()}
	}
	return memest.LocalPredict{
		N: n, M: m.M, Nodes: m.Nodes(), Rows: m.Rows, Cols: m.Cols, Chans: m.Chans(),
		Banks: banks, Batch: localBatch, Workers: runtime.GOMAXPROCS(0),
	}.Bytes() + m.secondPredictBytes()
}
