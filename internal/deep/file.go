package deep

import "github.com/scn2d/scn/internal/modelfile"

// The further layers in a model file's payload: after the first layer's
// weights, biases and output weights, each further layer's weights,
// biases and output weights in turn.

// Append appends the layers after a first layer of first nodes to a
// model file's payload b: each layer's weights, biases and output weights
// (its rows of beta, every layer's output weights, L x m).
func Append(b []byte, layers []Layer, beta []float64, first, m int) []byte {
	l1 := first
	for _, ly := range layers {
		b = modelfile.AppendFloat32s(b, ly.Params)
		b = modelfile.AppendFloat32s(b, ly.Bias)
		b = modelfile.AppendFloat64s(b, beta[l1*m:(l1+ly.Nodes())*m])
		l1 += ly.Nodes()
	}
	return b
}

// Read reads layers of the node counts given after a first layer of first
// nodes from r, their output weights into their rows of beta (L x m).
func Read(r *modelfile.PayloadReader, counts []int, beta []float64, first, m int) []Layer {
	var layers []Layer
	prev, off := first, first
	for _, c := range counts {
		ly := Layer{Params: r.F32(c * prev), Bias: r.F32(c)}
		r.F64(beta[off*m : (off+c)*m])
		layers = append(layers, ly)
		prev, off = c, off+c
	}
	return layers
}

// FileBytes returns the payload bytes of layers of the node counts given
// after a first layer of first nodes, m outputs.
func FileBytes(counts []int, first, m int) int {
	size, prev := 0, first
	for _, c := range counts {
		size += c*prev*4 + c*4 + c*m*8
		prev = c
	}
	return size
}

// ParamCountOf returns every trained number of a deep model of the given
// node counts per layer (the first included, of np parameters per node),
// m outputs, as ParamCount counts the further layers.
func ParamCountOf(sizes []int, np, m int) int {
	n, prev := sizes[0]*(np+1+m), sizes[0]
	for _, c := range sizes[1:] {
		n += c * (prev + 1 + m)
		prev = c
	}
	return n
}
