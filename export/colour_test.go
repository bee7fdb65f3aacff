package export

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/npy"
)

// tinted returns the digits of s as 3-channel images (N x C x H x W),
// each digit drawn in a colour of its class (c_k x in plane k), so that a
// colour model's three planes differ.
func tinted(s *dataset.Set) *dataset.Set {
	hues := [][3]float32{{0.6, 0.2, 0.2}, {0.03, 0.42, 0.55}, {0.2, 0.7, 0.1}}
	d := s.Rows * s.Cols
	out := &dataset.Set{Rows: s.Rows, Cols: s.Cols, Channels: 3, Classes: s.Classes, Labels: s.Labels,
		Pix: make([]float32, 3*s.Len()*d)}
	for i := 0; i < s.Len(); i++ {
		h := hues[s.Labels[i]%len(hues)]
		for j, v := range s.Image(i) {
			for k := 0; k < 3; k++ {
				out.Pix[(3*i+k)*d+j] = h[k] * v
			}
		}
	}
	return out
}

// colourModel fits a small model of the kind on the tinted training digits.
func colourModel(t *testing.T, kind scn.Kind, preset string) *scn.Model {
	t.Helper()
	train, _ := data(t)
	p, err := tinted(train).Problem()
	if err != nil {
		t.Fatal(err)
	}
	cfg := scn.Paper(kind)
	cfg.MaxNodes = 40
	if preset == "fast" {
		cfg = scn.Fast(kind).ForImages(train.Rows, train.Cols)
		cfg.MaxNodes, cfg.BlockSize = 100, 50
	}
	cfg.Seed = 3
	m, err := cfg.Fit(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Chans() != 3 {
		t.Fatalf("%v: model of %d channels", kind, m.Chans())
	}
	return m
}

// TestONNXColourAgrees exports colour models (3 channels) of the four
// kinds, paper settings and fast preset, 2D ones in both graph forms, runs
// them in onnxruntime on N x 3 x H x W input and compares with Predict.
func TestONNXColourAgrees(t *testing.T) {
	node, script := onnxRuntime(t)
	_, test := data(t)
	ct := tinted(test)
	dir := t.TempDir()
	for _, k := range scn.Kinds() {
		for _, preset := range []string{"paper", "fast"} {
			m := colourModel(t, k, preset)
			want, err := m.Predict(ct.Images())
			if err != nil {
				t.Fatal(err)
			}
			for _, expand := range []bool{false, true} {
				if expand && k.Input != scn.Matrix {
					continue
				}
				name := fmt.Sprintf("%s-%s-colour-expand=%v", k, preset, expand)
				path := filepath.Join(dir, name+".onnx")
				if err := WriteONNX(path, m, ONNXOptions{Expand: expand}); err != nil {
					t.Fatal(err)
				}
				out := runONNX(t, node, script, path, ct)
				y := out["y"]
				if len(y.Dims) != 2 || y.Dims[0] != ct.Len() || y.Dims[1] != m.M {
					t.Fatalf("%s: y is %v", name, y.Dims)
				}
				worst := agree(t, name, y.Data, want, m.M)
				t.Logf("%s: %d nodes, largest relative difference %.2g", name, m.Nodes(), worst)
			}
		}
	}
}

// TestONNXColourInput: a colour model's graph takes N x C x H x W and
// records its channels; a grey model's input stays N x H x W.
func TestONNXColourInput(t *testing.T) {
	m := colourModel(t, scn.SCN2D, "paper")
	mp, err := onnxModel(m, false)
	if err != nil {
		t.Fatal(err)
	}
	dims := mp.Graph.Input[0].Type.GetTensorType().Shape.Dim
	if len(dims) != 4 || dims[1].GetDimValue() != 3 || dims[2].GetDimValue() != 28 || dims[3].GetDimValue() != 28 {
		t.Errorf("colour input shape %v, want N x 3 x 28 x 28", dims)
	}
	found := false
	for _, p := range mp.MetadataProps {
		found = found || (p.GetKey() == "channels" && p.GetValue() == "3")
	}
	if !found {
		t.Error("no channels = 3 in the metadata")
	}
	g, err := onnxModel(fit(t, scn.SCN2D, scn.Sigmoid, false), false)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(g.Graph.Input[0].Type.GetTensorType().Shape.Dim); n != 3 {
		t.Errorf("grey input of %d dimensions, want N x H x W", n)
	}
}

// TestNPZColour: a colour 2D model's arrays hold u, v and the channel
// weights w (L x C), shape [C, d1, d2]; a colour 1D model's W is
// L x C d1 d2.
func TestNPZColour(t *testing.T) {
	for _, k := range []scn.Kind{scn.SCN2D, scn.RVFL} {
		m := colourModel(t, k, "paper")
		path := filepath.Join(t.TempDir(), "m.npz")
		if err := WriteNPZ(path, m); err != nil {
			t.Fatal(err)
		}
		got, err := npy.ReadNPZFile(path)
		if err != nil {
			t.Fatal(err)
		}
		l := m.Nodes()
		if fmt.Sprint(got["shape"].Data) != "[3 28 28]" {
			t.Errorf("%s: shape %v", k, got["shape"].Data)
		}
		if k.Input == scn.Matrix {
			w := got["w"].Data.([]float32)
			np := m.ParamsPerNode()
			if fmt.Sprint(got["w"].Shape) != fmt.Sprint([]int{l, 3}) || w[3+2] != m.Params[np+56+2] || fmt.Sprint(got["v"].Shape) != fmt.Sprint([]int{l, 28}) {
				t.Errorf("%s: w %v does not hold the channel weights", k, got["w"].Shape)
			}
		} else if fmt.Sprint(got["W"].Shape) != fmt.Sprint([]int{l, 3 * 784}) {
			t.Errorf("%s: W %v", k, got["W"].Shape)
		}
	}
}
