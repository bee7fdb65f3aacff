package holdout

import "math"

// Point is the held-out score of one point (L, ridge) of selection's grid:
// its fields are those of scn.Score, which converts to and from it.
type Point struct {
	Nodes    int
	Ridge    float64
	Accuracy float64 // share of held-out images classified right (0 for regression)
	RMSE     float64 // RMSE of the held-out outputs
	Direct   bool    // scored with direct links
}

// Better reports whether s beats t: higher accuracy (classification), then
// lower RMSE, then fewer nodes, then the larger ridge term.
func (s Point) Better(t Point, classify bool) bool {
	if classify && s.Accuracy != t.Accuracy {
		return s.Accuracy > t.Accuracy
	}
	if s.RMSE != t.RMSE {
		return s.RMSE < t.RMSE
	}
	if s.Nodes != t.Nodes {
		return s.Nodes < t.Nodes
	}
	return s.Ridge > t.Ridge
}

// Gains reports whether s beats t by more than one standard error of t's
// held-out score on held images (the one-standard-error rule: a larger
// model must earn its place): for classification sqrt(a (1-a) / held) of
// accuracy a, counted in accuracy alone (a lower RMSE at equal accuracy,
// which more nodes nearly always give, does not pay for twice the nodes);
// for regression RMSE / sqrt(2 held), the standard error of an RMSE of
// normal errors. Without it, a held-out set of a few hundred images lets
// noise choose: on natural-images, direct links at L = 75 won the
// hold-out by 4 of 553 images and lost 1.7 points on the test set; on an
// ORL split, growth to 1000 nodes won by one image of 200 and lost one.
func (s Point) Gains(t Point, classify bool, held int) bool {
	n := float64(max(held, 1))
	if classify {
		a := t.Accuracy
		return s.Accuracy-a > math.Sqrt(a*(1-a)/n)
	}
	return t.RMSE-s.RMSE > t.RMSE/math.Sqrt(2*n)
}

// PrimaryBetter compares by the primary metric alone: accuracy for
// classification, RMSE for regression.
func (s Point) PrimaryBetter(t Point, classify bool) bool {
	if classify {
		return s.Accuracy > t.Accuracy
	}
	return s.RMSE < t.RMSE
}

// Pick returns the best of scores (Better); scores must not be empty.
func Pick(scores []Point, classify bool) Point {
	best := scores[0]
	for _, s := range scores[1:] {
		if s.Better(best, classify) {
			best = s
		}
	}
	return best
}

// PickDirect returns the best score of a selection that tried direct
// links: the best plain model unless the best direct-link one beats it by
// more than a standard error of its held-out score on held images (Gains:
// direct links add D x M weights, and must earn them). scores must not be
// empty.
func PickDirect(scores []Point, classify bool, held int) Point {
	var plain, direct []Point
	for _, s := range scores {
		if s.Direct {
			direct = append(direct, s)
		} else {
			plain = append(plain, s)
		}
	}
	switch {
	case len(direct) == 0:
		return Pick(plain, classify)
	case len(plain) == 0:
		return Pick(direct, classify)
	}
	bp, bd := Pick(plain, classify), Pick(direct, classify)
	if bd.Gains(bp, classify, held) {
		return bd
	}
	return bp
}

// Fallback returns the best plain score (no direct links) of a larger
// ridge term than failed's and no more nodes, for a final solve that
// failed at failed's; ok is false when there is none.
func Fallback(scores []Point, failed Point, classify bool) (best Point, ok bool) {
	var alt []Point
	for _, s := range scores {
		if !s.Direct && s.Ridge > failed.Ridge && s.Nodes <= failed.Nodes {
			alt = append(alt, s)
		}
	}
	if len(alt) == 0 {
		return Point{}, false
	}
	return Pick(alt, classify), true
}

// Pool sums the folds' scores of k-fold cross-validation by point (L,
// ridge, direct links or not), each fold weighted by its held-out images,
// so that the means are over images.
type Pool struct {
	sum   map[poolKey]*Point
	seen  map[poolKey]int
	order []poolKey // the order points were first scored in
	held  int
	folds int
}

type poolKey struct {
	nodes  int
	ridge  float64
	direct bool
}

// Add adds a fold's scores, scored on held images.
func (p *Pool) Add(scores []Point, held int) {
	if p.sum == nil {
		p.sum, p.seen = map[poolKey]*Point{}, map[poolKey]int{}
	}
	w := float64(held)
	p.held += held
	p.folds++
	for _, sc := range scores {
		k := poolKey{sc.Nodes, sc.Ridge, sc.Direct}
		if p.sum[k] == nil {
			p.sum[k] = &Point{Nodes: sc.Nodes, Ridge: sc.Ridge, Direct: sc.Direct}
			p.order = append(p.order, k)
		}
		p.sum[k].Accuracy += w * sc.Accuracy
		p.sum[k].RMSE += w * sc.RMSE * sc.RMSE
		p.seen[k]++
	}
}

// Held returns the held-out images of every fold added.
func (p *Pool) Held() int { return p.held }

// Means returns the points every fold scored, at most maxNodes nodes, in
// the order they were first scored (ridge by ridge, L within, so that
// ties break as for a hold-out): the accuracy averaged over the images,
// the RMSE the root of the mean squared error. A fold may score fewer
// points than another (a prefix it did not reach, or a singular solve
// without a ridge): only the points every fold scored count.
func (p *Pool) Means(maxNodes int) []Point {
	var out []Point
	for _, k := range p.order {
		if p.seen[k] < p.folds || k.nodes > maxNodes {
			continue
		}
		s := *p.sum[k]
		s.Accuracy /= float64(p.held)
		s.RMSE = math.Sqrt(s.RMSE / float64(p.held))
		out = append(out, s)
	}
	return out
}
