package localnet

// SecondPerFilter returns the parameters of one filter of the second
// layer of geometry g on images of rows x cols, the bias excluded (0
// without a second layer): 2 k2 + P for matrix learners, P k2^2 for
// vector ones, P being the planes it reads (the first layer's maps).
func (mp Maps) SecondPerFilter(g *Geometry, rows, cols int) int {
	if g == nil || g.Second == nil {
		return 0
	}
	p := PlanesOf(g, rows, cols)
	return mp.FilterMap(g.Second.Size, p.Chans).Size()
}

// ParamCountOf returns every trained number of a model of local nodes as
// its file's header describes it, without its weights: geometry g on
// images of rows x cols x chans, filters[i] filters in bank i, second
// filters in the second layer, nodes pooled outputs and m outputs (every
// filter's parameters and bias, the whitening, the standardisation, the
// output weights).
func (mp Maps) ParamCountOf(g *Geometry, filters []int, second, nodes, m, rows, cols, chans int) int {
	n := nodes * m
	if g.Standardize {
		n += 2 * nodes
	}
	for i, f := range filters {
		k := g.Sizes[i]
		n += f * (mp.FilterMap(k, chans).Size() + 1)
		if g.Whiten {
			n += chans * chans * k * k * k * k
		}
	}
	return n + second*(mp.SecondPerFilter(g, rows, cols)+1)
}
