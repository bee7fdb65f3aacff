package export

import (
	"fmt"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/npy"
)

// NPZ returns the model's arrays as numpy.savez would store them (see the
// package documentation for the names). The arrays share no memory with m.
func NPZ(m *scn.Model) ([]npy.Named, error) {
	if err := check(m); err != nil {
		return nil, err
	}
	if m.Local != nil {
		return npzLocal(m)
	}
	l, d1, d2, ch := len(m.Bias), m.Rows, m.Cols, m.Chans()
	var out []npy.Named
	add := func(name string, data any, shape ...int) {
		out = append(out, npy.Named{Name: name, Array: &npy.Array{Shape: shape, Data: data}})
	}
	if m.Kind.Input == scn.Matrix {
		np := m.ParamsPerNode()
		u := make([]float32, 0, l*d1)
		v := make([]float32, 0, l*d2)
		w := make([]float32, 0, l*ch)
		for j := 0; j < l; j++ {
			p := m.Params[j*np : (j+1)*np]
			u = append(u, p[:d1]...)
			v = append(v, p[d1:d1+d2]...)
			w = append(w, p[d1+d2:]...)
		}
		add("u", u, l, d1)
		add("v", v, l, d2)
		if ch > 1 {
			add("w", w, l, ch)
		}
	} else {
		add("W", append([]float32(nil), m.Params...), l, m.Dim())
	}
	add("b", append([]float32(nil), m.Bias...), l)
	add("beta", append([]float64(nil), m.Beta...), m.Nodes(), m.M)
	if m.IsDeep() {
		prev := l
		for k, ly := range m.Deep {
			n := fmt.Sprint(k + 2)
			add("W"+n, append([]float32(nil), ly.Params...), ly.Nodes(), prev)
			add("b"+n, append([]float32(nil), ly.Bias...), ly.Nodes())
			prev = ly.Nodes()
		}
		var sizes []int64
		for _, c := range m.LayerSizes() {
			sizes = append(sizes, int64(c))
		}
		add("layers", sizes, len(sizes))
	}
	if m.Direct != nil {
		add("direct", append([]float64(nil), m.Direct.Beta...), m.DirectDim(), m.M)
		add("direct_pool", []int64{int64(m.Direct.Pool)})
	}
	if ch > 1 {
		add("shape", []int64{int64(ch), int64(d1), int64(d2)}, 3)
	} else {
		add("shape", []int64{int64(d1), int64(d2)}, 2)
	}
	add("kind", []string{m.Kind.String()})
	add("activation", []string{m.Activation.String()})
	add("classes", append([]string{}, m.Classes...), len(m.Classes))
	add("preprocessing", []string{preprocessing(m)})
	out = append(out, calibArrays(m)...)
	return out, nil
}

// WriteNPZ writes the model's arrays to path as a .npz file (deflated, as
// numpy.savez_compressed), atomically.
func WriteNPZ(path string, m *scn.Model) error {
	arrays, err := NPZ(m)
	if err != nil {
		return err
	}
	return npy.WriteNPZFile(path, true, arrays...)
}
