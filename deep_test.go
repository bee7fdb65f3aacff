package scn

import (
	"bytes"
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// deepConfig is a small fast-preset deep configuration: a first layer of
// l1 nodes of kind k on receptive fields, then layers of the given sizes.
func deepConfig(k Kind, l1 int, layers ...int) Config {
	c := Fast(k)
	c.MaxNodes, c.BlockSize = l1, 30
	c.FieldMin, c.FieldMax = 3, 6
	c.BF16Gram = false
	c.Layers = layers
	return c
}

// TestDeepOneLayerIsShallow: the deep builder with no further layer gives
// the shallow model's file, byte for byte; and the first layer of a deep
// model is the shallow model's nodes, bit for bit, with the shallow beta as
// the prefix of its first-layer nodes.
func TestDeepOneLayerIsShallow(t *testing.T) {
	p := blobProblem(t, 400)
	for _, k := range []Kind{SCN2D, RVFL2D} {
		c := deepConfig(k, 90)
		shallow := fitT(t, c, p)
		path, err := c.fitWith(context.Background(), p, newDeepBuilder(c, p), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(modelBytes(t, shallow), modelBytes(t, path.Model())) {
			t.Fatalf("%v: the deep builder without further layers changed the model file", k)
		}
		c.Layers = []int{40}
		dp, err := c.FitPath(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		deep := dp.Model()
		if !deep.IsDeep() || deep.Nodes() <= 90 {
			t.Fatalf("%v: deep model of layers %v", k, deep.LayerSizes())
		}
		if !equal32(deep.Params, shallow.Params) || !equal32(deep.Bias, shallow.Bias) {
			t.Fatalf("%v: the deep model's first layer differs from the shallow model's nodes", k)
		}
		pre, err := dp.Prefix(90)
		if err != nil {
			t.Fatal(err)
		}
		if pre.IsDeep() || !equal64(pre.Beta, shallow.Beta) {
			t.Fatalf("%v: the prefix of the first layer is not the shallow model (deep %v)", k, pre.IsDeep())
		}
	}
}

func equal64(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestDeepInequalityOnTrace recomputes, for every node of every further
// layer, the supervisory inequality against the residual of the prefix
// before its block (the regularised residual, with the hidden outputs of
// all layers computed by the model from its weights).
func TestDeepInequalityOnTrace(t *testing.T) {
	p := blobProblem(t, 400)
	for _, k := range []Kind{SCN2D, RVFL2D} {
		c := deepConfig(k, 60, 45, 30)
		path, err := c.FitPath(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := path.Model()
		if got := m.LayerSizes(); len(got) != 3 || got[1] == 0 || got[2] == 0 {
			t.Fatalf("%v: layers %v", k, got)
		}
		h := hiddenDense(m, p.X)
		n, mm := p.X.Len(), p.M
		checked := 0
		for l0 := len(m.Bias); l0 < m.Nodes(); {
			pm, err := path.Prefix(l0)
			if err != nil {
				t.Fatal(err)
			}
			e := residualOf(h, pm.Beta, p.T, n, l0, mm)
			ee := make([]float64, mm)
			for i := 0; i < n; i++ {
				for q := 0; q < mm; q++ {
					ee[q] += e[i*mm+q] * e[i*mm+q]
				}
			}
			l1 := l0 + 1
			for l1 < m.Nodes() && m.Summary.Trace[l1].Tried == 0 {
				l1++
			}
			for j := l0; j < l1; j++ {
				r := m.Summary.Trace[j].Ratio
				if !(r > 0 && r < 1) {
					t.Fatalf("%v: node %d of a further layer has r = %v", k, j+1, r)
				}
				var hh float64
				eh := make([]float64, mm)
				for i := 0; i < n; i++ {
					v := h.At(i, j)
					hh += v * v
					for q := 0; q < mm; q++ {
						eh[q] += e[i*mm+q] * v
					}
				}
				for q := 0; q < mm; q++ {
					if xi := eh[q]*eh[q]/hh - (1-r)*ee[q]; xi < -1e-9*ee[q] {
						t.Fatalf("%v: node %d (block from %d), output %d: xi = %.4g < 0 at r = %v", k, j+1, l0+1, q, xi, r)
					}
				}
				checked++
			}
			l0 = l1
		}
		if want := m.Nodes() - len(m.Bias); checked != want {
			t.Fatalf("%v: checked %d of %d further nodes", k, checked, want)
		}
		// The residual of all the nodes is no larger than the first layer's.
		first, _ := path.Prefix(len(m.Bias))
		if m.Summary.TrainRMSE > first.Summary.TrainRMSE {
			t.Fatalf("%v: training RMSE %v after the further layers, %v after the first", k, m.Summary.TrainRMSE, first.Summary.TrainRMSE)
		}
	}
}

// residualOf returns T - H[:, :l] beta (N x m).
func residualOf(h *mat.Dense, beta, tt []float64, n, l, m int) []float64 {
	e := append([]float64(nil), tt...)
	for i := 0; i < n; i++ {
		for j := 0; j < l; j++ {
			v := h.At(i, j)
			for q := 0; q < m; q++ {
				e[i*m+q] -= v * beta[j*m+q]
			}
		}
	}
	return e
}

// TestDeepRoundTrip: a deep model's file reads back to the same bytes and
// the same predictions, bit for bit; its header describes it; the outputs
// are those of H beta with H from the layers' weights; a damaged file is
// refused.
func TestDeepRoundTrip(t *testing.T) {
	p := blobProblem(t, 300)
	m := fitT(t, deepConfig(SCN2D, 60, 30, 20), p)
	file, back := roundTrip(t, m)
	if !bytes.Equal(file, modelBytes(t, back)) {
		t.Fatal("the read model writes other bytes")
	}
	y1, err := m.Predict(p.X)
	if err != nil {
		t.Fatal(err)
	}
	y2, _ := back.Predict(p.X)
	if !equal64(y1, y2) {
		t.Fatal("predictions differ after the round trip")
	}
	if !equal64(back.Beta, m.Beta) || len(back.Deep) != 2 || back.Config.Layers[1] != 20 {
		t.Fatalf("read back: %d further layers, config layers %v", len(back.Deep), back.Config.Layers)
	}
	in, err := ReadInfo(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	sizes := m.LayerSizes()
	if in.Nodes != m.Nodes() || in.FileBytes != int64(len(file)) || in.ParamCount() != m.ParamCount() ||
		len(in.Layers) != 3 || in.Layers[2] != sizes[2] {
		t.Fatalf("info: %d nodes, layers %v, %d bytes (file %d), %d parameters (model %d)", in.Nodes, in.Layers, in.FileBytes, len(file), in.ParamCount(), m.ParamCount())
	}
	want := len(m.Bias)*(m.ParamsPerNode()+1+m.M) + sizes[1]*(sizes[0]+1+m.M) + sizes[2]*(sizes[1]+1+m.M)
	if m.ParamCount() != want {
		t.Fatalf("ParamCount %d, want %d", m.ParamCount(), want)
	}
	// The outputs are H beta with H from every layer (to float32 rounding
	// of the first layer's u^T X v, computed in another order).
	h := hiddenDense(m, p.X)
	e := residualOf(h, m.Beta, make([]float64, len(y1)), p.X.Len(), m.Nodes(), m.M)
	for i, v := range y1 {
		if d := math.Abs(v + e[i]); d > 1e-4*(1+math.Abs(v)) {
			t.Fatalf("output %d: %v, H beta gives %v", i, v, -e[i])
		}
	}
	for _, cut := range []int{len(file) - 5, len(file) - 4 - 8*m.M} {
		if _, err := Read(bytes.NewReader(file[:cut])); !errors.Is(err, ErrFormat) {
			t.Fatalf("a file cut at %d of %d: %v", cut, len(file), err)
		}
	}
}

func TestDeepSameFileWhateverGOMAXPROCS(t *testing.T) {
	p := blobProblem(t, 5000) // several shards
	if _, same := fileWhateverGOMAXPROCS(t, deepConfig(SCN2D, 60, 40), p); !same {
		t.Error("deep model files differ between GOMAXPROCS=1 and 2")
	}
}

// TestDeepRefusals: impossible deep configurations and what deep models do
// not support say so.
func TestDeepRefusals(t *testing.T) {
	p := blobProblem(t, 200)
	bad := []func(*Config){
		func(c *Config) { c.Layers = []int{0} },
		func(c *Config) { c.Layers = []int{maxNodes} },
		func(c *Config) { c.BF16Gram = true },
		func(c *Config) { *c = Paper(SCN2D); c.Layers = []int{10} },
	}
	for i, f := range bad {
		c := deepConfig(SCN2D, 30, 10)
		f(&c)
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("case %d: Validate = %v", i, err)
		}
	}
	c := deepConfig(SCN2D, 30, 10)
	c.Robust = true
	if err := c.Validate(); !errors.Is(err, ErrDeep) {
		t.Errorf("robust: %v", err)
	}
	c.Robust = false
	if _, err := c.Select(context.Background(), p, Selection{Validation: 0.2}, nil); !errors.Is(err, ErrDeep) {
		t.Errorf("Select: %v", err)
	}
	m := fitT(t, c, p)
	if _, err := m.Indicator(p.X); !errors.Is(err, ErrDeep) {
		t.Errorf("Indicator: %v", err)
	}
	if _, _, err := m.Robust(p); !errors.Is(err, ErrDeep) {
		t.Errorf("Robust: %v", err)
	}
	if _, err := m.Stats(p); !errors.Is(err, ErrDeep) {
		t.Errorf("Stats: %v", err)
	}
}
