package export

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/npy"
)

// withDirect returns a copy of m with direct links pooled by pool (random
// weights: the export must reproduce Predict whatever they are), keeping
// its first l nodes.
func withDirect(m *scn.Model, pool, l int) *scn.Model {
	out := *m
	np := m.ParamsPerNode()
	out.Params, out.Bias, out.Beta = m.Params[:l*np], m.Bias[:l], m.Beta[:l*m.M]
	out.Direct = &scn.DirectLink{Pool: pool}
	d := out.DirectDim()
	rng := rand.New(rand.NewPCG(uint64(pool), uint64(l)))
	out.Direct.Beta = make([]float64, d*m.M)
	for i := range out.Direct.Beta {
		out.Direct.Beta[i] = rng.NormFloat64() / float64(d)
	}
	return &out
}

// directModels are models with direct links: grey and colour, pooled and
// not, with nodes and without.
func directModels(t *testing.T) map[string]*scn.Model {
	grey := fit(t, scn.RVFL2D, scn.Sigmoid, false)
	colour := colourModel(t, scn.RVFL, "paper")
	return map[string]*scn.Model{
		"grey-pixels":   withDirect(grey, 1, grey.Nodes()),
		"grey-pool3":    withDirect(fit(t, scn.SCN, scn.Tanh, true), 3, 40),
		"grey-no-nodes": withDirect(grey, 2, 0),
		"colour-pool2":  withDirect(colour, 2, colour.Nodes()),
	}
}

// TestONNXDirectAgrees runs models with direct links in onnxruntime and
// compares with Predict.
func TestONNXDirectAgrees(t *testing.T) {
	node, script := onnxRuntime(t)
	_, test := data(t)
	dir := t.TempDir()
	for name, m := range directModels(t) {
		x := test
		if m.Chans() > 1 {
			x = tinted(test)
		}
		path := filepath.Join(dir, name+".onnx")
		if err := WriteONNX(path, m, ONNXOptions{}); err != nil {
			t.Fatal(err)
		}
		want, err := m.Predict(scn.Images{Rows: x.Rows, Cols: x.Cols, Channels: x.Channels, Pix: x.Pix})
		if err != nil {
			t.Fatal(err)
		}
		y := runONNX(t, node, script, path, x)["y"]
		worst := agree(t, name, y.Data, want, m.M)
		t.Logf("%s: %d nodes, %d direct features, largest relative difference %.2g", name, m.Nodes(), m.DirectDim(), worst)
	}
}

// TestNPZDirect: the direct weights and their pooling are in the archive.
func TestNPZDirect(t *testing.T) {
	for name, m := range directModels(t) {
		path := filepath.Join(t.TempDir(), "m.npz")
		if err := WriteNPZ(path, m); err != nil {
			t.Fatal(err)
		}
		got, err := npy.ReadNPZFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d := got["direct"]
		if d == nil || fmt.Sprint(d.Shape) != fmt.Sprint([]int{m.DirectDim(), m.M}) || fmt.Sprint(got["direct_pool"].Data) != fmt.Sprint([]int64{int64(m.Direct.Pool)}) {
			t.Fatalf("%s: direct %v pool %v", name, d, got["direct_pool"])
		}
		if w := d.Data.([]float64); w[len(w)-1] != m.Direct.Beta[len(w)-1] {
			t.Errorf("%s: direct weights differ", name)
		}
	}
}
