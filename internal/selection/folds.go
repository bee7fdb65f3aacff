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
