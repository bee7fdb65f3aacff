// Package timing is the time model of scn's budgeted fits (scn.Budget):
// the modelled seconds of a block fit and of the work after it (model
// selection, the re-solve, the further ridge terms) at a machine's rates
// (the values of scn.Rates), the timed Cholesky factor the rates of
// float64 work come from, the plan's search for the most nodes the time
// left pays for, and the clock of a fit under way (pace.go: Watch, a fit
// block by block stopped when the next block and the finish at the pace
// measured no longer fit; Stages, a staged fit's stage sizes). The budget
// itself (the rates' record, the learner's choice, the probe fit, the
// record) stays in the root package.
//
// It may import the standard library and internal/lsq (the factor it
// times) only; never the root package scn or any package above it.
package timing

import (
	"math"
	"slices"
	"time"

	"github.com/scn2d/scn/internal/lsq"
)

// FitSeconds is the modelled time of a block fit of l nodes on n images
// in blocks of block, at a machine's rates (scn.Rates): score seconds per
// image and node, gram per image and pair of nodes, chol per unit of
// L^3/3 and perBlock per block.
func FitSeconds(n, l, block int, score, gram, chol, perBlock float64) float64 {
	N, L := float64(n), float64(l)
	return N*L*score + N*L*L/2*gram + L*L*L/3*chol + math.Ceil(L/float64(max(block, 1)))*perBlock
}

// FinishSeconds is the modelled time of what follows a fit of l nodes with
// model selection over ridges ridge terms on held images, m outputs and
// points prefix lengths, at score seconds per image and node and finish
// seconds per unit of float64 work.
func FinishSeconds(held, l, m, ridges, points int, score, finish float64) float64 {
	return float64(held)*float64(l)*score + finishWork(held, l, m, ridges, points)*finish
}

// finishWork is the float64 work of a finish in units of Rates.Finish.
// Besides the factors and the held-out Gram products, each ridge term
// solves for every prefix length of the grid (points, the checkpoints
// included): two triangular solves of L^2 m each, which read the whole
// factor and run at about a quarter of the factor's rate.
func finishWork(held, l, m, ridges, points int) float64 {
	H, L := float64(held), float64(l)
	return float64(ridges+2)*L*L*L/3 + H*L*L/2 + 4*float64(ridges*points)*L*L*float64(m)
}

// FitWeightsSeconds is the modelled time of the work after a fit of l
// nodes that keeps the fit's own output weights (m outputs, d values an
// image, extra further ridge terms, blocks of block nodes): two
// triangular solves of L^2 m from the fit's factor, the model file (8
// bytes per weight, at a few hundred MB/s), and the further ridge terms.
func FitWeightsSeconds(l, m, d, extra, block int, finish float64) float64 {
	L := float64(l)
	return 2*L*L*float64(m)*finish + L*float64(d+m+1)*8/300e6 +
		ExtraRidgeSeconds(extra, l, m, block, finish)
}

// ExtraRidgeSeconds is the modelled time of scoring the further ridge terms
// at the end of a fit of l nodes that keeps its own output weights, in
// blocks of block, m outputs: a factor and the forward substitution per
// ridge, a back substitution per checkpoint.
func ExtraRidgeSeconds(extra, l, m, block int, finish float64) float64 {
	L, M := float64(l), float64(m)
	return float64(extra) * (L*L*L/3 + L*L*L*M/(3*float64(max(block, 1))) + 2*L*L*M) * finish
}

// ExtraRidges returns the plan's ridge terms other than the fit's (and
// above 0, each once).
func ExtraRidges(ridges []float64, fit float64) []float64 {
	var out []float64
	for _, r := range ridges {
		if r != fit && r > 0 && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// MostNodes returns the largest multiple of block up to lmax (at least
// one block) whose cost is at most left.
func MostNodes(block, lmax int, left float64, cost func(l int) float64) int {
	l := block
	for next := l + block; next <= lmax && cost(next) <= left; next += block {
		l = next
	}
	return l
}

// CholSeconds times internal/lsq's blocked Cholesky factor of a k x k
// matrix and returns its seconds per unit of k^3/3.
func CholSeconds(k int) float64 {
	a := make([]float64, k*k)
	for i := 0; i < k; i++ {
		for j := 0; j <= i; j++ {
			a[i*k+j] = 1 / float64(1+i+j)
		}
		a[i*k+i] += float64(k)
	}
	t0 := time.Now()
	if err := lsq.Cholesky(a, k, k, 1); err != nil {
		panic(err) // diagonally dominant: cannot happen
	}
	return time.Since(t0).Seconds() / (float64(k) * float64(k) * float64(k) / 3)
}
