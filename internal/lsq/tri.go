package lsq

import "github.com/scn2d/scn/internal/linalg"

// LowerTri is a lower triangular l x l matrix by panels of trsmBlock
// rows: panel k (rows i0 = k trsmBlock to i1 = min(l, i0 + trsmBlock))
// is p[k], row-major with leading dimension ld[k], its columns 0 to i1
// (what lies above the diagonal is not read).
type LowerTri struct {
	l  int
	p  [][]float64
	ld []int
}

// FullTri is the lower triangle of the l x l row-major matrix f.
func FullTri(f []float64, l int) LowerTri {
	t := LowerTri{l: l}
	for i0 := 0; i0 < l; i0 += TrsmBlock {
		t.p = append(t.p, f[i0*l:])
		t.ld = append(t.ld, l)
	}
	return t
}

// PackedLen is the values of packedTri for order l.
func PackedLen(l int) int {
	n := 0
	for i0 := 0; i0 < l; i0 += TrsmBlock {
		i1 := min(l, i0+TrsmBlock)
		n += (i1 - i0) * i1
	}
	return n
}

// PackedTri lays the panels of an order l triangle one after another in
// p (packedLen(l) values), each of leading dimension i1: L (L + trsmBlock)
// / 2 values at most.
func PackedTri(p []float64, l int) LowerTri {
	t := LowerTri{l: l}
	off := 0
	for i0 := 0; i0 < l; i0 += TrsmBlock {
		i1 := min(l, i0+TrsmBlock)
		t.p = append(t.p, p[off:off+(i1-i0)*i1])
		t.ld = append(t.ld, i1)
		off += (i1 - i0) * i1
	}
	return t
}

// Row returns F[i][0..i].
func (t LowerTri) Row(i int) []float64 {
	k := i / TrsmBlock
	r := (i - k*TrsmBlock) * t.ld[k]
	return t.p[k][r : r+i+1]
}

// TrsmBlock is the rows of a diagonal block of trsmLower.
const TrsmBlock = 256

// TrsmWork is the scratch of trsmLower (allocated at the first call).
type TrsmWork struct{ acc, xt []float64 }

// TrsmLower sets b = F^-1 b (trans false) or b = F^-T b (trans true) for
// the lower triangular F of t and b of L x m, by its panels of trsmBlock
// rows: each diagonal block by a triangular solve, the rest of F by
// untransposed products (linalg.Dgemm), which ran faster than one
// triangular solve of the whole of F with few right-hand sides (OpenBLAS's
// dtrsm, m = 10) and than transposed products. For F^-T, the products of
// the solved blocks with their panels are summed transposed (m x L, in w)
// and taken off each block before it is solved.
func TrsmLower(trans bool, m int, t LowerTri, w *TrsmWork, b []float64) {
	l := t.l
	if l == 0 || m == 0 {
		return
	}
	nb := len(t.p)
	if !trans {
		for k := 0; k < nb; k++ {
			i0, i1 := k*TrsmBlock, min(l, (k+1)*TrsmBlock)
			p, ld := t.p[k], t.ld[k]
			if i0 > 0 {
				linalg.Dgemm(false, false, i1-i0, m, i0, -1, p, ld, b, m, 1, b[i0*m:], m)
			}
			linalg.TrsmLeftLower(false, i1-i0, m, p[i0:], ld, b[i0*m:], m)
		}
		return
	}
	if len(w.acc) != l*m {
		w.acc, w.xt = make([]float64, l*m), make([]float64, TrsmBlock*m)
	}
	acc := w.acc
	clear(acc)
	for k := nb - 1; k >= 0; k-- {
		i0, i1 := k*TrsmBlock, min(l, (k+1)*TrsmBlock)
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
			Transpose(b[i0*m:i1*m], i1-i0, m, xt)
			linalg.Dgemm(false, false, m, i0, i1-i0, 1, xt, i1-i0, p, ld, 1, acc, l)
		}
	}
}

// Panels is the number of row panels of t (TrsmBlock rows each, the last
// possibly fewer).
func (t LowerTri) Panels() int { return len(t.p) }

// Panel returns panel k of t, row-major with leading dimension ld: rows
// k TrsmBlock to min(l, (k+1) TrsmBlock), columns 0 to the panel's last row.
func (t LowerTri) Panel(k int) (p []float64, ld int) { return t.p[k], t.ld[k] }
