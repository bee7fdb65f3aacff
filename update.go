package scn

import (
	"math"

	"github.com/scn2d/scn/internal/bigmem"
	"github.com/scn2d/scn/internal/linalg"
)

// Update returns m with its output weights solved again on the images of
// its statistics old (those of its training images, for its nodes) and
// the images of p: the model old.Merge(m.Stats(p)).Solve(ridge) gives, with
// m's ridge term, metadata and preprocessing, but without forming the new
// images' part of G when it can. If withStats, it also returns the merged
// statistics (the exact sums Merge gives: for the next update; they carry
// old's stored factor on, as Merge does).
//
// With a ridge term a > 0 and the new images' hidden outputs H (N_new x L,
// float64) taking no more memory than two copies of G (or 256 MiB), the
// output weights solve (G_old + a I + H^T H) beta = H^T T_all by conjugate
// gradients preconditioned with a Cholesky factor F of G_old + a I: the
// one stored with old (Stats.Factor, written by scn train --stats-out:
// G_old is then not needed at all, and a file opened by OpenStats never
// reads it), else one formed in place in old.G (restored before Update
// returns: old must not be used by another goroutine meanwhile), or a
// stored factor of an earlier G (a stale one, still a good
// preconditioner: each step then also multiplies by G_old). Each step
// costs two triangular solves with F and a product by H and H^T, about
// L^2 m + 2 N_new L m multiply-adds, where forming H^T H would cost
// N_new L^2 / 2 and the factor of the merged G another L^3 / 6: the new
// images being like the old ones, G_old + a I is close to the whole
// matrix and about 15 steps reach the accuracy of a direct solve (they
// stop when each output's residual is below updateTol of its right-hand
// side, and the true residual is checked at the end). Otherwise (no
// ridge, more new images, no convergence within updateMaxSteps steps) it
// forms H^T H from the kept outputs and solves the merged statistics
// directly (Stats.Solve). Either way the result is the least squares of
// all the images with m's nodes, to the accuracy of the normal equations:
// on MNIST (L = 5000, 54000 + 6000 images) the two ways' output weights
// differ by 8e-11 relative. A fresh stored factor gives the same bits as
// the factor Update forms itself.
func (m *Model) Update(old *Stats, p Problem, withStats bool) (*Model, *Stats, error) {
	ridge := m.Config.Ridge
	l, n := m.Nodes()+m.DirectDim(), p.X.Len()
	iterative := ridge > 0 && float64(n)*float64(l) <= max(2*float64(l)*float64(l), updateKeep)
	fresh, kept, err := m.sums(p, withStats || !iterative, iterative)
	if err != nil {
		return nil, nil, err
	}
	merged, err := old.merge(fresh, fresh.G != nil)
	if err != nil {
		return nil, nil, err
	}
	var nm *Model
	if iterative {
		if nm, err = merged.solveNear(old, kept, ridge); err != nil {
			return nil, nil, err
		}
	}
	if nm == nil {
		if merged.G == nil {
			g0, err := old.gram()
			if err != nil {
				return nil, nil, err
			}
			g := bigmem.Float64s(l * l)
			for _, c := range kept {
				gramLower(l, c.rows, c.h, c.ld, g)
			}
			symmetrize(g, l)
			merged.G = addVec(g0, g)
		}
		if nm, err = merged.Solve(ridge); err != nil {
			return nil, nil, err
		}
	}
	nm.Meta, nm.Preprocessing = m.Meta, m.Preprocessing
	if !withStats {
		merged = nil
	}
	return nm, merged, nil
}

const (
	// updateKeep is the hidden outputs (values) an update keeps for its
	// iterative solve whatever L: 256 MiB of float64.
	updateKeep = 1 << 25
	// updateTol is the residual, relative to the right-hand side, at
	// which the iterative solve of an update stops.
	updateTol = 1e-11
	// updateMaxSteps bounds the iterative solve's steps.
	updateMaxSteps = 100
	// updateCheckTol is the true relative residual the iterative solve
	// must reach, or the update solves directly.
	updateCheckTol = 1e-10
)

// nearSystem is the normal equations of an update, A x = b with
// A = G_old + a I + H^T H (H the new images' hidden outputs, in kept
// chunks), preconditioned on both sides with a Cholesky factor F (in the
// lower triangle of f). With g nil, F F^T is G_old + a I itself (a fresh
// factor) and A = F F^T + H^T H; otherwise F F^T factors an earlier G
// (a stale factor: a preconditioner only) and A is applied with g = G_old.
type nearSystem struct {
	f     lowerTri
	g     []float64
	ridge float64
	kept  []hiddenChunk
	l, m  int
	ys    [][]float64 // per chunk, y and y^T of a sub-block: 2 updateSub m
	qs    [][]float64 // per chunk, L x m
	pt    []float64   // p^T, m x L
	tw    trsmWork
}

// solveNear returns the model s's sums give with the ridge term ridge,
// solved by conjugate gradients on A = G_old + ridge I + H^T H (G_old the
// G of old, H the kept hidden outputs; s.G need not be formed), or nil if
// the factor or the iteration failed (the caller then solves directly).
// The preconditioner is, in order of preference: old's stored factor of
// its own G + ridge I (old.G is then not needed, nor read by OpenStats),
// old's stored factor of an earlier G or of another ridge (a stale one:
// each step also multiplies by G_old, L^2 m multiply-adds, instead of
// factoring it, L^3 / 6), or a factor of G_old + ridge I formed in place
// in old.G (its lower triangle, restored before solveNear returns: the
// strictly upper part is not written, the diagonal blocks are saved; old
// must not be used by another goroutine meanwhile).
func (s *Stats) solveNear(old *Stats, kept []hiddenChunk, ridge float64) (*Model, error) {
	l, m := s.Nodes(), s.M
	a := &nearSystem{kept: kept, l: l, m: m, ridge: ridge, ys: make([][]float64, len(kept)), qs: make([][]float64, len(kept))}
	for i := range kept {
		a.ys[i], a.qs[i] = make([]float64, 2*updateSub*m), make([]float64, l*m)
	}
	a.pt = make([]float64, l*m)
	switch fa := old.Factor; {
	case old.freshFactor(ridge):
		a.f = fa.tri()
	case fa != nil && fa.l == l:
		// A stale factor: a preconditioner of the true A, applied with G.
		g0, err := old.gram()
		if err != nil {
			return nil, err
		}
		a.f, a.g = fa.tri(), g0
	default:
		g0, err := old.gram()
		if err != nil {
			return nil, err
		}
		saved := saveDiagBlocks(g0, l)
		defer restoreSym(g0, l, saved)
		for i := 0; i < l; i++ {
			g0[i*l+i] += ridge
		}
		if cholesky(g0, l, l, ridge) != nil {
			return nil, nil
		}
		a.f = fullTri(g0, l)
	}
	beta, ok := a.pcg(s.HT)
	if !ok {
		return nil, nil
	}
	return s.model(beta, ridge, s.nearRMSE(beta, ridge)), nil
}

// saveDiagBlocks returns a copy of the diagonal blocks of cholBlock
// columns of the l x l matrix g (the parts of it cholesky writes above the
// diagonal), one after another.
func saveDiagBlocks(g []float64, l int) []float64 {
	var out []float64
	for k0 := 0; k0 < l; k0 += cholBlock {
		k1 := min(l, k0+cholBlock)
		for i := k0; i < k1; i++ {
			out = append(out, g[i*l+k0:i*l+k1]...)
		}
	}
	return out
}

// restoreSym undoes an in-place factorisation of the symmetric l x l
// matrix g whose diagonal blocks saveDiagBlocks saved: the strictly
// lower part outside them is copied back from the strictly upper part
// (which cholesky does not write outside them), and the blocks from the
// copy. A nil copy (restored already) does nothing.
func restoreSym(g []float64, l int, saved []float64) {
	if saved == nil {
		return
	}
	const t = 64 // tiles, so that the transposed reads stay in cache
	forChunks((l+t-1)/t, 1, func(_, bi, _ int) {
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
	for k0 := 0; k0 < l; k0 += cholBlock {
		k1 := min(l, k0+cholBlock)
		for i := k0; i < k1; i++ {
			off += copy(g[i*l+k0:i*l+k1], saved[off:])
		}
	}
}

// apply sets q = B v with B = F^-1 A F^-T (v, q, w: L x m; w is
// scratch): I + F^-1 H^T H F^-T for a fresh factor.
func (a *nearSystem) apply(v, q, w []float64) {
	copy(w, v)
	trsmLower(true, a.m, a.f, &a.tw, w)
	if a.g == nil {
		clear(q)
		a.addHTH(w, q)
		trsmLower(false, a.m, a.f, &a.tw, q)
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
	trsmLower(false, a.m, a.f, &a.tw, q)
}

// addHTH adds H^T H p to q: for each kept chunk (in parallel), by
// sub-blocks of updateSub images H_s (node-major: L x r), y^T = p^T H_s
// and q_c += H_s y (the sub-block read twice while it is in cache; both
// products untransposed, which OpenBLAS ran faster than y = H_s^T p),
// then q += q_c in chunk order, so that the sums do not depend on the
// number of goroutines.
func (a *nearSystem) addHTH(p, q []float64) {
	l, m := a.l, a.m
	pt := a.pt
	transpose(p, l, m, pt)
	forChunks(len(a.kept), 1, func(c, _, _ int) {
		k, y, qc := a.kept[c], a.ys[c], a.qs[c]
		yt := y[updateSub*m:]
		clear(qc)
		for j0 := 0; j0 < k.rows; j0 += updateSub {
			r := min(updateSub, k.rows-j0)
			linalg.Dgemm(false, false, m, r, l, 1, pt, l, k.h[j0:], k.ld, 0, yt, r)
			transpose(yt[:m*r], m, r, y)
			linalg.Dgemm(false, false, l, m, r, 1, k.h[j0:], k.ld, y, m, 1, qc, m)
		}
	})
	for _, qc := range a.qs {
		for i, v := range qc {
			q[i] += v
		}
	}
}

// transpose sets dst (c x r) to the transpose of src (r x c).
func transpose(src []float64, r, c int, dst []float64) {
	for i := 0; i < r; i++ {
		for j, v := range src[i*c : (i+1)*c] {
			dst[j*r+i] = v
		}
	}
}

// updateSub is the images of a sub-block of addHTH: 256 images of 5000
// nodes take 10 MB (0.084 s a product by H^T H at L = 5000 and 6000 new
// images, against 0.101 s by chunks of 2048).
const updateSub = 256

// pcg solves A x = b (L x m, each column its own system) by conjugate
// gradients on the system preconditioned on both sides, B y = F^-1 b
// with B = F^-1 A F^-T and x = F^-T y (the iterates of preconditioned
// conjugate gradients, at two triangular solves and one product by H and
// H^T per step, and one by G_old for a stale factor). It starts from y = 0 and
// reports false if some column's residual did not fall below updateTol
// of its right-hand side F^-1 b within updateMaxSteps steps, or the true
// residual of the result is above updateCheckTol.
func (a *nearSystem) pcg(b []float64) ([]float64, bool) {
	l, m := a.l, a.m
	c := append([]float64(nil), b...)
	trsmLower(false, m, a.f, &a.tw, c)
	y, r := make([]float64, l*m), append([]float64(nil), c...)
	p, q, w := append([]float64(nil), c...), make([]float64, l*m), make([]float64, l*m)
	cn := colDots(c, c, m)
	rr := cn
	alpha, beta := make([]float64, m), make([]float64, m)
	tol := updateTol
	done := false
	for step := 0; step < updateMaxSteps && !done; step++ {
		a.apply(p, q, w)
		pq := colDots(p, q, m)
		for k := range alpha {
			alpha[k] = 0
			if pq[k] > 0 {
				alpha[k] = rr[k] / pq[k]
			}
		}
		for i := range y {
			k := i % m
			y[i] += alpha[k] * p[i]
			r[i] -= alpha[k] * q[i]
		}
		rn := colDots(r, r, m)
		done = true
		for k := range rn {
			if rn[k] > tol*tol*cn[k] {
				done = false
			}
		}
		for k := range beta {
			beta[k] = 0
			if rr[k] > 0 {
				beta[k] = rn[k] / rr[k]
			}
		}
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
	rn := colDots(q, q, m)
	for k := range rn {
		if rn[k] > updateCheckTol*updateCheckTol*cn[k] {
			return nil, false
		}
	}
	trsmLower(true, m, a.f, &a.tw, y)
	return y, true
}

// colDots returns the dot product of each column of a and b (n x m,
// row-major), each summed in order of rows.
func colDots(a, b []float64, m int) []float64 {
	out := make([]float64, m)
	for i := range a {
		out[i%m] += a[i] * b[i]
	}
	return out
}

// nearRMSE is the training RMSE of beta on the images of s from the sums
// and the normal equations beta solves, (G + a I) beta = H^T T for G the
// G of all the images: ||T - H beta||^2 = tr(T^T T) - 2 tr(beta^T H^T T)
// + tr(beta^T G beta) = tr(T^T T) - tr(beta^T H^T T) - a ||beta||^2 (to
// the accuracy of the solve, without G).
func (s *Stats) nearRMSE(beta []float64, ridge float64) float64 {
	m := s.M
	var rss float64
	for q := 0; q < m; q++ {
		rss += s.TT[q*m+q]
	}
	for i, b := range beta {
		rss -= b*s.HT[i] + ridge*b*b
	}
	return math.Sqrt(max(rss, 0) / float64(s.N*m))
}

// trsmBlock is the rows of a diagonal block of trsmLower.
const trsmBlock = 256

// trsmWork is the scratch of trsmLower (allocated at the first call).
type trsmWork struct{ acc, xt []float64 }

// trsmLower sets b = F^-1 b (trans false) or b = F^-T b (trans true) for
// the lower triangular F of t and b of L x m, by its panels of trsmBlock
// rows: each diagonal block by a triangular solve, the rest of F by
// untransposed products (linalg.Dgemm), which ran faster than one
// triangular solve of the whole of F with few right-hand sides (OpenBLAS's
// dtrsm, m = 10) and than transposed products. For F^-T, the products of
// the solved blocks with their panels are summed transposed (m x L, in w)
// and taken off each block before it is solved.
func trsmLower(trans bool, m int, t lowerTri, w *trsmWork, b []float64) {
	l := t.l
	if l == 0 || m == 0 {
		return
	}
	nb := len(t.p)
	if !trans {
		for k := 0; k < nb; k++ {
			i0, i1 := k*trsmBlock, min(l, (k+1)*trsmBlock)
			p, ld := t.p[k], t.ld[k]
			if i0 > 0 {
				linalg.Dgemm(false, false, i1-i0, m, i0, -1, p, ld, b, m, 1, b[i0*m:], m)
			}
			linalg.TrsmLeftLower(false, i1-i0, m, p[i0:], ld, b[i0*m:], m)
		}
		return
	}
	if len(w.acc) != l*m {
		w.acc, w.xt = make([]float64, l*m), make([]float64, trsmBlock*m)
	}
	acc := w.acc
	clear(acc)
	for k := nb - 1; k >= 0; k-- {
		i0, i1 := k*trsmBlock, min(l, (k+1)*trsmBlock)
		p, ld := t.p[k], t.ld[k]
		if k < nb-1 {
			for i := i0; i < i1; i++ {
				for q := 0; q < m; q++ {
					b[i*m+q] -= acc[q*l+i]
				}
			}
		}
		linalg.TrsmLeftLower(true, i1-i0, m, p[i0:], ld, b[i0*m:], m)
		if i0 > 0 {
			xt := w.xt[:(i1-i0)*m]
			transpose(b[i0*m:i1*m], i1-i0, m, xt)
			linalg.Dgemm(false, false, m, i0, i1-i0, 1, xt, i1-i0, p, ld, 1, acc, l)
		}
	}
}
