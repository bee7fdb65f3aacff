package export

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/npy"
)

// local2Models fits small two-layer models of local nodes (scn.LocalSecond):
// grey and colour, 2D (separable second layer) and 1D (full) learners,
// random and supervised second layers, max and average pooling between
// the layers, both layers' outputs or the second's only, one-sided and
// two-sided maps, one plane (a 2D second layer without plane weights), a
// whitened first layer, an even second-layer filter.
func local2Models(t *testing.T) map[string]*scn.Model {
	t.Helper()
	local2Once.Do(func() { local2Cache = fitLocal2Models(t) })
	if local2Cache == nil {
		t.Fatal("the two-layer models could not be fitted")
	}
	out := map[string]*scn.Model{}
	for k, m := range local2Cache {
		out[k] = m
	}
	return out
}

var (
	local2Once  sync.Once
	local2Cache map[string]*scn.Model
)

func fitLocal2Models(t *testing.T) map[string]*scn.Model {
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
		second scn.LocalSecond
	}
	jobs := []job{
		{"2drvfl-relu-max-concat", scn.RVFL2D, scn.ReLU, false,
			scn.Local{Sizes: []int{5}, Filters: 4, Stride: 1, Pad: scn.PadSame, Pool: 3, Pooling: scn.PoolAvg, TwoSided: true, Standardize: true},
			scn.LocalSecond{Filters: 6, Size: 3, Window: 2, Stride: 2, MidPooling: scn.PoolMax, Concat: true}},
		{"2dscn-tanh-avg-second-only-colour", scn.SCN2D, scn.Tanh, true,
			scn.Local{Sizes: []int{3}, Filters: 3, Stride: 2, Pad: 1, Pool: 2, Pooling: scn.PoolAvgMax, TwoSided: true, Standardize: true},
			scn.LocalSecond{Filters: 4, Size: 3, Window: 3, Stride: 1, MidPooling: scn.PoolAvg, Concat: false}},
		{"rvfl-tanh-full-colour", scn.RVFL, scn.Tanh, true,
			scn.Local{Sizes: []int{3}, Filters: 3, Stride: 1, Pad: 0, Pool: 2, Pooling: scn.PoolMax, Standardize: true},
			scn.LocalSecond{Filters: 5, Size: 2, Window: 2, Stride: 2, MidPooling: scn.PoolMax, Concat: true}},
		{"scn-sigmoid-full-second-only", scn.SCN, scn.Sigmoid, false,
			scn.Local{Sizes: []int{5}, Filters: 3, Stride: 1, Pad: scn.PadSame, Pool: 2, Pooling: scn.PoolAvg, TwoSided: true, Standardize: true},
			scn.LocalSecond{Filters: 4, Size: 3, Window: 2, Stride: 2, MidPooling: scn.PoolAvg, Concat: false}},
		{"2drvfl-one-plane", scn.RVFL2D, scn.ReLU, false,
			scn.Local{Sizes: []int{3}, Filters: 1, Stride: 1, Pad: scn.PadSame, Pool: 2, Pooling: scn.PoolMax},
			scn.LocalSecond{Filters: 3, Size: 3, Window: 2, Stride: 2, MidPooling: scn.PoolMax, Concat: true}},
		{"2drvfl-whiten-colour", scn.RVFL2D, scn.ReLU, true,
			scn.Local{Sizes: []int{5}, Filters: 4, Stride: 1, Pad: scn.PadSame, Pool: 2, Pooling: scn.PoolAvg, TwoSided: true, Standardize: true, Whiten: true, WhitenEps: 0.1},
			scn.LocalSecond{Filters: 5, Size: 3, Window: 2, Stride: 2, MidPooling: scn.PoolMax, Concat: true}},
	}
	out := map[string]*scn.Model{}
	for _, j := range jobs {
		c := scn.Paper(j.kind)
		c.Activation, c.Ridge, c.Seed = j.act, 10, 5
		c.Scales = []float64{1}
		geo, second := j.geo, j.second
		geo.Second = &second
		c.Local = &geo
		p := grey
		if j.colour {
			p = colour
		}
		m, err := c.Fit(context.Background(), p, nil)
		if err != nil {
			t.Errorf("%s: %v", j.name, err)
			return nil
		}
		if m.Local.Second == nil || m.Local.Second.Filters() == 0 {
			t.Errorf("%s: no second-layer filter", j.name)
			return nil
		}
		out[j.name] = m
	}
	return out
}

// TestONNXLocal2Agrees exports two-layer models of local nodes to ONNX
// (both layers' Conv, the pooling between them, the separable second
// layer of the 2D learners), runs them in onnxruntime and compares with
// Model.Predict.
func TestONNXLocal2Agrees(t *testing.T) {
	node, script := onnxRuntime(t)
	_, test := data(t)
	dir := t.TempDir()
	for name, m := range local2Models(t) {
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

// TestONNXLocal2Checker runs the ONNX checker (python3-onnx) on an
// exported two-layer model of each form of second layer.
func TestONNXLocal2Checker(t *testing.T) {
	py := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import onnx").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		skipOrFail(t, "no python3 with the onnx module (apt-get install python3-onnx)")
	}
	dir := t.TempDir()
	ms := local2Models(t)
	for _, name := range []string{"2dscn-tanh-avg-second-only-colour", "rvfl-tanh-full-colour", "2drvfl-one-plane"} {
		path := filepath.Join(dir, name+".onnx")
		if err := WriteONNX(path, ms[name], ONNXOptions{}); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(py, "-c", `import sys, onnx
m = onnx.load(sys.argv[1])
onnx.checker.check_model(m, full_check=True)`, path).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: onnx checker: %v\n%s", name, err, out)
		}
	}
}

// TestNPZLocal2 checks the second layer's arrays of two-layer models: the
// names and shapes, the geometry in "local", and that the separable
// arrays give the second layer's full weights (Model.SecondWeights).
func TestNPZLocal2(t *testing.T) {
	for name, m := range local2Models(t) {
		arrs, err := NPZ(m)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]*npy.Array{}
		for _, a := range arrs {
			got[a.Name] = a.Array
		}
		geo, b := m.Local.Geometry, m.Local.Second
		f, k, p := b.Filters(), b.Size, geo.Filters*geo.Sides()
		shapes := map[string][]int{"second_b": {f}, "beta": {m.Nodes(), m.M}, "local0_b": {geo.Filters}}
		if m.Kind.Input == scn.Matrix {
			shapes["second_u"], shapes["second_v"] = []int{f, k}, []int{f, k}
			if p > 1 {
				shapes["second_w"] = []int{f, p}
			}
		} else {
			shapes["second_W"] = []int{f, p, k, k}
		}
		for a, shape := range shapes {
			if got[a] == nil || fmt.Sprint(got[a].Shape) != fmt.Sprint(shape) {
				t.Errorf("%s: array %s is %v, want shape %v", name, a, got[a], shape)
			}
		}
		s := got["local"].Data.([]string)[0]
		for _, want := range []string{`"second":{`, fmt.Sprintf(`"mid_pooling":"%s"`, geo.Second.MidPooling), fmt.Sprintf(`"concat":%v`, geo.Second.Concat), fmt.Sprintf(`"planes":%d`, p)} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: local %s lacks %s", name, s, want)
			}
		}
		full := m.SecondWeights()
		if m.Kind.Input != scn.Matrix {
			for i, v := range got["second_W"].Data.([]float32) {
				if v != full[i] {
					t.Fatalf("%s: second_W[%d] = %v, the model's %v", name, i, v, full[i])
				}
			}
			continue
		}
		u, v := got["second_u"].Data.([]float32), got["second_v"].Data.([]float32)
		for j := 0; j < f; j++ {
			for c := 0; c < p; c++ {
				wc := float32(1)
				if p > 1 {
					wc = got["second_w"].Data.([]float32)[j*p+c]
				}
				for a := 0; a < k; a++ {
					for bb := 0; bb < k; bb++ {
						want := float64(full[((j*p+c)*k+a)*k+bb])
						if g := float64(u[j*k+a] * v[j*k+bb] * wc); math.Abs(g-want) > 1e-6*(1+math.Abs(want)) {
							t.Fatalf("%s: filter %d plane %d (%d, %d): u v w = %v, the model's weight %v", name, j, c, a, bb, g, want)
						}
					}
				}
			}
		}
	}
}

// TestLocal2BadModels: inconsistent two-layer models are refused, not
// exported.
func TestLocal2BadModels(t *testing.T) {
	ms := local2Models(t)
	good := ms["2drvfl-relu-max-concat"]
	for name, change := range map[string]func(m *scn.Model){
		"no second bank":    func(m *scn.Model) { m.Local.Second = nil },
		"no geometry":       func(m *scn.Model) { g := m.Local.Geometry; g.Second = nil; m.Local.Geometry = g },
		"short params":      func(m *scn.Model) { b := *m.Local.Second; b.Params = b.Params[1:]; m.Local.Second = &b },
		"other size":        func(m *scn.Model) { b := *m.Local.Second; b.Size = 5; m.Local.Second = &b },
		"two first banks":   func(m *scn.Model) { m.Local.Banks = append(m.Local.Banks, m.Local.Banks[0]) },
		"first layer short": func(m *scn.Model) { b := m.Local.Banks[0]; b.Bias = b.Bias[1:]; m.Local.Banks = []scn.LocalBank{b} },
	} {
		m := *good
		ll := *good.Local
		m.Local = &ll
		change(&m)
		if _, err := ONNX(&m, ONNXOptions{}); err == nil {
			t.Errorf("%s: ONNX accepted", name)
		}
		if _, err := NPZ(&m); err == nil {
			t.Errorf("%s: NPZ accepted", name)
		}
	}
}
