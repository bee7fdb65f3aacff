package export

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/npy"
)

// localModels fits small models of local nodes: grey and colour, 2D and
// 1D learners, random and supervised, several geometries and activations.
func localModels(t *testing.T) map[string]*scn.Model {
	t.Helper()
	train, _ := data(t)
	grey, err := train.Problem()
	if err != nil {
		t.Fatal(err)
	}
	colour, err := tinted(train).Problem()
	if err != nil {
		t.Fatal(err)
	}
	type job struct {
		name   string
		kind   scn.Kind
		act    scn.Activation
		colour bool
		geo    scn.Local
	}
	jobs := []job{
		{"2drvfl-relu-avg-two", scn.RVFL2D, scn.ReLU, false, scn.Local{Sizes: []int{5, 3}, Filters: 6, Stride: 1, Pad: scn.PadSame, Pool: 3, Pooling: scn.PoolAvg, TwoSided: true, Standardize: true}},
		{"2dscn-sigmoid-max-stride", scn.SCN2D, scn.Sigmoid, false, scn.Local{Sizes: []int{4}, Filters: 4, Stride: 2, Pad: 1, Pool: 3, Pooling: scn.PoolMax}},
		{"rvfl-tanh-both-colour", scn.RVFL, scn.Tanh, true, scn.Local{Sizes: []int{3}, Filters: 5, Stride: 1, Pad: 0, Pool: 4, Pooling: scn.PoolAvgMax, TwoSided: true, Standardize: true}},
		{"2drvfl-relu-colour", scn.RVFL2D, scn.ReLU, true, scn.Local{Sizes: []int{5}, Filters: 6, Stride: 1, Pad: scn.PadSame, Pool: 2, Pooling: scn.PoolAvg, TwoSided: true, Standardize: true}},
		{"scn-relu-colour", scn.SCN, scn.ReLU, true, scn.Local{Sizes: []int{3}, Filters: 3, Stride: 3, Pad: 0, Pool: 2, Pooling: scn.PoolAvgMax}},
		// Whitened patches (folded into the Conv weights).
		{"2drvfl-relu-colour-whiten", scn.RVFL2D, scn.ReLU, true, scn.Local{Sizes: []int{5, 3}, Filters: 6, Stride: 1, Pad: scn.PadSame, Pool: 2, Pooling: scn.PoolAvg, TwoSided: true, Standardize: true, Whiten: true, WhitenEps: 0.1}},
		{"rvfl-tanh-grey-whiten", scn.RVFL, scn.Tanh, false, scn.Local{Sizes: []int{3}, Filters: 5, Stride: 2, Pad: 1, Pool: 2, Pooling: scn.PoolAvgMax, Whiten: true, WhitenEps: 0.01}},
	}
	out := map[string]*scn.Model{}
	for _, j := range jobs {
		c := scn.Paper(j.kind)
		c.Activation, c.Ridge, c.Seed = j.act, 10, 5
		c.Scales = []float64{1}
		geo := j.geo
		c.Local = &geo
		p := grey
		if j.colour {
			p = colour
		}
		m, err := c.Fit(context.Background(), p, nil)
		if err != nil {
			t.Fatalf("%s: %v", j.name, err)
		}
		out[j.name] = m
	}
	return out
}

// TestONNXLocalAgrees exports models of local nodes to ONNX (Conv,
// activation, pooling, standardisation, MatMul), runs them in onnxruntime
// and compares with Model.Predict.
func TestONNXLocalAgrees(t *testing.T) {
	node, script := onnxRuntime(t)
	_, test := data(t)
	dir := t.TempDir()
	for name, m := range localModels(t) {
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
		out := runONNX(t, node, script, path, x)
		worst := agree(t, name, out["y"].Data, want, m.M)
		t.Logf("%s: %d pooled outputs, largest relative difference %.2g", name, m.Nodes(), worst)
	}
}

// TestNPZLocal checks the arrays of a model of local nodes.
func TestNPZLocal(t *testing.T) {
	ms := localModels(t)
	for name, m := range ms {
		arrs, err := NPZ(m)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]*npy.Array{}
		for _, a := range arrs {
			got[a.Name] = a.Array
		}
		want := []string{"local0_b", "beta", "local", "shape", "kind", "activation", "classes", "preprocessing"}
		if m.Kind.Input == scn.Matrix {
			want = append(want, "local0_u", "local0_v")
		} else {
			want = append(want, "local0_W")
		}
		if m.Local.Geometry.Whiten {
			want = append(want, "local0_whiten")
			kk := m.Chans() * m.Local.Banks[0].Size * m.Local.Banks[0].Size
			if a := got["local0_whiten"]; a == nil || fmt.Sprint(a.Shape) != fmt.Sprint([]int{kk, kk}) {
				t.Errorf("%s: local0_whiten %v", name, a)
			}
			if s := got["local"].Data.([]string)[0]; !strings.Contains(s, `"whiten":true`) {
				t.Errorf("%s: local %s", name, s)
			}
		}
		for _, w := range want {
			if got[w] == nil {
				t.Errorf("%s: no array %s", name, w)
			}
		}
		if b := got["beta"]; b == nil || fmt.Sprint(b.Shape) != fmt.Sprint([]int{m.Nodes(), m.M}) {
			t.Errorf("%s: beta %v", name, b)
		}
		if s := got["local"].Data.([]string)[0]; !strings.Contains(s, `"pooling"`) {
			t.Errorf("%s: local %s", name, s)
		}
	}
}
