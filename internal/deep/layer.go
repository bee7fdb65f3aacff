package deep

import (
	"fmt"
	"math"
)

// Layer is one further layer of a deep model: Nodes() supervised vector
// nodes, each reading the outputs of every node of the layer before.
type Layer struct {
	// Params holds the nodes' weights, Nodes() rows of the previous
	// layer's width.
	Params []float32
	Bias   []float32
}

// Nodes returns the layer's node count.
func (l Layer) Nodes() int { return len(l.Bias) }

// Sizes returns the node count of each layer, the first (of first nodes)
// included.
func Sizes(first int, layers []Layer) []int {
	s := []int{first}
	for _, l := range layers {
		s = append(s, l.Nodes())
	}
	return s
}

// Counts returns the node count of each of the layers (nil for none).
func Counts(layers []Layer) []int {
	var s []int
	for _, l := range layers {
		s = append(s, l.Nodes())
	}
	return s
}

// Nodes returns the nodes of the layers.
func Nodes(layers []Layer) int {
	n := 0
	for _, l := range layers {
		n += l.Nodes()
	}
	return n
}

// ParamCount returns every trained number of the layers after a first
// layer of first nodes: each node's weights (the previous layer's width),
// bias and m output weights.
func ParamCount(first, m int, layers []Layer) int {
	n, prev := 0, first
	for _, l := range layers {
		n += l.Nodes() * (prev + 1 + m)
		prev = l.Nodes()
	}
	return n
}

// Check reports whether the layers after a first layer of first nodes
// agree with each other and hold finite numbers.
func Check(first int, layers []Layer) error {
	prev := first
	for k, l := range layers {
		if l.Nodes() == 0 {
			return fmt.Errorf("scn: layer %d has no nodes", k+2)
		}
		if len(l.Params) != l.Nodes()*prev {
			return fmt.Errorf("scn: layer %d holds %d weights for %d nodes of %d inputs", k+2, len(l.Params), l.Nodes(), prev)
		}
		if !finite32(l.Params) {
			return fmt.Errorf("scn: layer %d has a non-finite weight", k+2)
		}
		if !finite32(l.Bias) {
			return fmt.Errorf("scn: layer %d has a non-finite bias", k+2)
		}
		prev = l.Nodes()
	}
	return nil
}

// finite32 reports whether every value of v is finite.
func finite32(v []float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// Truncate returns the further layers of a prefix of l nodes of a model
// whose first layer has first nodes (l beyond the first layer): whole
// layers, then part of the one l ends in.
func Truncate(first int, layers []Layer, l int) []Layer {
	l -= first
	var out []Layer
	prev := first
	for _, ly := range layers {
		if l <= 0 {
			break
		}
		c := min(l, ly.Nodes())
		out = append(out, Layer{Params: ly.Params[: c*prev : c*prev], Bias: ly.Bias[:c:c]})
		l -= c
		prev = ly.Nodes()
	}
	return out
}

// CheckSizes reports what is wrong with the sizes of further layers after
// a first layer of first nodes, each and all of them at most limit nodes
// (the root package wraps it in scn.ErrConfig).
func CheckSizes(first int, sizes []int, limit int) error {
	total := first
	for i, n := range sizes {
		if n < 1 || n > limit {
			return fmt.Errorf("layer %d of %d nodes, want 1 ... %d", i+2, n, limit)
		}
		total += n
	}
	if total > limit {
		return fmt.Errorf("%d nodes over all layers, want <= %d", total, limit)
	}
	return nil
}
