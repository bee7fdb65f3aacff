package selection

import (
	"fmt"

	"github.com/scn2d/scn/internal/holdout"
)

// PoolFolds runs the k folds of a k-fold selection: fold(f) fits fold f's
// training part and returns its candidates scored on the fold's held
// images (Candidates) and the nodes the fit made (at most maxNodes). The
// folds' scores are summed by (L, ridge), each fold weighted by its images
// (holdout.Pool): only the points every fold scored count, in the order
// they were scored (ridge by ridge, L within), so that ties break as for
// a hold-out. It returns those means, the images scored over the folds
// and the fewest nodes a fold's fit made.
func PoolFolds(k, maxNodes int, fold func(f int) (scores []holdout.Point, held, nodes int, err error)) (scores []holdout.Point, held, minNodes int, err error) {
	var folded holdout.Pool
	minNodes = maxNodes
	for f := 0; f < k; f++ {
		pts, h, nodes, err := fold(f)
		if err != nil {
			return nil, 0, 0, err
		}
		minNodes = min(minNodes, nodes)
		folded.Add(pts, h)
	}
	held = folded.Held()
	scores = folded.Means(minNodes)
	if len(scores) == 0 {
		return nil, 0, 0, fmt.Errorf("scn: selection: no prefix length reached by every fold")
	}
	return scores, held, minNodes, nil
}

// SolveFallback returns solve(best), the model of the chosen pair on the
// last fit of a k-fold selection, or where that fails the model of the
// best pair with a larger ridge term and no more nodes (holdout.Fallback),
// and so on, with the pair it solved: the last fit's nodes are not the
// folds', and its normal equations can be singular, or with float32 Gram
// products indefinite beyond a small ridge term, where the folds' were not
// (on redundant images, e.g. 200 synthetic 112 x 92 images of five bands,
// at ridge 1e-4). The last solve's error is returned when no pair is
// left.
func SolveFallback[M any](scores []holdout.Point, best holdout.Point, classify bool, solve func(holdout.Point) (M, error)) (M, holdout.Point, error) {
	m, err := solve(best)
	for err != nil {
		alt, ok := holdout.Fallback(scores, best, classify)
		if !ok {
			return m, best, err
		}
		best = alt
		m, err = solve(best)
	}
	return m, best, nil
}

// KFold is a k-fold selection over the root package's models M: K folds,
// each fitted with at most MaxNodes nodes, Classify for a classification
// problem.
type KFold[M any] struct {
	K, MaxNodes int
	Classify    bool
	// Fold fits fold f's training part and returns its candidates scored
	// on the fold's held-out images (Candidates), the number of those
	// images and the nodes the fit made.
	Fold func(f int) (scores []holdout.Point, held, nodes int, err error)
	// Final makes the last fit, on all the images, with at most nodes
	// nodes; Solve and Direct read it.
	Final func(nodes int) error
	// Solve returns the last fit's model of the pair p, Direct its model
	// of p with direct links.
	Solve, Direct func(p holdout.Point) (M, error)
}

// Run runs the selection: the folds pooled (PoolFolds), the best pair
// (holdout.PickDirect over the images of every fold), the last fit with
// that many nodes (at least 1: a direct-link model may have none) and
// its model of the pair, or of a larger ridge term's where that does not
// solve (SolveFallback; not with direct links). It returns the model, the
// pair it was solved at, the pooled candidates, the images they were
// scored on and the fewest nodes a fold's fit made.
func (k KFold[M]) Run() (m M, best holdout.Point, scores []holdout.Point, held, minNodes int, err error) {
	scores, held, minNodes, err = PoolFolds(k.K, k.MaxNodes, k.Fold)
	if err != nil {
		return m, best, nil, 0, 0, err
	}
	best = holdout.PickDirect(scores, k.Classify, held)
	if err = k.Final(max(best.Nodes, 1)); err != nil {
		return m, best, nil, 0, 0, err
	}
	if best.Direct {
		m, err = k.Direct(best)
	} else {
		m, best, err = SolveFallback(scores, best, k.Classify, k.Solve)
	}
	return m, best, scores, held, minNodes, err
}
