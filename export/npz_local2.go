package export

import (
	"github.com/scn2d/scn"
	"github.com/scn2d/scn/internal/local"
)

// npzSecond adds the arrays of a two-layer model's second layer of local
// nodes (nothing for others): F2 filters of side k2 over the P planes the
// second layer reads (the first layer's activated maps pooled between the
// layers: filter j's g(z), then g(-z) two-sided), as second_u, second_v
// (F2 x k2) and second_w (F2 x P, when P > 1) for a 2D learner (filter j's
// weight for plane c, row a, column b: u_ja v_jb w_jc), second_W (F2 x P x
// k2 x k2) for a 1D one, and second_b (F2); the planes' standardisation is
// folded in. It returns the second layer's geometry for the "local" JSON
// (filters held, size, the pooling between the layers, concat, pad k2/2).
func npzSecond(m *scn.Model, add func(name string, data any, shape ...int)) map[string]any {
	s := m.Local.Geometry.Second
	if s == nil || m.Local.Second == nil {
		return nil
	}
	b := m.Local.Second
	k, f, p := b.Size, b.Filters(), m.Local.Geometry.Filters*m.Local.Geometry.Sides()
	if m.Kind.Input == scn.Matrix {
		sep := local.SepOf(b.Params, k, f, p)
		add("second_u", sep.U, f, k)
		add("second_v", sep.V, f, k)
		if p > 1 {
			add("second_w", sep.W, f, p)
		}
	} else {
		add("second_W", append([]float32(nil), b.Params...), f, p, k, k)
	}
	add("second_b", append([]float32(nil), b.Bias...), f)
	return map[string]any{"filters": f, "size": k, "pad": k / 2, "stride": 1, "planes": p, "mid_pool": s.Window,
		"mid_stride": s.Stride, "mid_pooling": s.MidPooling.String(), "concat": s.Concat}
}
