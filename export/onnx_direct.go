package export

import (
	"github.com/scn2d/scn"
	pb "github.com/scn2d/scn/internal/onnxpb"
)

// directLinks adds the direct links' part of y: the input's features
// (the pixels, or their p x p block means by AveragePool without padding,
// as scn.DirectLink defines them) in float64 times the direct weights,
// added to the hidden nodes' outputs yh when there are hidden nodes.
func (g *graph) directLinks(m *scn.Model, hidden bool) {
	p, dd := m.Direct.Pool, m.DirectDim()
	g.float64s("direct", m.Direct.Beta, dd, m.M)
	src := "x"
	if p > 1 {
		g.int64s("direct_img_shape", []int64{-1, int64(m.Chans()), int64(m.Rows), int64(m.Cols)}, 4)
		g.node("Reshape", []string{"x", "direct_img_shape"}, "XI", nil)
		g.node("AveragePool", []string{"XI"}, "XP", []*pb.AttributeProto{
			intsAttr("kernel_shape", p, p), intsAttr("strides", p, p),
		})
		src = "XP"
	}
	g.int64s("direct_shape", []int64{-1, int64(dd)}, 2)
	g.node("Reshape", []string{src, "direct_shape"}, "XF", nil)
	g.node("Cast", []string{"XF"}, "XF64", []*pb.AttributeProto{intAttr("to", int64(pb.TensorProto_DOUBLE))})
	if !hidden {
		g.node("MatMul", []string{"XF64", "direct"}, "y", nil)
		return
	}
	g.node("MatMul", []string{"XF64", "direct"}, "yd", nil)
	g.node("Add", []string{"yh", "yd"}, "y", nil)
}
