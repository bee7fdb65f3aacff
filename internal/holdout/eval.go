package holdout

import (
	"fmt"
	"math"
	"slices"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/score"
)

// Held is a held-out part as selection scores it: its N images' targets
// T (N x M) and, for classification, their classes.
type Held struct {
	N, M     int
	T        []float64
	Classify bool
	Labels   []int // the held-out images' classes (classification)
}

// NewHeld returns the held-out part of n images with targets t (n x m).
func NewHeld(n, m int, t []float64, classify bool) *Held {
	h := &Held{N: n, M: m, T: t, Classify: classify}
	if classify {
		h.Labels = score.ArgMax(t, m)
	}
	return h
}

// Score returns the held-out score of the first l nodes with output
// weights beta (l x M) at ridge alpha, the held-out hidden outputs being
// hv (rows: the N images, stride apart; its first l columns are read).
// The product H_held beta runs on linalg.GemmNT64 (OpenBLAS's dgemm, or
// the project's AVX-512 kernel in the pure-Go build): it is repeated for
// every (L, ridge) pair, and with gonum's Dgemm it was most of model
// selection's time at N = 60000.
func (h *Held) Score(l int, alpha float64, beta, hv []float64, stride int) Point {
	n, m := h.N, h.M
	out := make([]float64, n*m)
	linalg.GemmNT64(n, m, l, 1, hv, stride, lsq.Transposed(beta, l, m), l, 0, out, m)
	s := Point{Nodes: l, Ridge: alpha, RMSE: score.RMSE(out, h.T)}
	if h.Classify {
		s.Accuracy = score.Accuracy(score.ArgMax(out, m), h.Labels)
	}
	return s
}

// DirectScore is the held-out score of a model with direct links whose
// held-out outputs are pred (N x M).
func (h *Held) DirectScore(l int, alpha float64, pred []float64) Point {
	s := Point{Nodes: l, Ridge: alpha, Direct: true, RMSE: score.RMSE(pred, h.T)}
	if h.Classify {
		s.Accuracy = score.Accuracy(score.ArgMax(pred, h.M), h.Labels)
	}
	return s
}

// CheckpointRidges scores the checkpoints' prefix lengths (those of
// checkpoints of at most l nodes, once each) at each ridge term of
// alphas, solve giving the output weights of those prefixes at a ridge
// term (ok false: none at that term), over the held-out hidden outputs hv
// (stride apart). It returns the scores and the output weights of the
// best of them (nil if none).
func (h *Held) CheckpointRidges(checkpoints []Point, l int, alphas []float64, hv []float64, stride int, solve func(alpha float64, grid []int) ([][]float64, bool)) ([]Point, []float64) {
	var grid []int
	for _, s := range checkpoints {
		if s.Nodes <= l && !slices.Contains(grid, s.Nodes) {
			grid = append(grid, s.Nodes)
		}
	}
	var out []Point
	var best Point
	var bestBeta []float64
	for _, alpha := range alphas {
		betas, ok := solve(alpha, grid)
		if !ok {
			continue
		}
		for i, k := range grid {
			s := h.Score(k, alpha, betas[i], hv, stride)
			out = append(out, s)
			if bestBeta == nil || s.Better(best, h.Classify) {
				best, bestBeta = s, betas[i]
			}
		}
	}
	return out, bestBeta
}

// Patience stops a fit once the best held-out score has not improved at
// N consecutive checkpoints (scn's Selection.Patience).
type Patience struct {
	N       int
	best    Point
	since   int
	Stopped int // the nodes at which it stopped the fit, 0 if it did not
}

// Observe takes b, the best score of the checkpoint after l nodes, and
// reports whether the fit must stop.
func (p *Patience) Observe(b Point, l int, classify bool) bool {
	if p.best.Nodes == 0 || b.Better(p.best, classify) {
		p.best, p.since = b, 0
		return false
	}
	p.since++
	if p.since >= p.N {
		p.Stopped = l
		return true
	}
	return false
}

// RidgeScores scores each ridge term r of ridges for l pooled outputs
// (local nodes): the output weights solve (G + r I) beta = H^T T (g,
// l x l, and ht, l x mo: the training images' normal equations, g left
// unchanged), scored on the nh held-out rows hh (nh x l) against their
// targets th (nh x mo). It returns the curve of scores and the index of
// the best (Point.Better). stop, called before each term, ends the
// scoring with its error; a term whose system cannot be solved ends it
// with an error naming the term.
func RidgeScores(g, ht, hh, th []float64, l, mo, nh int, ridges []float64, classify bool, stop func() error) (curve []Point, best int, err error) {
	best = -1
	a := make([]float64, l*l)
	for _, r := range ridges {
		if err := stop(); err != nil {
			return nil, -1, err
		}
		copy(a, g)
		for i := 0; i < l; i++ {
			a[i*l+i] += r
		}
		beta := append([]float64(nil), ht...)
		if err := lsq.SolveFlat(a, l, beta, mo, r); err != nil {
			return nil, -1, fmt.Errorf("scn: ridge %g: %w", r, err)
		}
		y := make([]float64, nh*mo)
		linalg.Dgemm(false, false, nh, mo, l, 1, hh, l, beta, mo, 0, y, mo)
		curve, best = AppendScored(curve, best, l, r, y, th, mo, classify)
	}
	return curve, best, nil
}

// GrowShare is where the second half of a fit's prefixes begins, as a
// share of its nodes (scn's growth past L_max).
const GrowShare = 0.5

// LateGain reports whether the best score over the second half of a
// fit's prefixes (curve: any ridge term, either kind; fitNodes the fit's
// nodes) gains over the best before (Gains, on held images).
func LateGain(curve []Point, fitNodes, held int, classify bool) bool {
	var early, late Point
	var haveE, haveL bool
	for _, s := range curve {
		lateOne := float64(s.Nodes) > GrowShare*float64(fitNodes)
		best, have := &early, &haveE
		if lateOne {
			best, have = &late, &haveL
		}
		if !*have || s.PrimaryBetter(*best, classify) {
			*best, *have = s, true
		}
	}
	return haveL && (!haveE || late.Gains(early, classify, held))
}

// DefaultRidges returns the default ridge grid: 0 (the minimum-norm
// least-squares solution) and the decades 1e-4 ... 1e4.
func DefaultRidges() []float64 {
	r := []float64{0}
	for e := -4; e <= 4; e++ {
		r = append(r, math.Pow(10, float64(e)))
	}
	return r
}

// CheckSettings reports the first impossible selection setting, if any:
// folds (0 or 1: a hold-out of share validation), the points of the
// grid, patience and the ridge grid (nil: the default).
func CheckSettings(folds int, validation float64, points, patience int, ridges []float64) error {
	switch {
	case folds < 0 || folds > 100:
		return fmt.Errorf("Folds = %d, want 0 (hold-out) or 2..100", folds)
	case folds <= 1 && !(validation > 0 && validation < 1):
		return fmt.Errorf("Validation = %v, want a share in (0, 1)", validation)
	case points < 0 || points > 10000:
		return fmt.Errorf("Points = %d, want 0..10000", points)
	case patience < 0:
		return fmt.Errorf("Patience = %d, want >= 0", patience)
	case ridges != nil && len(ridges) == 0:
		return fmt.Errorf("empty ridge grid")
	}
	for i, r := range ridges {
		if !(r >= 0) || math.IsInf(r, 0) {
			return fmt.Errorf("ridge %d = %v, want a finite value >= 0", i, r)
		}
	}
	return nil
}

// Small training sets are selected by k-fold cross-validation rather than
// one hold-out: a 10% hold-out of a few hundred images is a few dozen,
// where many (L, ridge) pairs tie (ORL with 7 images per subject: 40
// held-out faces, L = 100 chosen on a tie, 92.5% on the test images
// against 96.7% with 5 folds and 99.2% by hindsight). The extra fits cost
// little on such sets. SmallSetImages is the largest set FoldsForSize
// moves to folds, SmallSetFolds the most folds it takes.
const (
	SmallSetImages = 2000
	SmallSetFolds  = 5
)

// FoldsForSize returns the folds for a training set of n images,
// classCounts holding the images of each class (nil for regression): for
// at most SmallSetImages images, as many folds as the smallest class
// allows (at most SmallSetFolds); 0 (keep the hold-out) for larger sets
// and where a class of one image (or a set of one) leaves no two folds.
func FoldsForSize(n int, classCounts []int) int {
	if n > SmallSetImages {
		return 0
	}
	folds := min(SmallSetFolds, n)
	for _, c := range classCounts {
		folds = min(folds, c)
	}
	if folds < 2 {
		return 0
	}
	return folds
}

// AppendScored appends to curve the score of outputs y (n x m) against
// targets th at l nodes and ridge term r (the RMSE, and the accuracy when
// classify), and returns the curve with the index of its best point
// (Point.Better; best < 0: none yet).
func AppendScored(curve []Point, best, l int, r float64, y, th []float64, m int, classify bool) ([]Point, int) {
	sc := Point{Nodes: l, Ridge: r, RMSE: score.RMSE(y, th)}
	if classify {
		sc.Accuracy = score.Accuracy(score.ArgMax(y, m), score.ArgMax(th, m))
	}
	curve = append(curve, sc)
	if best < 0 || sc.Better(curve[best], classify) {
		best = len(curve) - 1
	}
	return curve, best
}
