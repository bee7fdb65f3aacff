package node

import "github.com/scn2d/scn/internal/linalg"

// Score sets h[j*rows+r] = sum_c w_jc u_j^T X_rc v_j, the inputs of c 2D
// nodes of channel weights (m.Ch > 1; params: u, v, w per node, m.Size()
// values each) on rows images xb (each m.Ch planes of Rows x Cols), plane
// by plane (linalg.Score2DStride, reading each plane in place) into the
// scratch hc (c x rows), summed over the planes in float32, in plane
// order: C times the grey work, with no expanded weights.
func (m Matrix) Score(c, rows int, params, xb, h, hc []float32) {
	np, plane, ch := m.Size(), m.Rows*m.Cols, m.Ch
	off := m.Rows + m.Cols // the channel weights' offset in a node
	for k := 0; k < ch; k++ {
		linalg.Score2DStride(c, rows, m.Rows, m.Cols, params, np, xb[k*plane:], ch*plane, hc, rows)
		for j := 0; j < c; j++ {
			wk := params[j*np+off+k]
			hj, cj := h[j*rows:(j+1)*rows], hc[j*rows:(j+1)*rows]
			if k == 0 {
				for i, v := range cj {
					hj[i] = v * wk
				}
				continue
			}
			for i, v := range cj {
				hj[i] += v * wk
			}
		}
	}
}
