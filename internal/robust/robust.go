// Package robust is the math of robust output weights (scn's
// Config.Robust and Model.Robust), after the robust SCN of Wang and Li
// ("Robust stochastic configuration networks with kernel density
// estimation for uncertain data regression", Information Sciences
// 412-413, 2017, 210-222): the output weights minimise the weighted
// least-squares cost sum_i theta_i ||t_i - beta^T h_i||^2 (+ ridge
// ||beta||^2), where each training sample's weight theta_i is the density
// of its residual under a kernel density estimate of all the residuals,
// divided by the largest: samples whose residual lies where few others do
// (outliers, corrupted images) weigh little. The weights and the output
// weights are found by iteratively reweighted least squares from the plain
// solution (theta = 1).
//
// It owns the reweighting (Beta), the kernel density weights
// (KDEWeights, Silverman's bandwidth on an interpolated grid), the
// residual norms and the weighted RMSE; the weighted solve itself is
// internal/lsq's (WeightedSolve). The root package checks the model and
// the data and forms the hidden outputs.
//
// It may import the standard library, gonum and internal/lsq only; never
// the root package scn or any package above it.
package robust

import (
	"math"
	"sort"

	"github.com/scn2d/scn/internal/lsq"
	"gonum.org/v1/gonum/mat"
)

// Report says how a robust solve went.
type Report struct {
	Iterations int     // reweightings done
	Converged  bool    // the output weights stopped moving (relative change below 1e-8)
	MinWeight  float64 // the smallest sample weight theta_i
	Downweight int     // samples weighted below 1/2
}

// maxIterations bounds the reweightings; tol is the relative change of
// the output weights at which they stop.
const (
	maxIterations = 20
	tol           = 1e-8
)

// Beta runs the reweighting on hidden outputs h (N x L) and targets t
// (N x m) and returns the output weights, the final sample weights and the
// report.
func Beta(h *mat.Dense, t []float64, m int, ridge float64) ([]float64, []float64, Report, error) {
	n, _ := h.Dims()
	theta := make([]float64, n)
	for i := range theta {
		theta[i] = 1
	}
	beta, err := lsq.WeightedSolve(h, t, m, ridge, theta)
	if err != nil {
		return nil, nil, Report{}, err
	}
	var rep Report
	res := make([]float64, n)
	for rep.Iterations < maxIterations {
		residualNorms(h, beta, t, m, res)
		KDEWeights(res, theta)
		next, err := lsq.WeightedSolve(h, t, m, ridge, theta)
		if err != nil {
			return nil, nil, rep, err
		}
		rep.Iterations++
		change := relChange(next, beta)
		beta = next
		if change < tol {
			rep.Converged = true
			break
		}
	}
	rep.MinWeight = 1
	for _, w := range theta {
		rep.MinWeight = math.Min(rep.MinWeight, w)
		if w < 0.5 {
			rep.Downweight++
		}
	}
	return beta, theta, rep, nil
}

// residualNorms sets res[i] = ||t_i - beta^T h_i||.
func residualNorms(h *mat.Dense, beta, t []float64, m int, res []float64) {
	n, l := h.Dims()
	var y mat.Dense
	y.Mul(h, mat.NewDense(l, m, beta))
	for i := 0; i < n; i++ {
		var s float64
		for q := 0; q < m; q++ {
			d := t[i*m+q] - y.At(i, q)
			s += d * d
		}
		res[i] = math.Sqrt(s)
	}
}

// WeightedRMSE is the RMSE of the outputs of h beta against t over every
// output (theta nil: unweighted).
func WeightedRMSE(h *mat.Dense, beta, t []float64, m int, theta []float64) float64 {
	n, _ := h.Dims()
	res := make([]float64, n)
	residualNorms(h, beta, t, m, res)
	var s, w float64
	for i, r := range res {
		wi := 1.0
		if theta != nil {
			wi = theta[i]
		}
		s += wi * r * r
		w += wi
	}
	return math.Sqrt(s / (w * float64(m)))
}

// KDEWeights sets theta[i] = p(r_i) / max_j p(r_j), p the Gaussian kernel
// density estimate of the values r with Silverman's bandwidth
// 1.06 min(sd, IQR/1.34) n^(-1/5). The density is evaluated on a grid of
// kdeBins points over the range of r and interpolated linearly (O(n
// kdeBins) instead of O(n^2)).
func KDEWeights(r, theta []float64) {
	n := len(r)
	sorted := append([]float64(nil), r...)
	sort.Float64s(sorted)
	var mean, sd float64
	for _, v := range r {
		mean += v
	}
	mean /= float64(n)
	for _, v := range r {
		sd += (v - mean) * (v - mean)
	}
	sd = math.Sqrt(sd / float64(max(n-1, 1)))
	iqr := sorted[(3*n)/4] - sorted[n/4]
	spread := sd
	if iqr > 0 {
		spread = math.Min(sd, iqr/1.34)
	}
	bw := 1.06 * spread * math.Pow(float64(n), -0.2)
	lo, hi := sorted[0], sorted[n-1]
	if !(bw > 0) || !(hi > lo) {
		for i := range theta {
			theta[i] = 1 // every residual alike: no sample is an outlier
		}
		return
	}
	grid := make([]float64, kdeBins)
	step := (hi - lo) / float64(kdeBins-1)
	for g := range grid {
		x := lo + float64(g)*step
		var s float64
		for _, v := range r {
			if d := (x - v) / bw; d > -kdeCut && d < kdeCut {
				s += math.Exp(-0.5 * d * d)
			}
		}
		grid[g] = s
	}
	var top float64
	dens := make([]float64, n)
	for i, v := range r {
		f := (v - lo) / step
		g := min(int(f), kdeBins-2)
		w := f - float64(g)
		dens[i] = (1-w)*grid[g] + w*grid[g+1]
		top = math.Max(top, dens[i])
	}
	for i := range theta {
		theta[i] = dens[i] / top
	}
}

// The density grid: kdeBins points, kernels cut at kdeCut bandwidths.
const (
	kdeBins = 512
	kdeCut  = 6.0
)

// relChange returns ||a - b|| / max(||b||, tiny).
func relChange(a, b []float64) float64 {
	var d, s float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
		s += b[i] * b[i]
	}
	return math.Sqrt(d / math.Max(s, 1e-300))
}
