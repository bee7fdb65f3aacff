package lsq

import (
	"fmt"

	"github.com/scn2d/scn/internal/linalg"
)

// HeldRows returns the engine's outputs on the images idx, as rows
// (len(idx) x L, row-major) or, transposed, as columns (L x len(idx)), and
// the images' targets (len(idx) x m) from t.
func (e *Gram) HeldRows(t []float64, m int, idx []int, transposed bool) (h, th []float64) {
	l, nh := e.L, len(idx)
	rs, cs := l, 1 // where image k's column j goes: k*rs + j*cs
	if transposed {
		rs, cs = 1, nh
	}
	h = make([]float64, l*nh)
	th = make([]float64, nh*m)
	for k, i := range idx {
		sh := e.Shards[i/ShardRows]
		rows := sh.Hi - sh.Lo
		for j := 0; j < l; j++ {
			h[k*rs+j*cs] = float64(sh.H[j*rows+i-sh.Lo])
		}
		copy(th[k*m:(k+1)*m], t[i*m:(i+1)*m])
	}
	return h, th
}

// HeldOutputs returns the outputs (len(idx) x m) on the images idx of the
// ridge solution at r of the engine's L columns over every image but idx:
// G and H^T T of all the images (g0, L x L, and ht0, L x m, row-major)
// minus the images' own sums (the lower triangle of H_idx^T H_idx, half the
// multiply-adds of the whole product). work (L x L) is overwritten.
//
// copies, unless nil, calls its function with the outputs (rows x L,
// row-major) and targets (rows x m) of further rows that leave the sums
// with the images idx (their augmented copies), a chunk at a time; its
// error is returned as it is.
func (e *Gram) HeldOutputs(t []float64, m int, g0, ht0, work []float64, idx []int, r float64, copies func(idx []int, f func(rows int, h, th []float64)) error) ([]float64, error) {
	l := e.L
	nh := len(idx)
	ht, th := e.HeldRows(t, m, idx, true) // H_idx^T: row j holds column j's outputs on idx
	clear(work)
	GramLower(l, nh, ht, nh, work)
	for i := 0; i < l; i++ {
		for j := 0; j <= i; j++ {
			work[i*l+j] = g0[i*l+j] - work[i*l+j]
		}
		work[i*l+i] += r
	}
	Symmetrize(work, l)
	beta := append([]float64(nil), ht0...)
	linalg.Dgemm(false, false, l, m, nh, -1, ht, nh, th, m, 1, beta, m)
	if copies != nil {
		if err := copies(idx, func(rows int, h, tc []float64) {
			linalg.Dgemm(true, false, l, l, rows, -1, h, l, h, l, 1, work, l)
			linalg.Dgemm(true, false, l, m, rows, -1, h, l, tc, m, 1, beta, m)
		}); err != nil {
			return nil, err
		}
	}
	if err := SolveFlat(work, l, beta, m, r); err != nil {
		return nil, fmt.Errorf("scn: ridge %g: %w", r, err)
	}
	y := make([]float64, nh*m)
	linalg.Dgemm(true, false, nh, m, l, 1, ht, nh, beta, m, 0, y, m)
	return y, nil
}
