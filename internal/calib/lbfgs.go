package calib

import (
	"math"
	"slices"
)

// lbfgs minimises f (which returns the value and, with grad not nil,
// writes the gradient) from x0 by L-BFGS (memory 10) with a backtracking
// Armijo line search, for at most iters steps or until the gradient's
// largest element is below tol. It returns the best point found.
func lbfgs(f func(x, grad []float64) float64, x0 []float64, iters int, tol float64) []float64 {
	const mem = 10
	k := len(x0)
	x := slices.Clone(x0)
	g := make([]float64, k)
	fx := f(x, g)
	var ss, ys [][]float64
	var rhos []float64
	d, xn, gn := make([]float64, k), make([]float64, k), make([]float64, k)
	alpha := make([]float64, mem)
	dot := func(a, b []float64) float64 {
		var s float64
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	for it := 0; it < iters; it++ {
		gmax := 0.0
		for _, v := range g {
			gmax = math.Max(gmax, math.Abs(v))
		}
		if gmax < tol {
			break
		}
		// Two-loop recursion: d = -H g.
		copy(d, g)
		for i := len(ss) - 1; i >= 0; i-- {
			alpha[i] = rhos[i] * dot(ss[i], d)
			for j := range d {
				d[j] -= alpha[i] * ys[i][j]
			}
		}
		if n := len(ss); n > 0 {
			gamma := dot(ss[n-1], ys[n-1]) / dot(ys[n-1], ys[n-1])
			for j := range d {
				d[j] *= gamma
			}
		}
		for i := range ss {
			b := rhos[i] * dot(ys[i], d)
			for j := range d {
				d[j] += ss[i][j] * (alpha[i] - b)
			}
		}
		for j := range d {
			d[j] = -d[j]
		}
		slope := dot(g, d)
		if !(slope < 0) {
			// Not a descent direction: restart from steepest descent.
			ss, ys, rhos = nil, nil, nil
			for j := range d {
				d[j] = -g[j]
			}
			slope = dot(g, d)
		}
		step, ok := 1.0, false
		if len(ss) == 0 {
			step = 1 / math.Max(1, math.Sqrt(dot(g, g)))
		}
		for ls := 0; ls < 40; ls++ {
			for j := range x {
				xn[j] = x[j] + step*d[j]
			}
			fn := f(xn, gn)
			if fn <= fx+1e-4*step*slope && !math.IsNaN(fn) {
				ok = true
				s, y := make([]float64, k), make([]float64, k)
				for j := range s {
					s[j], y[j] = xn[j]-x[j], gn[j]-g[j]
				}
				if sy := dot(s, y); sy > 1e-300 {
					if len(ss) == mem {
						ss, ys, rhos = ss[1:], ys[1:], rhos[1:]
					}
					ss, ys, rhos = append(ss, s), append(ys, y), append(rhos, 1/sy)
				}
				improved := fx - fn
				copy(x, xn)
				copy(g, gn)
				fx = fn
				if improved <= 1e-15*math.Max(1, math.Abs(fx)) {
					return x
				}
				break
			}
			step /= 2
		}
		if !ok {
			break
		}
	}
	return x
}
