package export

import (
	"fmt"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/internal/local"
	pb "github.com/scn2d/scn/internal/onnxpb"
)

// secondNodes adds the graph of the second layer of local nodes of a
// two-layer model (scn.LocalSecond) and returns the name of its pooled
// outputs (N x F2*per, before the standardisation). maps are the first
// layer's activated maps (N x F x h x w: g(z), then g(-z) two-sided). Each
// is pooled between the layers (MaxPool or AveragePool over Window x
// Window windows every Stride positions, no padding: Predict's windows);
// two-sided, the two sides are interleaved (Unsqueeze, Concat, Reshape)
// so that filter j's maps are planes 2j and 2j+1, as Predict orders them.
// The second layer's filters are then applied as Predict applies them: a
// 1D learner's as one Conv of the full weights (F2 x P x k2 x k2), a 2D
// learner's in their separable form (u v^T times one weight per plane): a
// 1 x 1 Conv mixing the planes by w, then a grouped Conv of each mixed map
// by v along its rows (1 x k2) and one by u along its columns (k2 x 1,
// with the biases), the padding k2/2 split between them; then the
// activation (and, two-sided, that of the negated map) and the pooling
// over the layer's p x p regions (gridPool).
func secondNodes(g *graph, m *scn.Model, act string, maps []string, h, w int) string {
	geo := m.Local.Geometry
	s, b := geo.Second, *m.Local.Second
	op := "MaxPool"
	if s.MidPooling == scn.PoolAvg {
		op = "AveragePool"
	}
	var mid []string
	for _, mp := range maps {
		g.node(op, []string{mp}, mp+"_mid", []*pb.AttributeProto{
			intsAttr("kernel_shape", s.Window, s.Window), intsAttr("strides", s.Stride, s.Stride),
		})
		mid = append(mid, mp+"_mid")
	}
	hp, wp := (h-s.Window)/s.Stride+1, (w-s.Window)/s.Stride+1
	planes := mid[0]
	if len(mid) == 2 {
		for _, mp := range mid {
			g.node("Unsqueeze", []string{mp, "axis2"}, mp+"_u", nil)
		}
		g.node("Concat", []string{mid[0] + "_u", mid[1] + "_u"}, "planes5", []*pb.AttributeProto{intAttr("axis", 2)})
		g.int64s("planes_shape", []int64{0, -1, int64(hp), int64(wp)}, 4)
		g.node("Reshape", []string{"planes5", "planes_shape"}, "planes", nil)
		planes = "planes"
	}
	p := geo.Filters * geo.Sides()
	k2, f2, pad := s.Size, b.Filters(), s.Size/2
	g.float32s("W2_b", b.Bias, f2)
	if m.Kind.Input == scn.Matrix {
		sep := local.SepOf(b.Params, k2, f2, p)
		wmix := sep.W
		if wmix == nil { // one plane: u v^T alone
			wmix = make([]float32, f2)
			for j := range wmix {
				wmix[j] = 1
			}
		}
		g.float32s("W2_w", wmix, f2, p, 1, 1)
		g.float32s("W2_v", sep.V, f2, 1, 1, k2)
		g.float32s("W2_u", sep.U, f2, 1, k2, 1)
		g.node("Conv", []string{planes, "W2_w"}, "Z2_mix", []*pb.AttributeProto{intsAttr("kernel_shape", 1, 1)})
		g.node("Conv", []string{"Z2_mix", "W2_v"}, "Z2_v", []*pb.AttributeProto{
			intsAttr("kernel_shape", 1, k2), intsAttr("pads", 0, pad, 0, pad), intAttr("group", int64(f2)),
		})
		g.node("Conv", []string{"Z2_v", "W2_u", "W2_b"}, "Z2", []*pb.AttributeProto{
			intsAttr("kernel_shape", k2, 1), intsAttr("pads", pad, 0, pad, 0), intAttr("group", int64(f2)),
		})
	} else {
		g.float32s("W2", m.SecondWeights(), f2, p, k2, k2)
		g.node("Conv", []string{planes, "W2", "W2_b"}, "Z2", []*pb.AttributeProto{
			intsAttr("kernel_shape", k2, k2), intsAttr("pads", pad, pad, pad, pad), intsAttr("strides", 1, 1),
		})
	}
	sides := []string{"P2"}
	g.node(act, []string{"Z2"}, "P2", nil)
	if geo.TwoSided {
		g.node("Neg", []string{"Z2"}, "NZ2", nil)
		g.node(act, []string{"NZ2"}, "Q2", nil)
		sides = append(sides, "Q2")
	}
	h2, w2 := hp+2*pad-k2+1, wp+2*pad-k2+1
	return gridPool(g, func(x string) string { return x + "_second" }, sides, h2, w2, geo.Pool, geo.Pooling)
}

// checkSecond reports whether a two-layer model's second layer agrees
// with its geometry (nil for one-layer models).
func checkSecond(m *scn.Model) error {
	ll := m.Local
	s := ll.Geometry.Second
	switch {
	case s == nil && ll.Second == nil:
		return nil
	case s == nil || ll.Second == nil:
		return fmt.Errorf("export: a second layer of local filters without its geometry, or the reverse")
	case len(ll.Banks) != 1:
		return fmt.Errorf("export: a second layer of local filters after %d banks, want one", len(ll.Banks))
	}
	b := ll.Second
	p := ll.Geometry.Filters * ll.Geometry.Sides()
	np := p * s.Size * s.Size
	if m.Kind.Input == scn.Matrix {
		np = 2*s.Size + p
		if p == 1 {
			np = 2 * s.Size
		}
	}
	switch {
	case b.Size != s.Size:
		return fmt.Errorf("export: second layer of %d x %d filters, the geometry says %d", b.Size, b.Size, s.Size)
	case len(b.Params) != b.Filters()*np:
		return fmt.Errorf("export: second layer of %d parameters for %d filters of %d", len(b.Params), b.Filters(), np)
	case ll.Banks[0].Filters() != ll.Geometry.Filters:
		return fmt.Errorf("export: first layer of %d filters under a second layer, the geometry says %d", ll.Banks[0].Filters(), ll.Geometry.Filters)
	case b.Filters() == 0 && !s.Concat:
		return fmt.Errorf("export: a second layer of no filter whose first layer's outputs are not kept")
	}
	return nil
}
