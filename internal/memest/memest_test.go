package memest

import (
	"math"
	"testing"
)

var sizes = Sizes{RandomBlock: 64, CorrChunk: 4096, WeightChunk: 256, MomentSample: 10000, PredictBatch: 128, Workers: 2}

// TestSaturation: byte counts saturate at MaxInt64/2 instead of wrapping.
func TestSaturation(t *testing.T) {
	const top = math.MaxInt64 / 2
	if v := SatAdd(top-1, 5); v != top {
		t.Errorf("SatAdd past the top: %d", v)
	}
	if v := SatAdd(1, 2, 3); v != 6 {
		t.Errorf("SatAdd(1, 2, 3) = %d", v)
	}
	if BytesOf(math.Inf(1)) != top || BytesOf(math.NaN()) != top || BytesOf(2.1) != 3 {
		t.Error("BytesOf does not round up and saturate")
	}
}

// TestEstimateByHand: a QR fit of one node at a time, its parts by the
// formulas written out (an independent count of its buffers), and the
// estimate's invariants: Total is the sum, more candidates cost more, a
// one-pass block fit keeps no H.
func TestEstimateByHand(t *testing.T) {
	f := Fit{N: 1000, Rows: 28, Cols: 28, Chans: 1, M: 10, Nodes: 100, Params: 784, Supervised: true, Candidates: 10, Sizes: sizes}
	e := f.Estimate()
	N, d, k, L, M := 1000.0, 784.0, 10.0, 100.0, 10.0
	cand := 4*k*d + 4*k*d + 4*k*N + 8*k*N + 8*1*k*(M+1) + 8*N
	if e.Candidates != int64(cand) {
		t.Errorf("candidates %d, want %v", e.Candidates, cand)
	}
	factor := 8*N*128 + 8*L*(L+1)/2 + 8*L*M + 3*8*N*M // Q in blocks of 128 columns
	if e.Factor != int64(factor) {
		t.Errorf("factor %d, want %v", e.Factor, factor)
	}
	if e.Solve != 0 {
		t.Errorf("a fit below rank solves past rank: %d", e.Solve)
	}
	if e.Total() != e.Candidates+e.Factor+e.Solve+e.Model {
		t.Error("Total is not the sum of the parts")
	}
	g := f
	g.Candidates = 100
	if g.Estimate().Candidates <= e.Candidates {
		t.Error("more candidates do not cost more")
	}
	b := Fit{N: 60000, Rows: 28, Cols: 28, Chans: 1, M: 10, Nodes: 4000, Params: 784, Block: true, Ridge: true, BlockSize: 200, Sizes: sizes}
	one := b
	one.OnePass = true
	if one.Estimate().Factor >= b.Estimate().Factor {
		t.Error("a one-pass fit's factor is not below a fit that keeps H")
	}
}

// TestFormatBytes: bytes below a KiB as they are, then three significant
// digits of the largest binary unit below the count, up to PiB; negative
// counts alike.
func TestFormatBytes(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1 KiB"}, {1536, "1.5 KiB"}, {3 << 30, "3 GiB"},
		{1<<40 - 1, "1.02e+03 GiB"}, {5 << 40, "5 TiB"}, {1 << 50, "1 PiB"}, {1 << 60, "1.02e+03 PiB"},
		{-2048, "-2 KiB"}, {-5, "-5 B"},
	} {
		if got := FormatBytes(c.n); got != c.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
