package lsq

import (
	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/par"
)

// Chunk is the hidden outputs of rows images, node-major (L rows of
// ld values, the first rows of each filled).
type Chunk struct {
	H        []float64
	LD, Rows int
}

// Near is the normal equations of an update, A x = b with
// A = G_old + a I + H^T H (H the new images' hidden outputs, in kept
// chunks), preconditioned on both sides with a Cholesky factor F (in the
// lower triangle of f). With g nil, F F^T is G_old + a I itself (a fresh
// factor) and A = F F^T + H^T H; otherwise F F^T factors an earlier G
// (a stale factor: a preconditioner only) and A is applied with g = G_old.
type Near struct {
	f     LowerTri
	g     []float64
	ridge float64
	kept  []Chunk
	l, m  int
	ys    [][]float64 // per chunk, y and y^T of a sub-block: 2 nearSub m
	qs    [][]float64 // per chunk, L x m
	pt    []float64   // p^T, m x L
	tw    TrsmWork
}

// SaveDiagBlocks returns a copy of the diagonal blocks of CholBlock
// columns of the l x l matrix g (the parts of it Cholesky writes above the
// diagonal), one after another.
func SaveDiagBlocks(g []float64, l int) []float64 {
	var out []float64
	for k0 := 0; k0 < l; k0 += CholBlock {
		k1 := min(l, k0+CholBlock)
		for i := k0; i < k1; i++ {
			out = append(out, g[i*l+k0:i*l+k1]...)
		}
	}
	return out
}

// RestoreSym undoes an in-place factorisation of the symmetric l x l
// matrix g whose diagonal blocks SaveDiagBlocks saved: the strictly
// lower part outside them is copied back from the strictly upper part
// (which Cholesky does not write outside them), and the blocks from the
// copy. A nil copy (restored already) does nothing.
func RestoreSym(g []float64, l int, saved []float64) {
	if saved == nil {
		return
	}
	const t = 64 // tiles, so that the transposed reads stay in cache
	par.Chunks((l+t-1)/t, 1, func(_, bi, _ int) {
		i0 := bi * t
		i1 := min(l, i0+t)
		for j0 := 0; j0 < i1; j0 += t {
			for i := i0; i < i1; i++ {
				for j := j0; j < min(j0+t, i); j++ {
					g[i*l+j] = g[j*l+i]
				}
			}
		}
	})
	off := 0
	for k0 := 0; k0 < l; k0 += CholBlock {
		k1 := min(l, k0+CholBlock)
		for i := k0; i < k1; i++ {
			off += copy(g[i*l+k0:i*l+k1], saved[off:])
		}
	}
}

// apply sets q = B v with B = F^-1 A F^-T (v, q, w: L x m; w is
// scratch): I + F^-1 H^T H F^-T for a fresh factor.
func (a *Near) apply(v, q, w []float64) {
	copy(w, v)
	TrsmLower(true, a.m, a.f, &a.tw, w)
	if a.g == nil {
		clear(q)
		a.addHTH(w, q)
		TrsmLower(false, a.m, a.f, &a.tw, q)
		for i, x := range v {
			q[i] += x
		}
		return
	}
	linalg.Dgemm(false, false, a.l, a.m, a.l, 1, a.g, a.l, w, a.m, 0, q, a.m)
	for i, x := range w {
		q[i] += a.ridge * x
	}
	a.addHTH(w, q)
	TrsmLower(false, a.m, a.f, &a.tw, q)
}

// addHTH adds H^T H p to q: for each kept chunk (in parallel), by
// sub-blocks of nearSub images H_s (node-major: L x r), y^T = p^T H_s
// and q_c += H_s y (the sub-block read twice while it is in cache; both
// products untransposed, which OpenBLAS ran faster than y = H_s^T p),
// then q += q_c in chunk order, so that the sums do not depend on the
// number of goroutines.
func (a *Near) addHTH(p, q []float64) {
	l, m := a.l, a.m
	pt := a.pt
	Transpose(p, l, m, pt)
	par.Chunks(len(a.kept), 1, func(c, _, _ int) {
		k, y, qc := a.kept[c], a.ys[c], a.qs[c]
		yt := y[nearSub*m:]
		clear(qc)
		for j0 := 0; j0 < k.Rows; j0 += nearSub {
			r := min(nearSub, k.Rows-j0)
			linalg.Dgemm(false, false, m, r, l, 1, pt, l, k.H[j0:], k.LD, 0, yt, r)
			Transpose(yt[:m*r], m, r, y)
			linalg.Dgemm(false, false, l, m, r, 1, k.H[j0:], k.LD, y, m, 1, qc, m)
		}
	})
	for _, qc := range a.qs {
		for i, v := range qc {
			q[i] += v
		}
	}
}

// nearSub is the images of a sub-block of addHTH: 256 images of 5000
// nodes take 10 MB (0.084 s a product by H^T H at L = 5000 and 6000 new
// images, against 0.101 s by chunks of 2048).
const nearSub = 256

// PCG solves A x = b (L x m, each column its own system) by conjugate
// gradients on the system preconditioned on both sides, B y = F^-1 b
// with B = F^-1 A F^-T and x = F^-T y (the iterates of preconditioned
// conjugate gradients, at two triangular solves and one product by H and
// H^T per step, and one by G_old for a stale factor). It starts from y = 0 and
// reports false if some column's residual did not fall below tol
// of its right-hand side F^-1 b within maxSteps steps, or the true
// residual of the result is above checkTol.
func (a *Near) PCG(b []float64, tol, checkTol float64, maxSteps int) ([]float64, bool) {
	l, m := a.l, a.m
	c := append([]float64(nil), b...)
	TrsmLower(false, m, a.f, &a.tw, c)
	y, r := make([]float64, l*m), append([]float64(nil), c...)
	p, q, w := append([]float64(nil), c...), make([]float64, l*m), make([]float64, l*m)
	cn := ColDots(c, c, m)
	rr := cn
	alpha, beta := make([]float64, m), make([]float64, m)
	done := false
	for step := 0; step < maxSteps && !done; step++ {
		a.apply(p, q, w)
		pq := ColDots(p, q, m)
		Ratios(alpha, rr, pq)
		for i := range y {
			k := i % m
			y[i] += alpha[k] * p[i]
			r[i] -= alpha[k] * q[i]
		}
		rn := ColDots(r, r, m)
		done = true
		for k := range rn {
			if rn[k] > tol*tol*cn[k] {
				done = false
			}
		}
		Ratios(beta, rn, rr)
		rr = rn
		for i := range p {
			p[i] = r[i] + beta[i%m]*p[i]
		}
	}
	if !done {
		return nil, false
	}
	// The recurrence's residual drifts from the true one: check it.
	a.apply(y, q, w)
	for i := range q {
		q[i] = c[i] - q[i]
	}
	rn := ColDots(q, q, m)
	for k := range rn {
		if rn[k] > checkTol*checkTol*cn[k] {
			return nil, false
		}
	}
	TrsmLower(true, m, a.f, &a.tw, y)
	return y, true
}

// NewNear returns the preconditioned system A = G_old + ridge I + H^T H of
// l nodes and m outputs, H the kept chunks' hidden outputs, with the
// Cholesky factor f (of G_old + ridge I itself, g nil; or of an earlier G,
// g = G_old, l x l row-major).
func NewNear(f LowerTri, g []float64, ridge float64, kept []Chunk, l, m int) *Near {
	a := &Near{f: f, g: g, kept: kept, l: l, m: m, ridge: ridge, ys: make([][]float64, len(kept)), qs: make([][]float64, len(kept))}
	for i := range kept {
		a.ys[i], a.qs[i] = make([]float64, 2*nearSub*m), make([]float64, l*m)
	}
	a.pt = make([]float64, l*m)
	return a
}
