package scn

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// This file keeps a plain reference implementation of SCN, written the way
// the authors' MATLAB code works: float64 throughout, candidates scored one
// at a time, and the output weights recomputed from a fresh pseudo-inverse
// (SVD, MATLAB's default tolerance) after every added node. Tests compare the
// fast builder with it; benchmarks measure the speed-up against it.

// pinv returns the Moore-Penrose pseudo-inverse of a, truncating singular
// values below max(r, c) * sigma_max * eps as MATLAB's pinv does.
func pinv(a *mat.Dense) *mat.Dense { return pinvTol(a, 1) }

// pinvTol is pinv with MATLAB's tolerance scaled by scale.
func pinvTol(a *mat.Dense, scale float64) *mat.Dense {
	r, c := a.Dims()
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		panic("svd failed")
	}
	s := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	tol := scale * float64(max(r, c)) * s[0] * 0x1p-52
	k := len(s)
	out := mat.NewDense(c, r, nil)
	for i := 0; i < k; i++ {
		if s[i] <= tol {
			continue
		}
		var outer mat.Dense
		outer.Outer(1/s[i], v.ColView(i), u.ColView(i))
		out.Add(out, &outer)
	}
	return out
}

// referenceFit is the reference SCN (vector input, sigmoid), with the
// pseudo-inverse tolerance scaled by pinvScale (1: MATLAB's). It returns the
// training RMSE after each node, the final output weights and the nodes.
func referenceFit(c Config, x [][]float64, t *mat.Dense, seed uint64, pinvScale float64) (rmse []float64, beta *mat.Dense, w [][]float64, b []float64) {
	n, d := len(x), len(x[0])
	_, m := t.Dims()
	rng := rand.New(rand.NewPCG(seed, 7))
	e := mat.DenseCopyOf(t)
	sig := func(wj []float64, bj float64, xi []float64) float64 {
		s := bj
		for k, v := range wj {
			s += v * xi[k]
		}
		return 1 / (1 + math.Exp(-s))
	}
	for len(b) < c.MaxNodes {
		cur := mat.Norm(e, 2) / math.Sqrt(float64(n*m))
		if cur <= c.Tolerance {
			break
		}
		var bestW []float64
		var bestB float64
	search:
		for _, lambda := range c.Scales {
			cw := make([][]float64, c.Candidates)
			cb := make([]float64, c.Candidates)
			for j := range cw {
				cw[j] = make([]float64, d)
				for k := range cw[j] {
					cw[j][k] = lambda * (2*rng.Float64() - 1)
				}
				cb[j] = lambda * (2*rng.Float64() - 1)
			}
			for _, r := range c.Ratios {
				best := math.Inf(-1)
				for j := range cw {
					h := make([]float64, n)
					for i := range h {
						h[i] = sig(cw[j], cb[j], x[i])
					}
					hh := dot(h, h)
					sum, mn := 0.0, math.Inf(1)
					for q := 0; q < m; q++ {
						var eh, ee float64
						for i := 0; i < n; i++ {
							eh += e.At(i, q) * h[i]
							ee += e.At(i, q) * e.At(i, q)
						}
						xi := eh*eh/hh - (1-r)*ee
						sum += xi
						mn = min(mn, xi)
					}
					if mn >= 0 && sum > best {
						best, bestW, bestB = sum, cw[j], cb[j]
					}
				}
				if bestW != nil {
					break search
				}
			}
		}
		if bestW == nil {
			break
		}
		w = append(w, bestW)
		b = append(b, bestB)
		h := mat.NewDense(n, len(b), nil)
		for i := 0; i < n; i++ {
			for j := range b {
				h.Set(i, j, sig(w[j], b[j], x[i]))
			}
		}
		beta = &mat.Dense{}
		beta.Mul(pinvTol(h, pinvScale), t)
		var o mat.Dense
		o.Mul(h, beta)
		e.Sub(t, &o)
		rmse = append(rmse, mat.Norm(e, 2)/math.Sqrt(float64(n*m)))
	}
	return rmse, beta, w, b
}
