package drive

import (
	"math/rand/v2"
	"time"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
	"github.com/scn2d/scn/internal/par"
	"gonum.org/v1/gonum/floats"
)

// ScoreBatch draws k candidates at scale lambda with nm from rng (their
// parameters into cp, k x np, their biases into cb, their weights over
// the image into cw, k x d) and computes their hidden outputs on the n
// images pix (n x d) with one matrix product into z (k x n: candidate
// j's outputs are row j), adding the time taken to prof. The slices hold
// at least the sizes given.
func ScoreBatch(rng *rand.Rand, nm node.Map, act node.Activation, lambda float64, k, n, d, np int, pix, cp, cb, cw, z []float32, prof *Profile) {
	t0 := time.Now()
	for j := 0; j < k; j++ {
		p := cp[j*np : (j+1)*np]
		nm.Draw(rng, lambda, p)
		cb[j] = float32(lambda * (2*rng.Float64() - 1))
		nm.Weight(p, cw[j*d:(j+1)*d])
	}
	t1 := time.Now()
	// Z^T = W X^T (k x N): each candidate's outputs are one contiguous row.
	linalg.ScoreNT(k, n, d, cw, pix, z, n)
	bias := cb[:k]
	par.Chunks(n, 2048, func(_, lo, hi int) {
		for j, bj := range bias {
			act.Apply(z[j*n+lo:j*n+hi], bj)
		}
	})
	prof.Draw += t1.Sub(t0)
	prof.Scoring += time.Since(t1)
	prof.Products += int64(k)
	prof.Batches++
}

// CorrChunk is the row chunk of the candidate statistics; fixed so that the
// sums do not depend on the number of goroutines.
const CorrChunk = 4096

// Correlations returns, for the k candidates' outputs z (k x n), h_j^T h_j
// (k values) and e_q^T h_j (m x k: eh[q*k+j]) against the residual of ls,
// summed in float64 over fixed row chunks: each chunk's candidate outputs
// are widened to float64 once (into z64, k x n), then every e_q is dotted
// with four candidates at a time. part holds the chunks' sums
// (ceil(n/CorrChunk) x k(m+1)).
func Correlations(ls *lsq.QR, z []float32, k, m, n int, part, z64 []float64) (hh, eh []float64) {
	chunks := (n + CorrChunk - 1) / CorrChunk
	stride := k * (m + 1) // per chunk: eh (m x k), then hh (k)
	par.Chunks(n, CorrChunk, func(c, lo, hi int) {
		acc := part[c*stride : (c+1)*stride]
		for j := 0; j < k; j++ {
			zj, hj := z[j*n+lo:j*n+hi], z64[j*n+lo:j*n+hi]
			for i, v := range zj {
				hj[i] = float64(v)
			}
			acc[k*m+j] = floats.Dot(hj, hj)
		}
		for q := 0; q < m; q++ {
			lsq.RowDots(z64[lo:], n, k, ls.Residual(q)[lo:hi], acc[q*k:(q+1)*k])
		}
	})
	sums := lsq.SumChunks(part, chunks, make([]float64, stride))
	return sums[k*m:], sums[:k*m]
}
