package export

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/scn2d/scn"
	pb "github.com/scn2d/scn/internal/onnxpb"
	"google.golang.org/protobuf/proto"
)

// ONNXOptions choose between equivalent graphs.
type ONNXOptions struct {
	// Expand makes a 2D model's graph form the rank-one weights
	// vec(u_j v_j^T) from the stored u and v (an outer product, which
	// runtimes fold once when they load the model) and apply them with one
	// MatMul, as Model.Predict does, instead of keeping u^T X v in the
	// computation. The file is as small (it stores u and v only); in
	// onnxruntime it runs about 2.5 times faster and needs no N x d1 x L
	// intermediate tensor (measured in the README). Vector models ignore it.
	Expand bool
}

// ONNX returns the model as a serialized ONNX ModelProto (see the package
// documentation for the graph). The same model gives the same bytes.
func ONNX(m *scn.Model, opt ONNXOptions) ([]byte, error) {
	mp, err := onnxModel(m, opt.Expand)
	if err != nil {
		return nil, err
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(mp)
	if err != nil {
		return nil, fmt.Errorf("export: encode ONNX: %w", err)
	}
	return b, nil
}

// WriteONNX writes the model to path as an ONNX file, atomically.
func WriteONNX(path string, m *scn.Model, opt ONNXOptions) error {
	b, err := ONNX(m, opt)
	if err != nil {
		return err
	}
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// onnxModel builds the ModelProto of m.
func onnxModel(m *scn.Model, expand bool) (*pb.ModelProto, error) {
	if err := check(m); err != nil {
		return nil, err
	}
	if m.Local != nil {
		return onnxLocalModel(m), nil
	}
	l, d1, d2, ch, d := len(m.Bias), m.Rows, m.Cols, m.Chans(), m.Dim()
	g := &graph{}
	var z string // N x L pre-activation, before the bias
	yh := "y"    // the hidden nodes' outputs (y itself without direct links)
	if m.Direct != nil {
		yh = "yh"
	}
	switch {
	case l == 0:
		// Direct links only (a ridge model on the features).
	case m.Kind.Input == scn.Matrix:
		matrixNodes(g, m, expand)
		z = "Z"
	default:
		wt := make([]float32, d*l)
		for j := 0; j < l; j++ {
			for i, w := range m.Params[j*d : (j+1)*d] {
				wt[i*l+j] = w
			}
		}
		g.float32s("Wt", wt, d, l)
		g.int64s("flat_shape", []int64{-1, int64(d)}, 2)
		g.node("Reshape", []string{"x", "flat_shape"}, "F", nil)
		g.node("MatMul", []string{"F", "Wt"}, "Z", nil)
		z = "Z"
	}
	if l > 0 {
		g.float32s("b", m.Bias, l)
		g.float64s("beta", m.Beta, m.Nodes(), m.M)
		g.node("Add", []string{z, "b"}, "A", nil)
		act := map[scn.Activation]string{scn.Sigmoid: "Sigmoid", scn.Tanh: "Tanh", scn.ReLU: "Relu"}[m.Activation]
		g.node(act, []string{"A"}, "H", nil)
		h := g.deepLayers(m, act)
		g.node("Cast", []string{h}, "H64", []*pb.AttributeProto{intAttr("to", int64(pb.TensorProto_DOUBLE))})
		g.node("MatMul", []string{"H64", "beta"}, yh, nil)
	}
	if m.Direct != nil {
		g.directLinks(m, l > 0)
	}
	outputs := []*pb.ValueInfoProto{tensorInfo("y", pb.TensorProto_DOUBLE, "N", m.M)}
	top := g.calibNodes(m, &outputs) // what class is the arg-max of
	if m.IsClassifier() {
		g.node("ArgMax", []string{top}, "class", []*pb.AttributeProto{intAttr("axis", 1), intAttr("keepdims", 0)})
		outputs = append(outputs, tensorInfo("class", pb.TensorProto_INT64, "N"))
	}

	if m.IsDeep() {
		l = m.Nodes()
	}
	doc := fmt.Sprintf("%s network with %d %s nodes on %d x %d images, %d outputs. Input x: N x %d x %d float32 pixels in [0, 1] after the preprocessing in metadata_props (preprocess). Output y: N x %d float64", m.Kind.Title(), l, m.Activation, d1, d2, m.M, d1, d2, m.M)
	input := tensorInfo("x", pb.TensorProto_FLOAT, "N", d1, d2)
	if ch > 1 {
		doc = fmt.Sprintf("%s network with %d %s nodes on %d x %d images of %d channels, %d outputs. Input x: N x %d x %d x %d float32 pixels in [0, 1] (channel planes, N x C x H x W) after the preprocessing in metadata_props (preprocess). Output y: N x %d float64", m.Kind.Title(), l, m.Activation, d1, d2, ch, m.M, ch, d1, d2, m.M)
		input = tensorInfo("x", pb.TensorProto_FLOAT, "N", ch, d1, d2)
	}
	doc += calibDoc(m)
	if m.IsClassifier() {
		doc += "; class: N int64, the index of the largest output into metadata_props (classes)"
	}
	if m.Direct != nil {
		doc += fmt.Sprintf("; with direct links: y adds the %d input features (the pixels averaged over %d x %d blocks, AveragePool) times direct (%d x %d float64)", m.DirectDim(), m.Direct.Pool, m.Direct.Pool, m.DirectDim(), m.M)
	}
	props := []*pb.StringStringEntryProto{
		entry("kind", m.Kind.String()),
		entry("activation", m.Activation.String()),
		entry("rows", strconv.Itoa(d1)),
		entry("cols", strconv.Itoa(d2)),
		entry("nodes", strconv.Itoa(l)),
	}
	if ch > 1 {
		props = append(props, entry("channels", strconv.Itoa(ch)))
	}
	if m.Direct != nil {
		props = append(props, entry("direct_pool", strconv.Itoa(m.Direct.Pool)))
	}
	return g.model(m, doc, input, outputs, props), nil
}

// matrixNodes adds the nodes that compute Z (N x L, before the bias) of a
// 2D model: u^T X v kept, or the expanded weights (see the package
// documentation); with C > 1 channels, sum_c w_c u^T X_c v.
func matrixNodes(g *graph, m *scn.Model, expand bool) {
	l, d1, d2, ch, d := len(m.Bias), m.Rows, m.Cols, m.Chans(), m.Dim()
	// Params: per node u (d1), v (d2), then w (C) with C > 1. V is d2 x L
	// (column j = v_j), Ut is d1 x L (column j = u_j), Wc is C x L.
	np := m.ParamsPerNode()
	v := make([]float32, d2*l)
	ut := make([]float32, d1*l)
	wc := make([]float32, ch*l)
	for j := 0; j < l; j++ {
		p := m.Params[j*np : (j+1)*np]
		for a := 0; a < d1; a++ {
			ut[a*l+j] = p[a]
		}
		for b := 0; b < d2; b++ {
			v[b*l+j] = p[d1+b]
		}
		for c := 0; c < ch && ch > 1; c++ {
			wc[c*l+j] = p[d1+d2+c]
		}
	}
	g.float32s("V", v, d2, l)
	g.float32s("Ut", ut, d1, l)
	if ch > 1 {
		g.float32s("Wc", wc, ch, l)
	}
	if expand {
		g.int64s("axis0", []int64{0}, 1)
		g.int64s("axis1", []int64{1}, 1)
		g.int64s("w_shape", []int64{int64(d), int64(l)}, 2)
		g.int64s("flat_shape", []int64{-1, int64(d)}, 2)
		g.node("Unsqueeze", []string{"Ut", "axis1"}, "U3", nil)
		g.node("Unsqueeze", []string{"V", "axis0"}, "V3", nil)
		uv := "UV"
		g.node("Mul", []string{"U3", "V3"}, uv, nil) // d1 x d2 x L
		if ch > 1 {
			g.int64s("axes12", []int64{1, 2}, 2)
			g.node("Unsqueeze", []string{"Wc", "axes12"}, "W4", nil) // C x 1 x 1 x L
			g.node("Mul", []string{"W4", "UV"}, "UVW", nil)          // C x d1 x d2 x L
			uv = "UVW"
		}
		g.node("Reshape", []string{uv, "w_shape"}, "Wt", nil)
		g.node("Reshape", []string{"x", "flat_shape"}, "F", nil)
		g.node("MatMul", []string{"F", "Wt"}, "Z", nil)
		return
	}
	g.node("MatMul", []string{"x", "V"}, "XV", nil) // N [x C] x d1 x L
	g.node("Mul", []string{"XV", "Ut"}, "UXV", nil)
	if ch == 1 {
		g.int64s("reduce_axes", []int64{1}, 1)
		g.node("ReduceSum", []string{"UXV", "reduce_axes"}, "Z", []*pb.AttributeProto{intAttr("keepdims", 0)})
		return
	}
	g.int64s("reduce_rows", []int64{2}, 1)
	g.int64s("reduce_chans", []int64{1}, 1)
	g.node("ReduceSum", []string{"UXV", "reduce_rows"}, "ZC", []*pb.AttributeProto{intAttr("keepdims", 0)}) // N x C x L
	g.node("Mul", []string{"ZC", "Wc"}, "WZC", nil)
	g.node("ReduceSum", []string{"WZC", "reduce_chans"}, "Z", []*pb.AttributeProto{intAttr("keepdims", 0)})
}

// deepLayers adds a deep model's further layers after the first layer's
// outputs H and returns the name of every layer's outputs side by side
// ("H" itself for a one-layer model).
func (g *graph) deepLayers(m *scn.Model, act string) string {
	if !m.IsDeep() {
		return "H"
	}
	prev, in := len(m.Bias), "H"
	all := []string{"H"}
	for k, ly := range m.Deep {
		c := ly.Nodes()
		wt := make([]float32, prev*c)
		for j := 0; j < c; j++ {
			for i, w := range ly.Params[j*prev : (j+1)*prev] {
				wt[i*c+j] = w
			}
		}
		n := strconv.Itoa(k + 2)
		g.float32s("W"+n+"_t", wt, prev, c)
		g.float32s("b"+n, ly.Bias, c)
		g.node("MatMul", []string{in, "W" + n + "_t"}, "Z"+n, nil)
		g.node("Add", []string{"Z" + n, "b" + n}, "A"+n, nil)
		g.node(act, []string{"A" + n}, "H"+n, nil)
		in, prev = "H"+n, c
		all = append(all, in)
	}
	g.node("Concat", all, "Hall", []*pb.AttributeProto{intAttr("axis", 1)})
	return "Hall"
}

// graph collects nodes and initializers.
type graph struct {
	nodes []*pb.NodeProto
	inits []*pb.TensorProto
}

func (g *graph) node(op string, in []string, out string, attrs []*pb.AttributeProto) {
	g.nodes = append(g.nodes, &pb.NodeProto{
		OpType:    proto.String(op),
		Name:      proto.String(fmt.Sprintf("%s_%d", op, len(g.nodes))),
		Input:     in,
		Output:    []string{out},
		Attribute: attrs,
	})
}

func dims(shape []int) []int64 {
	out := make([]int64, len(shape))
	for i, d := range shape {
		out[i] = int64(d)
	}
	return out
}

// float32s adds a float32 initializer stored as little-endian raw data.
func (g *graph) float32s(name string, v []float32, shape ...int) {
	raw := make([]byte, 0, 4*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
	}
	g.raw(name, pb.TensorProto_FLOAT, raw, shape)
}

// float64s adds a float64 initializer stored as little-endian raw data.
func (g *graph) float64s(name string, v []float64, shape ...int) {
	raw := make([]byte, 0, 8*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(x))
	}
	g.raw(name, pb.TensorProto_DOUBLE, raw, shape)
}

// raw adds an initializer of the element type t from its little-endian bytes.
func (g *graph) raw(name string, t pb.TensorProto_DataType, raw []byte, shape []int) {
	g.inits = append(g.inits, &pb.TensorProto{Name: proto.String(name), Dims: dims(shape),
		DataType: proto.Int32(int32(t)), RawData: raw})
}

// int64s adds an int64 initializer (shapes and axes).
func (g *graph) int64s(name string, v []int64, shape ...int) {
	g.inits = append(g.inits, &pb.TensorProto{Name: proto.String(name), Dims: dims(shape),
		DataType: proto.Int32(int32(pb.TensorProto_INT64)), Int64Data: v})
}

func intAttr(name string, v int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: proto.String(name), Type: pb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

// tensorInfo describes a graph input or output: its element type and
// shape, the first dimension named batch (a symbolic size).
func tensorInfo(name string, t pb.TensorProto_DataType, batch string, rest ...int) *pb.ValueInfoProto {
	dim := []*pb.TensorShapeProto_Dimension{{Value: &pb.TensorShapeProto_Dimension_DimParam{DimParam: batch}}}
	for _, d := range rest {
		dim = append(dim, &pb.TensorShapeProto_Dimension{Value: &pb.TensorShapeProto_Dimension_DimValue{DimValue: int64(d)}})
	}
	return &pb.ValueInfoProto{
		Name: proto.String(name),
		Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{
			ElemType: proto.Int32(int32(t)),
			Shape:    &pb.TensorShapeProto{Dim: dim},
		}}},
	}
}
