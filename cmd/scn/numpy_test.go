package main

import (
	binenc "encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	pb "github.com/scn2d/scn/internal/onnxpb"
	"github.com/scn2d/scn/npy"
	"google.golang.org/protobuf/proto"
)

// numpyFiles writes the sets of files() as NumPy files: train.npy (uint8,
// N x 28 x 28) with train-labels.npy (int64), test.npz (x float32 N x 784
// = the same pixels, y int32 labels, t float64 N x 2 targets) and
// train-targets.npy (float64 N x 2).
func numpyFiles(t *testing.T, dir string, train, test *dataset.Set) {
	t.Helper()
	bytesOf := func(s *dataset.Set) []uint8 {
		b := make([]uint8, len(s.Pix))
		for i, v := range s.Pix {
			b[i] = uint8(math.Round(float64(v) * 255))
		}
		return b
	}
	targets := func(s *dataset.Set) []float64 {
		out := make([]float64, 0, 2*s.Len())
		for i := 0; i < s.Len(); i++ {
			var a, b float64
			for k, v := range s.Image(i) {
				if k%s.Cols < s.Cols/2 {
					a += float64(v)
				} else {
					b += float64(v)
				}
			}
			out = append(out, a/100, b/100)
		}
		return out
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	labels64 := make([]int64, train.Len())
	for i, l := range train.Labels {
		labels64[i] = int64(l)
	}
	must(npy.WriteFile(filepath.Join(dir, "train.npy"), &npy.Array{Shape: []int{train.Len(), 28, 28}, Data: bytesOf(train)}))
	must(npy.WriteFile(filepath.Join(dir, "train-labels.npy"), &npy.Array{Shape: []int{train.Len()}, Data: labels64}))
	must(npy.WriteFile(filepath.Join(dir, "train-targets.npy"), &npy.Array{Shape: []int{train.Len(), 2}, Data: targets(train)}))
	tb := bytesOf(test)
	x := make([]float32, len(tb))
	for i, v := range tb {
		x[i] = float32(v) / 255
	}
	labels32 := make([]int32, test.Len())
	for i, l := range test.Labels {
		labels32[i] = int32(l)
	}
	must(npy.WriteNPZFile(filepath.Join(dir, "test.npz"), true,
		npy.Named{Name: "x", Array: &npy.Array{Shape: []int{test.Len(), 784}, Data: x}},
		npy.Named{Name: "y", Array: &npy.Array{Shape: []int{test.Len()}, Data: labels32}},
		npy.Named{Name: "t", Array: &npy.Array{Shape: []int{test.Len(), 2}, Data: targets(test)}}))
}

// evalJSON runs scn eval --json and returns what it reports, the model's
// path left out.
func evalJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out := ok(t, append([]string{"eval", "--json"}, args...)...)
	var ev map[string]any
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out)
	}
	delete(ev, "model")
	return ev
}

// TestNumPyInput trains and evaluates from .npy and .npz files and checks
// that they give what the same data as IDX files give.
func TestNumPyInput(t *testing.T) {
	dir, train, test := files(t)
	numpyFiles(t, dir, train, test)
	p := func(name string) string { return filepath.Join(dir, name) }
	fromIDX, fromNPY := p("idx.scn"), p("npy.scn")
	ok(t, "train", "--model", "2dscn", "--nodes", "30", "--seed", "5", "-q",
		"--idx-images", p("train-images.gz"), "--idx-labels", p("train-labels.gz"), "-o", fromIDX)
	out := ok(t, "train", "--model", "2dscn", "--nodes", "30", "--seed", "5", "-q",
		"--npy-images", p("train.npy"), "--npy-labels", p("train-labels.npy"), "-o", fromNPY)
	if !strings.Contains(out, "saved") {
		t.Fatalf("train said:\n%s", out)
	}
	a, _ := scn.Load(fromIDX)
	b, _ := scn.Load(fromNPY)
	if a == nil || b == nil || !reflect.DeepEqual(a.Params, b.Params) || !reflect.DeepEqual(a.Beta, b.Beta) {
		t.Fatal("the same images and labels as IDX and as .npy gave different models")
	}
	if !strings.Contains(b.Meta["source"], "train.npy") {
		t.Errorf("source %q", b.Meta["source"])
	}
	// The test set as IDX (bytes) and as a .npz (float32, flat, shape by
	// flags): the same evaluation.
	viaIDX := evalJSON(t, fromNPY, "--idx-images", p("test-images"), "--idx-labels", p("test-labels"))
	viaNPZ := evalJSON(t, fromNPY, "--npz", p("test.npz"), "--rows", "28", "--cols", "28")
	if !reflect.DeepEqual(viaIDX, viaNPZ) || viaIDX["accuracy"] == nil {
		t.Errorf("eval on IDX: %v\neval on npz: %v", viaIDX, viaNPZ)
	}
	// A flat square image needs no shape flags; arrays chosen by name.
	if again := evalJSON(t, fromNPY, "--npz", p("test.npz"), "--npz-x", "x", "--npz-y", "y"); !reflect.DeepEqual(again, viaIDX) {
		t.Errorf("eval with array names: %v", again)
	}
	// compare takes both halves from NumPy files.
	out = ok(t, "compare", "--trials", "1", "--nodes", "10", "-q", "--models", "2dscn,rvfl",
		"--npy-images", p("train.npy"), "--npy-labels", p("train-labels.npy"), "--test-npz", p("test.npz"))
	if !strings.Contains(out, "2DSCN") || !strings.Contains(out, "RVFL") {
		t.Errorf("compare said:\n%s", out)
	}

	// Regression: float targets from .npy, evaluated on the npz's array t.
	reg := p("reg.scn")
	ok(t, "train", "--model", "2drvfl", "--nodes", "30", "-q", "--npy-images", p("train.npy"), "--npy-targets", p("train-targets.npy"), "-o", reg)
	ev := evalJSON(t, reg, "--npz", p("test.npz"), "--npz-targets", "t")
	if rmse, _ := ev["rmse"].(float64); ev["accuracy"] != nil || !(rmse > 0 && rmse < 1) {
		t.Errorf("regression eval: %v", ev)
	}
}

// TestNumPyBadInput checks that each kind of bad NumPy input gets a
// one-line error.
func TestNumPyBadInput(t *testing.T) {
	dir, train, test := files(t)
	numpyFiles(t, dir, train, test)
	p := func(name string) string { return filepath.Join(dir, name) }
	model := p("m.scn")
	ok(t, "train", "--model", "rvfl", "--nodes", "10", "-q", "--npz", p("test.npz"), "-o", model)
	os.WriteFile(p("corrupt.npy"), []byte("\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'\n"), 0o644)
	nan := &npy.Array{Shape: []int{1, 2, 2}, Data: []float32{0, float32(math.NaN()), 0, 0}}
	npy.WriteFile(p("nan.npy"), nan)
	npy.WriteFile(p("one-label.npy"), &npy.Array{Shape: []int{1}, Data: []int64{1}})
	npy.WriteFile(p("frac.npy"), &npy.Array{Shape: []int{train.Len()}, Data: make([]float64, train.Len())})
	dict := "{'descr': '|u1', 'fortran_order': False, 'shape': (100000000, 100, 100), }\n"
	big := append([]byte("\x93NUMPY\x01\x00"), byte(len(dict)), 0)
	os.WriteFile(p("huge.npy"), append(append(big, dict...), make([]byte, 1000)...), 0o644)
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"train", "--npy-labels", p("train-labels.npy")}, "need --npy-images", exitUsage},
		{[]string{"train", "--npy-images", p("train.npy")}, "needs --npy-labels", exitUsage},
		{[]string{"train", "--npy-images", p("train.npy"), "--npy-labels", p("train-labels.npy"), "--npy-targets", p("train-targets.npy")}, "not both", exitUsage},
		{[]string{"train", "--npy-images", p("train.npy"), "--npz", p("test.npz")}, "give one data source", exitUsage},
		{[]string{"train", "--npy-images", p("train.npy"), "--idx-images", p("test-images")}, "give one data source", exitUsage},
		{[]string{"train", "--npz-x", "images"}, "there is none", exitUsage},
		{[]string{"train", "--npz", p("test.npz"), "--npz-y", "y", "--npz-targets", "t"}, "not both", exitUsage},
		{[]string{"train", "--npz", p("test.npz"), "--npz-x", "images"}, `no array "images" (it has x, y, t)`, exitError},
		{[]string{"train", "--npz", p("test.npz"), "--rows", "10", "--cols", "78"}, "not 10 x 78", exitError},
		{[]string{"train", "--npy-images", p("corrupt.npy"), "--npy-labels", p("train-labels.npy")}, "corrupt.npy", exitError},
		{[]string{"train", "--npy-images", p("huge.npy"), "--npy-labels", p("train-labels.npy")}, "header claims 1000000000000 elements", exitError},
		{[]string{"train", "--npy-images", p("nan.npy"), "--npy-labels", p("one-label.npy")}, "non-finite", exitError},
		{[]string{"train", "--npy-images", p("train.npy"), "--npy-labels", p("one-label.npy")}, "labels or targets have shape [1]", exitError},
		{[]string{"train", "--npy-images", p("train.npy"), "--npy-labels", p("missing.npy")}, "missing.npy", exitError},
		{[]string{"train", "--npz", p("train.npy")}, "not a zip", exitError},
		{[]string{"eval", model, "--npy-images", p("train.npy"), "--npy-targets", p("train-targets.npy")}, "", exitError},
		{[]string{"eval", model, "--npz", p("test.npz"), "--rows", "28", "--cols", "27"}, "not 28 x 27", exitError},
	} {
		out, code := failsCode(t, c.args...)
		if !strings.Contains(out, c.want) || code != c.code {
			t.Errorf("scn %s: exit %d, %q; want exit %d and %q", strings.Join(c.args, " "), code, out, c.code, c.want)
		}
	}
}

// TestExportCommand exports a model in both formats through the binary
// and checks the files; where onnxruntime-node is installed, it runs the
// ONNX file on PNG files and compares with scn predict.
func TestExportCommand(t *testing.T) {
	dir, _, _ := files(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	model := p("m.scn")
	ok(t, "train", "--model", "2dscn", "--nodes", "25", "--seed", "2", "-q", "--preset", "paper", "--activation", "tanh",
		"--idx-images", p("train-images.gz"), "--idx-labels", p("train-labels.gz"), "-o", model)
	m, err := scn.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	out := ok(t, "export", model, "--format", "onnx", "-o", p("m.onnx"))
	if !strings.Contains(out, "wrote "+p("m.onnx")) || !strings.Contains(out, fmt.Sprintf("2DSCN, 28 x 28 input, 10 outputs, %d nodes", m.Nodes())) {
		t.Errorf("export said %q", out)
	}
	raw, err := os.ReadFile(p("m.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	var mp pb.ModelProto
	if err := proto.Unmarshal(raw, &mp); err != nil || mp.GetGraph().GetInput()[0].GetName() != "x" {
		t.Fatalf("exported ONNX: %v", err)
	}
	ok(t, "export", model, "--expand", "-o", p("expanded.onnx"))
	raw, _ = os.ReadFile(p("expanded.onnx"))
	var ex pb.ModelProto
	if err := proto.Unmarshal(raw, &ex); err != nil || ex.GetGraph().GetNode()[0].GetOpType() != "Unsqueeze" {
		t.Errorf("--expand: %v, first node %v", err, ex.GetGraph().GetNode()[0])
	}
	// The format from the extension, and the default name.
	ok(t, "export", model, "-o", p("m.npz"))
	ok(t, "export", model, "--format", "NPZ")
	for _, f := range []string{"m.npz"} {
		arrays, err := npy.ReadNPZFile(p(f))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(arrays["beta"].Data, m.Beta) || !reflect.DeepEqual(arrays["b"].Data, m.Bias) || fmt.Sprint(arrays["activation"].Data) != "[tanh]" {
			t.Errorf("%s does not hold the model's weights", f)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export", model}, "give --format onnx or npz"},
		{[]string{"export", model, "--format", "pt"}, `--format "pt"`},
		{[]string{"export", model, "--format", "npz", "--expand"}, "--expand applies to --format onnx only"},
		{[]string{"export", model, "-o", p("m.txt")}, "give --format"},
		{[]string{"export", model, "--format", "onnx", "-o", model}, "overwrite the model"},
		{[]string{"export", p("missing.scn"), "--format", "onnx"}, "no such file"},
		{[]string{"export", p("m.onnx"), "--format", "npz"}, "not a model file"},
		{[]string{"export", model, model, "--format", "onnx"}, "one model"},
		{[]string{"export", model, "--format", "onnx", "-o", p("no/such/dir/m.onnx")}, "no/such/dir"},
	} {
		if out := fails(t, c.args...); !strings.Contains(out, c.want) {
			t.Errorf("scn %s: %q, want %q", strings.Join(c.args, " "), out, c.want)
		}
	}

	// onnxruntime on three PNG files against scn predict.
	node, err := exec.LookPath("node")
	script, _ := filepath.Abs(filepath.Join("..", "..", "export", "testdata", "onnxcheck", "run.js"))
	if _, errORT := os.Stat(filepath.Join(filepath.Dir(script), "node_modules", "onnxruntime-node")); err != nil || errORT != nil {
		t.Log("node or onnxruntime-node absent: the exported file is not run here (the export package's tests run it)")
		return
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "folder", "*", "*.png"))
	pngs = pngs[:3]
	prep, _ := recordedPreprocess(m)
	var x []byte
	for _, f := range pngs {
		pix, _, _, err := dataset.LoadImageFile(f, prep)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range pix {
			x = binenc.LittleEndian.AppendUint32(x, math.Float32bits(v))
		}
	}
	os.WriteFile(p("x.f32"), x, 0o644)
	res, err := exec.Command(node, script, p("m.onnx"), p("x.f32"), strconv.Itoa(len(pngs)), "28", "28").Output()
	if err != nil {
		t.Fatalf("onnxruntime: %v", err)
	}
	var got struct {
		Outputs map[string]struct{ Data []float64 } `json:"outputs"`
	}
	if err := json.Unmarshal(res, &got); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(ok(t, append([]string{"predict", model, "--top", "10"}, pngs...)...)), "\n")
	for i, line := range lines {
		// predict: path, class, then class=score for the top 10.
		fields := strings.Split(line, "\t")
		if fields[1] != m.Classes[int(got.Outputs["class"].Data[i])] {
			t.Errorf("%s: predict says %s, onnxruntime %v", pngs[i], fields[1], got.Outputs["class"].Data[i])
		}
		for _, f := range fields[2:] {
			name, score, _ := strings.Cut(f, "=")
			want, _ := strconv.ParseFloat(score, 64)
			q := indexOf(m.Classes, name)
			if v := got.Outputs["y"].Data[i*m.M+q]; math.Abs(v-want) > 0.0005 { // predict prints 3 decimals
				t.Errorf("%s class %s: predict %v, onnxruntime %v", pngs[i], name, want, v)
			}
		}
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
