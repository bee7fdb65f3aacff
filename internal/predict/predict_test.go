package predict

import (
	"math"
	"testing"

	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/node"
)

// TestPredictMatchesNaive checks a vector net with direct links against
// the sums written out, and that the passes' size does not
// change the bits.
func TestPredictMatchesNaive(t *testing.T) {
	const n, rows, cols, l, m = 7, 2, 2, 5, 2
	d := rows * cols
	x := direct.Images{Rows: rows, Cols: cols, Pix: make([]float32, n*d)}
	for i := range x.Pix {
		x.Pix[i] = float32((i*7)%11) / 11
	}
	net := Net{Vector: true, Rows: rows, Cols: cols, Ch: 1, NP: d, M: m, Act: node.Tanh,
		Params: make([]float32, l*d), Bias: make([]float32, l), Beta: make([]float64, l*m),
		DirectPool: 1, DirectDim: d, DirectBeta: make([]float64, d*m), Batch: 3, Chunk: 2}
	for i := range net.Params {
		net.Params[i] = float32(i%5)/5 - 0.4
	}
	for i := range net.Bias {
		net.Bias[i] = float32(i) / 10
	}
	for i := range net.Beta {
		net.Beta[i] = float64(i%3) - 1
	}
	for i := range net.DirectBeta {
		net.DirectBeta[i] = float64(i) / 8
	}
	got := net.Predict(x, n, d, net.Scratch(nil, n))
	for i := range n {
		for q := range m {
			want := 0.0
			for j := range l {
				z := float64(net.Bias[j])
				for k := range d {
					z += float64(net.Params[j*d+k]) * float64(x.Pix[i*d+k])
				}
				want += net.Beta[j*m+q] * math.Tanh(z)
			}
			for k := range d {
				want += net.DirectBeta[k*m+q] * float64(x.Pix[i*d+k])
			}
			if math.Abs(got[i*m+q]-want) > 1e-5 {
				t.Fatalf("image %d output %d: %v, want %v", i, q, got[i*m+q], want)
			}
		}
	}
	big := net
	big.Batch = 64
	again := big.Predict(x, n, d, big.Scratch(nil, n))
	for i := range got {
		if got[i] != again[i] {
			t.Fatalf("value %d: %v in passes of 3, %v in one", i, got[i], again[i])
		}
	}
}
