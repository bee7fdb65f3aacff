package reference

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Package reference keeps a plain implementation of SCN and 2DSCN written
// the way the authors' MATLAB code works: float64 throughout, candidates
// scored one at a time, and the output weights recomputed from a fresh
// pseudo-inverse (SVD, MATLAB's default tolerance) after every added node.
// Its cost grows with the cube of L. Tests compare the fast builder with it
// and the bench command measures the speed-up against it.

// Pinv returns the Moore-Penrose pseudo-inverse of a, truncating singular
// values below max(r, c) * sigma_max * eps as MATLAB's pinv does.
func Pinv(a *mat.Dense) *mat.Dense { return PinvTol(a, 1) }

// PinvTol is Pinv with MATLAB's tolerance scaled by scale.
func PinvTol(a *mat.Dense, scale float64) *mat.Dense {
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

// Settings are the reference's hyper-parameters (the paper's Algorithm 1).
type Settings struct {
	MaxNodes   int
	Tolerance  float64 // on the training RMSE ||e||_F / sqrt(N m)
	Candidates int
	Scales     []float64
	Ratios     []float64
	// Rows and Cols > 0 make it a 2DSCN: each candidate draws u (Rows) and
	// v (Cols) and uses w = vec(u v^T) on the row-major flattened image.
	Rows, Cols int
	// PinvScale scales MATLAB's pinv tolerance (1: MATLAB's own).
	PinvScale float64
	Seed      uint64
}

// Fit builds a sigmoid SCN (or 2DSCN) on x (N rows of d inputs) and t
// (N x m). It returns the training RMSE after each node and the final output
// weights.
func Fit(s Settings, x [][]float64, t *mat.Dense) (rmse []float64, beta *mat.Dense) {
	n, d := len(x), len(x[0])
	_, m := t.Dims()
	rng := rand.New(rand.NewPCG(s.Seed, 7))
	e := mat.DenseCopyOf(t)
	var w [][]float64
	var b []float64
	sig := func(wj []float64, bj float64, xi []float64) float64 {
		v := bj
		for k, wk := range wj {
			v += wk * xi[k]
		}
		return 1 / (1 + math.Exp(-v))
	}
	draw := func(lambda float64) []float64 {
		u := func(k int) []float64 {
			out := make([]float64, k)
			for i := range out {
				out[i] = lambda * (2*rng.Float64() - 1)
			}
			return out
		}
		if s.Rows == 0 {
			return u(d)
		}
		uu, vv := u(s.Rows), u(s.Cols)
		out := make([]float64, 0, d)
		for _, a := range uu {
			for _, c := range vv {
				out = append(out, a*c)
			}
		}
		return out
	}
	for len(b) < s.MaxNodes {
		if mat.Norm(e, 2)/math.Sqrt(float64(n*m)) <= s.Tolerance {
			break
		}
		var bestW []float64
		var bestB float64
	search:
		for _, lambda := range s.Scales {
			cw := make([][]float64, s.Candidates)
			cb := make([]float64, s.Candidates)
			for j := range cw {
				cw[j] = draw(lambda)
				cb[j] = lambda * (2*rng.Float64() - 1)
			}
			for _, r := range s.Ratios {
				best := math.Inf(-1)
				for j := range cw {
					h := make([]float64, n)
					for i := range h {
						h[i] = sig(cw[j], cb[j], x[i])
					}
					var hh float64
					for _, v := range h {
						hh += v * v
					}
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
		beta.Mul(PinvTol(h, s.PinvScale), t)
		var o mat.Dense
		o.Mul(h, beta)
		e.Sub(t, &o)
		rmse = append(rmse, mat.Norm(e, 2)/math.Sqrt(float64(n*m)))
	}
	return rmse, beta
}
