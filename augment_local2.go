package scn

// Augmentation of two layers of local nodes (Local.Second with Augment):
// the copies are extra rows of the output weights' least squares as for
// one layer (augment.go); both layers' filters, the planes' moments and
// the pooled outputs' standardisation come from the images as they are,
// and each copy's pooled outputs are those of both layers applied to it.

// augLayers2 returns a two-layer fit's hidden outputs in their order: the
// first layer (with Concat), then the second layer's filters after it (a
// local.Stack; none when it kept no filter).
func (lf *localFit) augLayers2() []localApplier {
	var ls []localApplier
	top := lf.two.top
	if top.Second.Concat {
		ls = append(ls, lf.two.first)
	}
	if len(lf.banks) > 1 && lf.banks[1].Filters() > 0 {
		ls = append(ls, stackOf(lf.cfg.Kind.Input, lf.cfg.Activation, top, lf.two.first, lf.banks[1], lf.x.Rows, lf.x.Cols))
	}
	return ls
}
