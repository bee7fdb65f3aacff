package export

import (
	"fmt"
	"strconv"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/internal/local"
	pb "github.com/scn2d/scn/internal/onnxpb"
)

// localNodes adds the graph of a model of local nodes and returns the name
// of its standardised pooled outputs H (N x L float32). Per bank of filters
// of side k: Conv (the full weights F x C x k x k, the biases, the padding
// and stride), the activation (and, two-sided, the activation of the
// negated map), then per side the pooling over the p x p regions of the
// map (gridPool), laid out as Model.Predict lays them out and the banks
// side by side. A two-layer model's first layer's activated maps feed its
// second layer (secondNodes), whose pooled outputs follow the first
// layer's (or stand alone without Concat). Then (H - mean) / scale.
func localNodes(g *graph, m *scn.Model) string {
	geo := m.Local.Geometry
	d1, d2, ch := m.Rows, m.Cols, m.Chans()
	act := map[scn.Activation]string{scn.Sigmoid: "Sigmoid", scn.Tanh: "Tanh", scn.ReLU: "Relu"}[m.Activation]
	x := "x"
	if ch == 1 {
		g.int64s("x4_shape", []int64{-1, 1, int64(d1), int64(d2)}, 4)
		g.node("Reshape", []string{"x", "x4_shape"}, "x4", nil)
		x = "x4"
	}
	g.int64s("flat_map_shape", []int64{0, 0, -1}, 3)
	g.int64s("flat_rows_shape", []int64{0, -1}, 2)
	g.int64s("axis2", []int64{2}, 1)
	g.int64s("axes23", []int64{2, 3}, 2)
	var banks []string
	var firstMaps []string // a two-layer model's activated first-layer maps
	var fh, fw int         // and their size
	for i, b := range m.Local.Banks {
		if b.Filters() == 0 {
			continue
		}
		k, pad, f := b.Size, geo.PadFor(b.Size), b.Filters()
		spec := local.Spec{Size: k, Stride: geo.Stride, Pad: pad, Pool: geo.Pool, Pooling: geo.Pooling, TwoSided: geo.TwoSided}
		h, w := spec.MapSize(local.Shape{Rows: d1, Cols: d2, Chans: ch})
		n := func(s string) string { return fmt.Sprintf("%s_%d", s, i) }
		g.float32s(n("W"), m.LocalWeights(i), f, ch, k, k)
		g.float32s(n("B"), b.Bias, f)
		g.node("Conv", []string{x, n("W"), n("B")}, n("Z"), []*pb.AttributeProto{
			intsAttr("kernel_shape", k, k), intsAttr("pads", pad, pad, pad, pad), intsAttr("strides", geo.Stride, geo.Stride),
		})
		sides := []string{n("P")}
		g.node(act, []string{n("Z")}, n("P"), nil)
		if geo.TwoSided {
			g.node("Neg", []string{n("Z")}, n("NZ"), nil)
			g.node(act, []string{n("NZ")}, n("Q"), nil)
			sides = append(sides, n("Q"))
		}
		if geo.Second != nil {
			// The maps the second layer reads (secondNodes).
			firstMaps, fh, fw = sides, h, w
			if !geo.Second.Concat {
				continue
			}
		}
		banks = append(banks, gridPool(g, n, sides, h, w, geo.Pool, geo.Pooling))
	}
	if s := m.Local.Second; s != nil && s.Filters() > 0 {
		banks = append(banks, secondNodes(g, m, act, firstMaps, fh, fw))
	}
	hraw := banks[0]
	if len(banks) > 1 {
		hraw = "Hraw"
		g.node("Concat", banks, hraw, []*pb.AttributeProto{intAttr("axis", 1)})
	}
	if m.Local.Mean == nil {
		return hraw
	}
	l := m.Nodes()
	g.float32s("local_mean", m.Local.Mean, l)
	g.float32s("local_scale", m.Local.Scale, l)
	g.node("Sub", []string{hraw, "local_mean"}, "Hc", nil)
	g.node("Div", []string{"Hc", "local_scale"}, "H", nil)
	return "H"
}

// gridPool adds the pooling of the activated maps sides (N x F x h x w
// each: g(z), then g(-z) two-sided) over the p x p regions of the map and
// returns the name of the pooled outputs, N x F*per, laid out as
// Model.Predict lays them out (filter, then side and kind, then region):
// the averages as one MatMul of the flattened map by the h*w x p^2 matrix
// of 1/size on each region, the maxima as a ReduceMax of each region's
// Slice. n names the constants and outputs of this bank.
func gridPool(g *graph, n func(string) string, sides []string, h, w, p int, pooling scn.Pooling) string {
	if pooling != scn.PoolMax {
		// The regions' sums (a 0/1 matrix), then division by their
		// sizes, as Predict divides.
		sum := make([]float32, h*w*p*p)
		size := make([]float32, p*p)
		for gi := 0; gi < p; gi++ {
			r0, r1 := local.Region(gi, p, h)
			for gj := 0; gj < p; gj++ {
				c0, c1 := local.Region(gj, p, w)
				size[gi*p+gj] = float32((r1 - r0) * (c1 - c0))
				for r := r0; r < r1; r++ {
					for c := c0; c < c1; c++ {
						sum[(r*w+c)*p*p+gi*p+gj] = 1
					}
				}
			}
		}
		g.float32s(n("pool_sum"), sum, h*w, p*p)
		g.float32s(n("pool_size"), size, p*p)
	}
	var pooled []string // N x F x p^2 each, in Predict's order
	for _, s := range sides {
		if pooling != scn.PoolMax {
			flat := fmt.Sprintf("%s_flat", s)
			g.node("Reshape", []string{s, "flat_map_shape"}, flat, nil)
			g.node("MatMul", []string{flat, n("pool_sum")}, fmt.Sprintf("%s_sum", s), nil)
			g.node("Div", []string{fmt.Sprintf("%s_sum", s), n("pool_size")}, fmt.Sprintf("%s_avg", s), nil)
			pooled = append(pooled, fmt.Sprintf("%s_avg", s))
		}
		if pooling != scn.PoolAvg {
			var regions []string
			for gi := 0; gi < p; gi++ {
				r0, r1 := local.Region(gi, p, h)
				for gj := 0; gj < p; gj++ {
					c0, c1 := local.Region(gj, p, w)
					rn := fmt.Sprintf("%s_r%d_%d", s, gi, gj)
					g.int64s(rn+"_starts", []int64{int64(r0), int64(c0)}, 2)
					g.int64s(rn+"_ends", []int64{int64(r1), int64(c1)}, 2)
					g.node("Slice", []string{s, rn + "_starts", rn + "_ends", "axes23"}, rn+"_s", nil)
					g.node("ReduceMax", []string{rn + "_s"}, rn+"_m", []*pb.AttributeProto{intsAttr("axes", 2, 3), intAttr("keepdims", 0)})
					g.node("Unsqueeze", []string{rn + "_m", "axis2"}, rn, nil)
					regions = append(regions, rn)
				}
			}
			g.node("Concat", regions, fmt.Sprintf("%s_max", s), []*pb.AttributeProto{intAttr("axis", 2)})
			pooled = append(pooled, fmt.Sprintf("%s_max", s))
		}
	}
	all := pooled[0]
	if len(pooled) > 1 {
		all = n("pooled")
		g.node("Concat", pooled, all, []*pb.AttributeProto{intAttr("axis", 2)})
	}
	g.node("Reshape", []string{all, "flat_rows_shape"}, n("H"), nil)
	return n("H")
}

// intsAttr returns an attribute of integers.
func intsAttr(name string, v ...int) *pb.AttributeProto {
	vs := make([]int64, len(v))
	for i, x := range v {
		vs[i] = int64(x)
	}
	return &pb.AttributeProto{Name: &name, Type: pb.AttributeProto_INTS.Enum(), Ints: vs}
}

// onnxLocalModel builds the ModelProto of a model of local nodes: the
// graph of localNodes, then y = H beta in float64 and the class, with the
// metadata of every exported model.
func onnxLocalModel(m *scn.Model) *pb.ModelProto {
	g := &graph{}
	h := localNodes(g, m)
	g.float64s("beta", m.Beta, m.Nodes(), m.M)
	g.node("Cast", []string{h}, "H64", []*pb.AttributeProto{intAttr("to", int64(pb.TensorProto_DOUBLE))})
	g.node("MatMul", []string{"H64", "beta"}, "y", nil)
	outputs := []*pb.ValueInfoProto{tensorInfo("y", pb.TensorProto_DOUBLE, "N", m.M)}
	if m.IsClassifier() {
		g.node("ArgMax", []string{"y"}, "class", []*pb.AttributeProto{intAttr("axis", 1), intAttr("keepdims", 0)})
		outputs = append(outputs, tensorInfo("class", pb.TensorProto_INT64, "N"))
	}
	d1, d2, ch := m.Rows, m.Cols, m.Chans()
	doc := fmt.Sprintf("%s network of local nodes (%s; %d pooled %s outputs) on %d x %d images", m.Kind.Title(), &m.Local.Geometry, m.Nodes(), m.Activation, d1, d2)
	input := tensorInfo("x", pb.TensorProto_FLOAT, "N", d1, d2)
	if ch > 1 {
		doc += fmt.Sprintf(" of %d channels, %d outputs. Input x: N x %d x %d x %d float32 pixels in [0, 1] (channel planes, N x C x H x W)", ch, m.M, ch, d1, d2)
		input = tensorInfo("x", pb.TensorProto_FLOAT, "N", ch, d1, d2)
	} else {
		doc += fmt.Sprintf(", %d outputs. Input x: N x %d x %d float32 pixels in [0, 1]", m.M, d1, d2)
	}
	doc += fmt.Sprintf(" after the preprocessing in metadata_props (preprocess). Output y: N x %d float64", m.M)
	if m.IsClassifier() {
		doc += "; class: N int64, the index of the largest output into metadata_props (classes)"
	}
	props := []*pb.StringStringEntryProto{
		entry("kind", m.Kind.String()),
		entry("activation", m.Activation.String()),
		entry("rows", strconv.Itoa(d1)),
		entry("cols", strconv.Itoa(d2)),
		entry("nodes", strconv.Itoa(m.Nodes())),
		entry("local", m.Local.Geometry.String()),
	}
	if ch > 1 {
		props = append(props, entry("channels", strconv.Itoa(ch)))
	}
	return g.model(m, doc, input, outputs, props)
}

// checkLocal reports whether m is a complete model of local nodes.
func checkLocal(m *scn.Model) error {
	if err := checkSecond(m); err != nil {
		return err
	}
	if m.Rows < 1 || m.Cols < 1 || m.M < 1 || m.Nodes() < 1 {
		return fmt.Errorf("export: model of %d x %d inputs, %d outputs and %d pooled outputs", m.Rows, m.Cols, m.M, m.Nodes())
	}
	if len(m.Beta) != m.Nodes()*m.M {
		return fmt.Errorf("export: model with %d output weights for %d pooled outputs", len(m.Beta), m.Nodes())
	}
	if m.Classes != nil && len(m.Classes) != m.M {
		return fmt.Errorf("export: %d class names for %d outputs", len(m.Classes), m.M)
	}
	if err := m.Local.Geometry.ForImages(m.Rows, m.Cols, m.Chans()); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}
