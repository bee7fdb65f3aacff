package export

import (
	"encoding/json"
	"fmt"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/npy"
)

// npzLocal returns the arrays of a model of local nodes: per bank i (filter
// side k_i, F_i filters) local<i>_u, local<i>_v (F_i x k_i) and, with C > 1
// planes, local<i>_w (F_i x C) for a 2D learner, or local<i>_W (F_i x C x
// k_i x k_i) for a 1D one; local<i>_b (F_i); with whitening (geometry
// "whiten": true), local<i>_whiten (C k_i^2 x C k_i^2: the weights the
// bank applies to an image's patches are this matrix times the filter's
// full weights, (u_a v_b) w_c for a 2D learner); local_mean and local_scale (L,
// when standardised); beta (L x M); local, the geometry as JSON (sizes,
// filters, stride, pad per size, pool, pooling, two_sided, standardize,
// and for a two-layer model second: its geometry, with the arrays
// second_* of npzSecond); and the shape, kind, activation, classes and preprocessing of every
// export.
func npzLocal(m *scn.Model) ([]npy.Named, error) {
	var out []npy.Named
	add := func(name string, data any, shape ...int) {
		out = append(out, npy.Named{Name: name, Array: &npy.Array{Shape: shape, Data: data}})
	}
	ch, geo := m.Chans(), m.Local.Geometry
	var pads []int
	for i, b := range m.Local.Banks {
		k, f := b.Size, b.Filters()
		pads = append(pads, geo.PadFor(k))
		name := fmt.Sprintf("local%d_", i)
		if m.Kind.Input == scn.Matrix {
			np := 2*k + ch
			if ch == 1 {
				np = 2 * k
			}
			u, v, w := make([]float32, 0, f*k), make([]float32, 0, f*k), make([]float32, 0, f*ch)
			for j := 0; j < f; j++ {
				p := b.Params[j*np : (j+1)*np]
				u, v, w = append(u, p[:k]...), append(v, p[k:2*k]...), append(w, p[2*k:]...)
			}
			add(name+"u", u, f, k)
			add(name+"v", v, f, k)
			if ch > 1 {
				add(name+"w", w, f, ch)
			}
		} else {
			add(name+"W", append([]float32(nil), b.Params...), f, ch, k, k)
		}
		add(name+"b", append([]float32(nil), b.Bias...), f)
		if b.Whiten != nil {
			kk := ch * k * k
			add(name+"whiten", append([]float32(nil), b.Whiten...), kk, kk)
		}
	}
	second := npzSecond(m, add) // npz_local2.go
	if m.Local.Mean != nil {
		add("local_mean", append([]float32(nil), m.Local.Mean...), m.Nodes())
		add("local_scale", append([]float32(nil), m.Local.Scale...), m.Nodes())
	}
	add("beta", append([]float64(nil), m.Beta...), m.Nodes(), m.M)
	fields := map[string]any{
		"sizes": geo.Sizes, "filters": geo.Filters, "stride": geo.Stride, "pad": pads, "pool": geo.Pool,
		"pooling": geo.Pooling.String(), "two_sided": geo.TwoSided, "standardize": geo.Standardize,
		"whiten": geo.Whiten, "whiten_eps": geo.WhitenEps,
	}
	if second != nil {
		fields["second"] = second
	}
	geoJSON, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	add("local", []string{string(geoJSON)})
	if ch > 1 {
		add("shape", []int64{int64(ch), int64(m.Rows), int64(m.Cols)}, 3)
	} else {
		add("shape", []int64{int64(m.Rows), int64(m.Cols)}, 2)
	}
	add("kind", []string{m.Kind.String()})
	add("activation", []string{m.Activation.String()})
	add("classes", append([]string{}, m.Classes...), len(m.Classes))
	add("preprocessing", []string{preprocessing(m)})
	return out, nil
}
