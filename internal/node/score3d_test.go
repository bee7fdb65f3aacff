package node

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMatrixScore: the inputs of 2D nodes with channel weights on images
// of three planes equal sum_c w_c u^T X_c v formed directly, and w^T
// vec(X) with the node's weight over the image (Weight).
func TestMatrixScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(95, 96))
	mp := Matrix{Rows: 5, Cols: 4, Ch: 3}
	const c, rows = 6, 7
	np, d := mp.Size(), mp.Ch*mp.Rows*mp.Cols
	params := make([]float32, c*np)
	for i := range params {
		params[i] = float32(rng.NormFloat64())
	}
	xb := make([]float32, rows*d)
	for i := range xb {
		xb[i] = float32(rng.Float64())
	}
	h, hc := make([]float32, c*rows), make([]float32, c*rows)
	mp.Score(c, rows, params, xb, h, hc)
	w := make([]float32, d)
	for j := 0; j < c; j++ {
		p := params[j*np : (j+1)*np]
		u, v, wc := p[:mp.Rows], p[mp.Rows:mp.Rows+mp.Cols], p[mp.Rows+mp.Cols:]
		mp.Weight(p, w)
		for r := 0; r < rows; r++ {
			x := xb[r*d : (r+1)*d]
			var want, viaW float64
			for k := 0; k < mp.Ch; k++ {
				var s float64
				for a := 0; a < mp.Rows; a++ {
					for b := 0; b < mp.Cols; b++ {
						s += float64(u[a]) * float64(x[k*mp.Rows*mp.Cols+a*mp.Cols+b]) * float64(v[b])
					}
				}
				want += float64(wc[k]) * s
			}
			for i, wi := range w {
				viaW += float64(wi) * float64(x[i])
			}
			got := float64(h[j*rows+r])
			if math.Abs(got-want) > 1e-4*(1+math.Abs(want)) || math.Abs(got-viaW) > 1e-4*(1+math.Abs(viaW)) {
				t.Fatalf("node %d image %d: %v, direct %v, via the weight %v", j, r, got, want, viaW)
			}
		}
	}
}
