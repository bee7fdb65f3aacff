package export

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scn2d/scn"
	pb "github.com/scn2d/scn/internal/onnxpb"
	"github.com/scn2d/scn/npy"
	"google.golang.org/protobuf/proto"
)

// deepModel fits a small deep 2DSCN (layers of 40, 20 and 10 nodes).
func deepModel(t *testing.T, act scn.Activation) *scn.Model {
	t.Helper()
	train, _ := data(t)
	p, err := scn.Classification(scn.Images{Rows: train.Rows, Cols: train.Cols, Pix: train.Pix}, train.Labels, train.Classes)
	if err != nil {
		t.Fatal(err)
	}
	c := scn.Fast(scn.SCN2D)
	c.MaxNodes, c.BlockSize, c.BF16Gram, c.Activation = 40, 20, false, act
	c.Layers = []int{20, 10}
	m, err := c.Fit(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !m.IsDeep() {
		t.Fatalf("layers %v", m.LayerSizes())
	}
	m.Preprocessing = scn.PreprocessRecord{Invert: "no"}
	return m
}

// numpyPython returns a python3 with numpy (and onnx if asked), or skips.
func numpyPython(t *testing.T, onnx bool) string {
	t.Helper()
	mod := "numpy"
	if onnx {
		mod += ", onnx"
	}
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import "+mod).Run() == nil {
			return p
		}
	}
	skipOrFail(t, "no python3 with %s (apt-get install python3-numpy python3-onnx)", mod)
	return ""
}

// TestONNXGraphInNumPy runs exported graphs, deep and one-layer, op by op
// in numpy (testdata/onnxnumpy/run.py, after the ONNX checker) and
// compares with Model.Predict.
func TestONNXGraphInNumPy(t *testing.T) {
	py := numpyPython(t, true)
	_, test := data(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "x.f32")
	raw := make([]byte, 0, 4*len(test.Pix))
	for _, v := range test.Pix {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
	}
	if err := os.WriteFile(in, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	models := map[string]*scn.Model{
		"deep-sigmoid": deepModel(t, scn.Sigmoid), "deep-tanh": deepModel(t, scn.Tanh),
		"2dscn": fit(t, scn.SCN2D, scn.Sigmoid, false), "scn": fit(t, scn.SCN, scn.Tanh, false),
	}
	for name, m := range models {
		for _, expand := range []bool{false, true} {
			path := filepath.Join(dir, fmt.Sprintf("%s-%v.onnx", name, expand))
			if err := WriteONNX(path, m, ONNXOptions{Expand: expand}); err != nil {
				t.Fatal(err)
			}
			outPath := filepath.Join(dir, "y.npy")
			script, _ := filepath.Abs(filepath.Join("testdata", "onnxnumpy", "run.py"))
			cmd := exec.Command(py, script, path, in, fmt.Sprint(test.Len()), fmt.Sprint(test.Rows), fmt.Sprint(test.Cols), outPath)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, out)
			}
			got, err := npy.ReadFile(outPath)
			if err != nil {
				t.Fatal(err)
			}
			y, _ := got.Float64s()
			want, err := m.Predict(scn.Images{Rows: test.Rows, Cols: test.Cols, Pix: test.Pix})
			if err != nil {
				t.Fatal(err)
			}
			worst := agree(t, name, y, want, m.M)
			t.Logf("%s expand=%v: %d nodes, largest relative difference %.2g", name, expand, m.Nodes(), worst)
		}
	}
}

// TestDeepONNXStructure: a deep model's graph has one MatMul, Add and
// activation per further layer and a Concat of every layer's outputs.
func TestDeepONNXStructure(t *testing.T) {
	m := deepModel(t, scn.Sigmoid)
	b, err := ONNX(m, ONNXOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var mp pb.ModelProto
	if err := proto.Unmarshal(b, &mp); err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, n := range mp.Graph.Node {
		ops = append(ops, n.GetOpType())
	}
	want := "MatMul Mul ReduceSum Add Sigmoid MatMul Add Sigmoid MatMul Add Sigmoid Concat Cast MatMul ArgMax"
	if got := strings.Join(ops, " "); got != want {
		t.Fatalf("deep graph: %s, want %s", got, want)
	}
	for _, in := range mp.Graph.Initializer {
		if in.GetName() == "W3_t" && fmt.Sprint(in.Dims) != fmt.Sprint([]int64{int64(m.LayerSizes()[1]), int64(m.LayerSizes()[2])}) {
			t.Errorf("W3_t dims %v", in.Dims)
		}
		if in.GetName() == "beta" && in.Dims[0] != int64(m.Nodes()) {
			t.Errorf("beta dims %v for %d nodes", in.Dims, m.Nodes())
		}
	}
}

// TestDeepNPZ: a deep model's arrays hold every layer, and the numpy
// example of docs/export.md predicts as Model.Predict does.
func TestDeepNPZ(t *testing.T) {
	m := deepModel(t, scn.Tanh)
	arrays, err := NPZ(m)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*npy.Array{}
	for _, a := range arrays {
		got[a.Name] = a.Array
	}
	sz := m.LayerSizes()
	if fmt.Sprint(got["W2"].Shape) != fmt.Sprint([]int{sz[1], sz[0]}) || fmt.Sprint(got["W3"].Shape) != fmt.Sprint([]int{sz[2], sz[1]}) ||
		fmt.Sprint(got["layers"].Data) != fmt.Sprint(sz) || fmt.Sprint(got["beta"].Shape) != fmt.Sprint([]int{m.Nodes(), m.M}) {
		t.Fatalf("W2 %v, W3 %v, layers %v, beta %v", got["W2"].Shape, got["W3"].Shape, got["layers"].Data, got["beta"].Shape)
	}
	py := numpyPython(t, false)
	_, test := data(t)
	dir := t.TempDir()
	if err := WriteNPZ(filepath.Join(dir, "model.npz"), m); err != nil {
		t.Fatal(err)
	}
	pix := make([]uint8, len(test.Pix))
	x := make([]float32, len(test.Pix))
	for i, v := range test.Pix {
		pix[i] = uint8(math.Round(float64(v) * 255))
		x[i] = float32(pix[i]) / 255
	}
	if err := npy.WriteFile(filepath.Join(dir, "images.npy"), &npy.Array{Shape: []int{test.Len(), test.Rows, test.Cols}, Data: pix}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-c", numpyExample(t)+"\nnp.save('outputs.npy', Y)\n")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("numpy example: %v\n%s", err, out)
	}
	y, err := npy.ReadFile(filepath.Join(dir, "outputs.npy"))
	if err != nil {
		t.Fatal(err)
	}
	yv, _ := y.Float64s()
	want, _ := m.Predict(scn.Images{Rows: test.Rows, Cols: test.Cols, Pix: x})
	t.Logf("largest relative difference %.2g", agree(t, "deep npz", yv, want, m.M))
}
