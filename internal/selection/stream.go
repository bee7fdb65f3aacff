package selection

import (
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/holdout"
	"github.com/scn2d/scn/internal/lsq"
	"gonum.org/v1/gonum/mat"
)

// Streamed model selection (scn's Config.SelectStream): Select with a hold-out
// on a training set read shard by shard.
//
// Select holds out a stratified share of the images (holdout.HeldMask), fits
// on the rest, scores every (L, ridge) of its grid on the held-out images
// and re-solves the chosen prefix's output weights on all images. Its
// streamed form:
//
//  1. a pass for the labels (8 bytes per image while the split is made, 1
//     after: which images are held out), split as Select splits them (the
//     same images, for the same seed);
//  2. the streamed fit (FitStream) on the training part: the source with
//     the held-out images left out of its shards;
//  3. one pass over the held-out part: each row shard's hidden outputs of
//     every node, the outputs of every (l, alpha) of the grid (the output
//     weights of the fit's prefixes, from its factor, as Select solves
//     them) added to each pair's squared error and hits, and H^T H and
//     H^T T of the held-out images added up for the refit.
//
// The scores are Select's bits: the same outputs (the same kernels, whose
// every value depends only on its row and column) summed in the same
// order (image by image, as RMSE and Accuracy sum), so the choice is
// Select's whenever the streamed fit is Fit's (see FitStream; with
// OpenBLAS, whose products depend on their shape, the scores agree to
// rounding, and a choice between two pairs that tie to rounding may
// differ). The refit
// adds the held-out normal equations formed shard by shard, where Select
// forms them in one product over all held-out images: the output weights
// agree to rounding (relative differences about 1e-12), not bit for bit;
// without a ridge term (a chosen ridge of 0) they are solved from the
// normal equations too (Select solves a stacked least-squares problem).
// Memory: the streamed fit's, plus the held-out part's H^T H (L x L), the
// output weights of every (l, alpha) of the grid and one batch of hidden
// outputs; not N. k-fold selection (k + 1 streamed fits) and Patience
// (the held-out part scored at every checkpoint during the fit: a pass
// each) are not streamed.

// HeldSums are the held-out pass's results: the score of every (l, alpha)
// in Select's order, and the held-out normal equations (G full L x L, H^T T
// L x m, T^T T summed over the outputs).
type HeldSums struct {
	Scores []holdout.Point
	L      int
	G, HT  []float64
	TT     float64
}

// ScoreHeld scores the prefixes in grid of a fit of L nodes (m outputs)
// with every ridge term on nh held-out images (see the top of this file),
// by internal/holdout's Scorer: solves gives the prefixes' output weights
// (a Path's PrefixSolves), pass reads the held-out images into the scorer
// shard by shard (Scorer.Shard, then Scorer.Batch for each batch of the
// shard's hidden outputs).
func ScoreHeld(L, m, nh int, classify bool, grid []int, ridges []float64, solves func(maxL int, grid []int, ridges []float64, each func(l int, alpha float64, beta []float64)) error, pass func(*holdout.Scorer) error) (*HeldSums, error) {
	hsc := holdout.NewScorer(L, m, classify)
	var alphas []float64
	err := solves(L, grid, ridges, func(l int, alpha float64, beta []float64) {
		hsc.AddPrefix(l, lsq.Transposed(beta, l, m))
		alphas = append(alphas, alpha)
	})
	if err != nil {
		return nil, err
	}
	if hsc.Prefixes() == 0 {
		return nil, fmt.Errorf("scn: selection: no (L, ridge) pair could be solved")
	}
	if err := pass(hsc); err != nil {
		return nil, err
	}
	return &HeldSums{L: L, G: hsc.G, HT: hsc.HT, TT: hsc.TT, Scores: hsc.Points(alphas, nh)}, nil
}

// Refit returns the output weights of the first l nodes (M outputs)
// solved with ridge alpha on the training and held-out images together,
// and their RMSE over all n images (T^T T = tt): g and ht are the training
// part's normal equations of the l nodes, to which the held-out ones of
// the pass are added (g then holds G + alpha I).
func (hs *HeldSums) Refit(g *mat.SymDense, ht *mat.Dense, l, M int, alpha, tt float64, n int) (beta []float64, rmse float64, err error) {
	L := hs.L
	for i := 0; i < l; i++ {
		for j := i; j < l; j++ {
			// The lower triangle of the held-out product, as gramOf keeps.
			g.SetSym(i, j, g.At(i, j)+hs.G[j*L+i])
		}
		for q := 0; q < M; q++ {
			ht.Set(i, q, ht.At(i, q)+hs.HT[i*M+q])
		}
	}
	beta, err = lsq.CholeskySolve(g, ht, alpha)
	if err != nil {
		return nil, 0, err
	}
	rss := lsq.NormalRSSOf(g, alpha, ht, beta, tt) // g now holds G + alpha I
	return beta, math.Sqrt(rss / float64(n*M)), nil
}

// Mask keeps the images i of a stream, shard after shard, where Held[i]
// == Want (a streamed hold-out's training or held-out part).
type Mask struct {
	Held []bool
	Want bool
	at   int
	pix  []float32
	t    []float64
}

// Keep returns the kept images of the next shard (n images of d values
// with m targets each: pix, t), in buffers reused from shard to shard
// (empty when it keeps none).
func (k *Mask) Keep(pix []float32, t []float64, n, d, m int) ([]float32, []float64) {
	k.pix, k.t = k.pix[:0], k.t[:0]
	for i := 0; i < n; i++ {
		if k.at+i < len(k.Held) && k.Held[k.at+i] == k.Want {
			k.pix = append(k.pix, pix[i*d:(i+1)*d]...)
			k.t = append(k.t, t[i*m:(i+1)*m]...)
		}
	}
	k.at += n
	return k.pix, k.t
}
