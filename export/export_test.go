package export

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	pb "github.com/scn2d/scn/internal/onnxpb"
	"github.com/scn2d/scn/npy"
	"google.golang.org/protobuf/proto"
)

// The tests fit small models of every kind and activation on a subset of
// the built-in data set and check that the exported files compute what
// Model.Predict computes: the ONNX file in onnxruntime (the npm package
// onnxruntime-node, run by testdata/onnxcheck/run.js), the .npz file in
// numpy (the example in docs/export.md). Each tool's test skips with the reason
// where the tool is absent, unless SCN_REQUIRE_TOOLS is set (CI sets it).

// tolerance is the agreement required between an exported model's outputs
// and Model.Predict's: |a - b| <= tolerance * max(1, max_q |b_q|) for each
// image (the largest output of an image sets its scale: a classifier's
// outputs near 0 carry no relative precision of their own).
const tolerance = 1e-5

var (
	dataOnce        sync.Once
	trainSet, tests *dataset.Set
	dataErr         error
)

// data returns 300 training and 64 test images of the built-in set.
func data(t *testing.T) (train, test *dataset.Set) {
	t.Helper()
	dataOnce.Do(func() {
		tr, te, err := dataset.Default()
		if err != nil {
			dataErr = err
			return
		}
		pick := func(s *dataset.Set, n int) *dataset.Set {
			idx := make([]int, n)
			for i := range idx {
				idx[i] = i * (s.Len() / n)
			}
			return s.Subset(idx)
		}
		trainSet, tests = pick(tr, 300), pick(te, 64)
	})
	if dataErr != nil {
		t.Fatal(dataErr)
	}
	return trainSet, tests
}

type fitKey struct {
	kind       scn.Kind
	act        scn.Activation
	regression bool
}

var (
	fitMu    sync.Mutex
	fitCache = map[fitKey]*scn.Model{}
)

// fit fits a small model of the given kind and activation (once per test
// binary: the tests share the models and do not change them).
func fit(t *testing.T, kind scn.Kind, act scn.Activation, regression bool) *scn.Model {
	t.Helper()
	fitMu.Lock()
	defer fitMu.Unlock()
	key := fitKey{kind, act, regression}
	if m, ok := fitCache[key]; ok {
		return m
	}
	m := fitNew(t, kind, act, regression)
	fitCache[key] = m
	return m
}

// fitNew fits a small model of the given kind and activation.
func fitNew(t *testing.T, kind scn.Kind, act scn.Activation, regression bool) *scn.Model {
	t.Helper()
	train, _ := data(t)
	x := scn.Images{Rows: train.Rows, Cols: train.Cols, Pix: train.Pix}
	var p scn.Problem
	var err error
	if regression {
		// Two made-up targets: the mean ink of the top and bottom halves.
		d := train.Rows * train.Cols
		targets := make([]float64, 0, 2*train.Len())
		for i := 0; i < train.Len(); i++ {
			var top, bottom float64
			for k, v := range train.Image(i) {
				if k < d/2 {
					top += float64(v)
				} else {
					bottom += float64(v)
				}
			}
			targets = append(targets, top/float64(d/2), bottom/float64(d-d/2))
		}
		p, err = scn.Regression(x, targets, 2)
	} else {
		p, err = scn.Classification(x, train.Labels, train.Classes)
	}
	if err != nil {
		t.Fatal(err)
	}
	cfg := scn.Paper(kind)
	cfg.MaxNodes = 40
	cfg.Activation = act
	cfg.Seed = 3
	if act == scn.ReLU {
		cfg.Scales = []float64{0.5, 1, 5} // ReLU nodes of scale 250 would dwarf the rest
	}
	m, err := cfg.Fit(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Preprocessing = scn.PreprocessRecord{Invert: "no"}
	return m
}

// requireTools says whether a missing tool fails the test instead of
// skipping it.
func requireTools() bool { return os.Getenv("SCN_REQUIRE_TOOLS") != "" }

func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if requireTools() {
		t.Fatalf(format+" (SCN_REQUIRE_TOOLS is set)", args...)
	}
	t.Skipf(format, args...)
}

// onnxRuntime returns the node binary and the run.js script, or skips.
func onnxRuntime(t *testing.T) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		skipOrFail(t, "no node on PATH: the ONNX files are not run")
	}
	dir, _ := filepath.Abs(filepath.Join("testdata", "onnxcheck"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "onnxruntime-node", "package.json")); err != nil {
		skipOrFail(t, "onnxruntime-node is not installed: run (cd export/testdata/onnxcheck && npm ci --ignore-scripts)")
	}
	return node, filepath.Join(dir, "run.js")
}

type ortOutput struct {
	Dims []int     `json:"dims"`
	Type string    `json:"type"`
	Data []float64 `json:"data"`
}

// runONNX runs an ONNX file on the images in onnxruntime.
func runONNX(t *testing.T, node, script, model string, x *dataset.Set) map[string]ortOutput {
	t.Helper()
	in := filepath.Join(t.TempDir(), "x.f32")
	raw := make([]byte, 0, 4*len(x.Pix))
	for _, v := range x.Pix {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
	}
	if err := os.WriteFile(in, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{script, model, in, fmt.Sprint(x.Len())}
	if x.Chans() > 1 {
		args = append(args, fmt.Sprint(x.Chans()))
	}
	args = append(args, fmt.Sprint(x.Rows), fmt.Sprint(x.Cols))
	cmd := exec.Command(node, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("onnxruntime: %v\n%s", err, stderr.String())
	}
	var res struct {
		Outputs map[string]ortOutput `json:"outputs"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("onnxruntime output: %v\n%s", err, out)
	}
	return res.Outputs
}

// agree checks got against want (N x m) to the tolerance and returns the
// largest relative difference.
func agree(t *testing.T, what string, got, want []float64, m int) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d outputs, want %d", what, len(got), len(want))
	}
	worst := 0.0
	for i := 0; i < len(want); i += m {
		scale := 1.0
		for _, v := range want[i : i+m] {
			scale = max(scale, math.Abs(v))
		}
		for q := i; q < i+m; q++ {
			rel := math.Abs(got[q]-want[q]) / scale
			worst = max(worst, rel)
			if !(rel <= tolerance) {
				t.Fatalf("%s: image %d output %d is %v, Predict gives %v (relative difference %.3g)", what, i/m, q-i, got[q], want[q], rel)
			}
		}
	}
	return worst
}

var activations = []scn.Activation{scn.Sigmoid, scn.Tanh, scn.ReLU}

// TestONNXRuntimeAgrees exports models of all four kinds and three
// activations (and a regression model) to ONNX, runs them in onnxruntime
// and compares with Model.Predict.
func TestONNXRuntimeAgrees(t *testing.T) {
	node, script := onnxRuntime(t)
	_, test := data(t)
	dir := t.TempDir()
	type job struct {
		kind       scn.Kind
		act        scn.Activation
		regression bool
		expand     bool
	}
	var jobs []job
	for _, k := range scn.Kinds() {
		for _, a := range activations {
			jobs = append(jobs, job{k, a, false, false})
			if k.Input == scn.Matrix {
				jobs = append(jobs, job{k, a, false, true})
			}
		}
	}
	jobs = append(jobs, job{scn.SCN2D, scn.Sigmoid, true, false}, job{scn.RVFL, scn.Tanh, true, false})
	for _, j := range jobs {
		name := fmt.Sprintf("%s-%s", j.kind, j.act)
		if j.regression {
			name += "-regression"
		}
		if j.expand {
			name += "-expand"
		}
		t.Run(name, func(t *testing.T) {
			m := fit(t, j.kind, j.act, j.regression)
			path := filepath.Join(dir, name+".onnx")
			if err := WriteONNX(path, m, ONNXOptions{Expand: j.expand}); err != nil {
				t.Fatal(err)
			}
			want, err := m.Predict(scn.Images{Rows: test.Rows, Cols: test.Cols, Pix: test.Pix})
			if err != nil {
				t.Fatal(err)
			}
			out := runONNX(t, node, script, path, test)
			y := out["y"]
			if y.Type != "float64" || len(y.Dims) != 2 || y.Dims[0] != test.Len() || y.Dims[1] != m.M {
				t.Fatalf("y is %s %v", y.Type, y.Dims)
			}
			worst := agree(t, name, y.Data, want, m.M)
			t.Logf("%s: %d nodes, largest relative difference %.2g", name, m.Nodes(), worst)
			class, ok := out["class"]
			if j.regression {
				if ok {
					t.Fatal("a regression model has a class output")
				}
				return
			}
			if !ok || class.Type != "int64" {
				t.Fatalf("no int64 class output: %v", out)
			}
			// Classes agree wherever the top two outputs are not within
			// the tolerance of each other.
			for i, c := range scn.ArgMax(want, m.M) {
				if int(class.Data[i]) != c && clearWinner(want[i*m.M:(i+1)*m.M]) {
					t.Errorf("image %d: class %v, Predict's %d", i, class.Data[i], c)
				}
			}
		})
	}
}

// clearWinner reports whether the largest output beats the others by more
// than the tolerance.
func clearWinner(y []float64) bool {
	best, second := math.Inf(-1), math.Inf(-1)
	for _, v := range y {
		if v > best {
			best, second = v, best
		} else if v > second {
			second = v
		}
	}
	return best-second > 2*tolerance*max(1, math.Abs(best))
}

// TestONNXStructure decodes exported files and checks the graph: the u^T X
// v structure of 2D models (no d1 x d2 weights), the opset, the metadata;
// and that a 2D model's ONNX file is about as small as its model file.
func TestONNXStructure(t *testing.T) {
	for _, c := range []struct {
		k      scn.Kind
		expand bool
	}{{scn.SCN2D, false}, {scn.SCN2D, true}, {scn.RVFL, false}} {
		k := c.k
		m := fit(t, k, scn.Sigmoid, false)
		b, err := ONNX(m, ONNXOptions{Expand: c.expand})
		if err != nil {
			t.Fatal(err)
		}
		again, _ := ONNX(m, ONNXOptions{Expand: c.expand})
		if !bytes.Equal(b, again) {
			t.Error("two exports of one model differ")
		}
		var mp pb.ModelProto
		if err := proto.Unmarshal(b, &mp); err != nil {
			t.Fatal(err)
		}
		if mp.GetIrVersion() != irVersion || len(mp.OpsetImport) != 1 || mp.OpsetImport[0].GetVersion() != Opset {
			t.Errorf("IR %d, opsets %v", mp.GetIrVersion(), mp.OpsetImport)
		}
		var ops []string
		for _, n := range mp.Graph.Node {
			ops = append(ops, n.GetOpType())
		}
		shapes := map[string][]int64{}
		weights := 0
		for _, in := range mp.Graph.Initializer {
			shapes[in.GetName()] = in.Dims
			weights += len(in.RawData)
		}
		l := int64(m.Nodes())
		props := map[string]string{}
		for _, p := range mp.MetadataProps {
			props[p.GetKey()] = p.GetValue()
		}
		if props["kind"] != k.String() || props["activation"] != "sigmoid" || props[MetaPreprocess] != `{"invert":"no"}` || !strings.Contains(props["classes"], `"9"`) {
			t.Errorf("metadata %v", props)
		}
		var file bytes.Buffer
		if _, err := m.WriteTo(&file); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: ONNX %d bytes, model file %d bytes; ops %v", k, len(b), file.Len(), ops)
		if k.Input == scn.Matrix {
			want := "MatMul Mul ReduceSum Add Sigmoid Cast MatMul ArgMax"
			if c.expand {
				want = "Unsqueeze Unsqueeze Mul Reshape Reshape MatMul Add Sigmoid Cast MatMul ArgMax"
			}
			if got := strings.Join(ops, " "); got != want {
				t.Errorf("2D graph: %s", got)
			}
			if fmt.Sprint(shapes["V"], shapes["Ut"]) != fmt.Sprint([]int64{28, l}, []int64{28, l}) {
				t.Errorf("2D weights %v %v", shapes["V"], shapes["Ut"])
			}
			// Weights as in the model file; the rest is the graph and the
			// metadata, a few hundred bytes.
			if weights != 4*int(l)*(28+28+1)+8*int(l)*m.M {
				t.Errorf("2D weights take %d bytes", weights)
			}
			if len(b) > file.Len()+2048 || float64(len(b)) > 1.1*float64(file.Len()) {
				t.Errorf("2D ONNX file of %d bytes for a model file of %d", len(b), file.Len())
			}
		} else if got := strings.Join(ops, " "); got != "Reshape MatMul Add Sigmoid Cast MatMul ArgMax" {
			t.Errorf("1D graph: %s", got)
		}
	}
}

// TestONNXChecker runs the ONNX project's own checker (Debian's
// python3-onnx) on an exported file of each input map.
func TestONNXChecker(t *testing.T) {
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
	for i, k := range []scn.Kind{scn.RVFL2D, scn.SCN, scn.SCN2D} {
		path := filepath.Join(dir, k.String()+".onnx")
		if err := WriteONNX(path, fit(t, k, scn.Tanh, false), ONNXOptions{Expand: i == 2}); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(py, "-c", `import sys, onnx
m = onnx.load(sys.argv[1])
onnx.checker.check_model(m, full_check=True)
print(onnx.helper.printable_graph(m.graph).splitlines()[0])`, path).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: onnx checker: %v\n%s", k, err, out)
		}
	}
}

// TestBadModels checks that incomplete models are refused, not exported.
func TestBadModels(t *testing.T) {
	good := fit(t, scn.RVFL2D, scn.Sigmoid, false)
	for name, change := range map[string]func(m *scn.Model){
		"no nodes":       func(m *scn.Model) { m.Bias, m.Params, m.Beta = nil, nil, nil },
		"short params":   func(m *scn.Model) { m.Params = m.Params[1:] },
		"short beta":     func(m *scn.Model) { m.Beta = m.Beta[1:] },
		"activation":     func(m *scn.Model) { m.Activation = 9 },
		"kind":           func(m *scn.Model) { m.Kind = scn.Kind{Input: 5} },
		"classes":        func(m *scn.Model) { m.Classes = m.Classes[1:] },
		"no outputs":     func(m *scn.Model) { m.M = 0 },
		"negative shape": func(m *scn.Model) { m.Rows = -1 },
	} {
		m := *good
		change(&m)
		if _, err := ONNX(&m, ONNXOptions{}); err == nil {
			t.Errorf("%s: ONNX accepted", name)
		}
		if _, err := NPZ(&m); err == nil {
			t.Errorf("%s: NPZ accepted", name)
		}
		path := filepath.Join(t.TempDir(), "m.onnx")
		if err := WriteONNX(path, &m, ONNXOptions{Expand: true}); err == nil {
			t.Errorf("%s: WriteONNX accepted", name)
		} else if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: a failed export left a file", name)
		}
	}
	if _, err := ONNX(nil, ONNXOptions{}); err == nil {
		t.Error("nil model accepted")
	}
}

// TestNPZArrays reads an exported .npz back and checks every array.
func TestNPZArrays(t *testing.T) {
	for _, k := range []scn.Kind{scn.SCN2D, scn.SCN} {
		m := fit(t, k, scn.ReLU, false)
		path := filepath.Join(t.TempDir(), "m.npz")
		if err := WriteNPZ(path, m); err != nil {
			t.Fatal(err)
		}
		got, err := npy.ReadNPZFile(path)
		if err != nil {
			t.Fatal(err)
		}
		l := m.Nodes()
		str := func(name string) string { return fmt.Sprint(got[name].Data) }
		if str("kind") != "["+k.String()+"]" || str("activation") != "[relu]" || str("preprocessing") != `[{"invert":"no"}]` || str("shape") != "[28 28]" {
			t.Errorf("%s: %v %v %v %v", k, got["kind"], got["activation"], got["preprocessing"], got["shape"])
		}
		if fmt.Sprint(got["classes"].Data) != fmt.Sprint(m.Classes) || fmt.Sprint(got["beta"].Shape) != fmt.Sprint([]int{l, 10}) {
			t.Errorf("%s: classes %v, beta %v", k, got["classes"], got["beta"].Shape)
		}
		if k.Input == scn.Matrix {
			u, v := got["u"].Data.([]float32), got["v"].Data.([]float32)
			if u[28] != m.Params[56] || v[0] != m.Params[28] || fmt.Sprint(got["u"].Shape) != fmt.Sprint([]int{l, 28}) {
				t.Errorf("u, v do not hold the model's parameters")
			}
		} else if fmt.Sprint(got["W"].Shape) != fmt.Sprint([]int{l, 784}) {
			t.Errorf("W %v", got["W"].Shape)
		}
	}
}

// numpyExample returns the Python example of docs/export.md.
func numpyExample(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "docs", "export.md"))
	if err != nil {
		t.Fatal(err)
	}
	const mark = "<!-- numpy example: export_test.go runs it -->"
	_, rest, ok := strings.Cut(string(readme), mark)
	if !ok {
		t.Fatalf("docs/export.md has no %q", mark)
	}
	_, code, ok1 := strings.Cut(rest, "```python\n")
	code, _, ok2 := strings.Cut(code, "```")
	if !ok1 || !ok2 {
		t.Fatal("docs/export.md: no python block after the mark")
	}
	return code
}

// TestNumPyExample runs the numpy example of docs/export.md (Debian's
// python3-numpy) on exported .npz files of all four kinds and three
// activations and compares its outputs with Model.Predict.
func TestNumPyExample(t *testing.T) {
	code := numpyExample(t)
	py := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		skipOrFail(t, "no python3 with numpy (apt-get install python3-numpy)")
	}
	_, test := data(t)
	// The images as IDX and numpy users have them: bytes.
	pix := make([]uint8, len(test.Pix))
	x := make([]float32, len(test.Pix))
	for i, v := range test.Pix {
		pix[i] = uint8(math.Round(float64(v) * 255))
		x[i] = float32(pix[i]) / 255
	}
	for _, k := range scn.Kinds() {
		for _, a := range activations {
			name := fmt.Sprintf("%s-%s", k, a)
			t.Run(name, func(t *testing.T) {
				m := fit(t, k, a, false)
				dir := t.TempDir()
				if err := WriteNPZ(filepath.Join(dir, "model.npz"), m); err != nil {
					t.Fatal(err)
				}
				if err := npy.WriteFile(filepath.Join(dir, "images.npy"), &npy.Array{Shape: []int{test.Len(), test.Rows, test.Cols}, Data: pix}); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(py, "-c", code+"\nnp.save('outputs.npy', Y)\n")
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("numpy example: %v\n%s", err, out)
				}
				lines := strings.Fields(strings.Trim(strings.TrimSpace(string(out)), "[]"))
				got, err := npy.ReadFile(filepath.Join(dir, "outputs.npy"))
				if err != nil {
					t.Fatal(err)
				}
				want, err := m.Predict(scn.Images{Rows: test.Rows, Cols: test.Cols, Pix: x})
				if err != nil {
					t.Fatal(err)
				}
				y, _ := got.Float64s()
				worst := agree(t, name, y, want, m.M)
				pred := scn.ArgMax(want, m.M)
				for i, s := range lines {
					if i < len(pred) && strings.Trim(s, "'") != m.Classes[pred[i]] && clearWinner(want[i*m.M:(i+1)*m.M]) {
						t.Errorf("image %d: numpy prints class %s, Predict gives %s", i, s, m.Classes[pred[i]])
					}
				}
				t.Logf("%s: largest relative difference %.2g", name, worst)
			})
		}
	}
}
