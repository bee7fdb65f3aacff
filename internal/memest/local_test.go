package memest

import (
	"testing"

	"github.com/scn2d/scn/internal/lsq"
)

// TestLocalFitByHand: a local fit's parts counted buffer by buffer with
// the sizes written out (an independent count), and the invariants: the
// caller's extras land in their parts, whitening's sample can only add,
// more filters per step cost more.
func TestLocalFitByHand(t *testing.T) {
	// 100 grey images of 10 x 10, 3 outputs; 4 filters of 3 and 5, 8
	// pooled outputs each: L = 64; 2 workers; 32 filters a step.
	g := Local{N: 100, Rows: 10, Cols: 10, Chans: 1, M: 3, Outputs: 64, PerFilter: 8, Sizes: []int{3, 5}, Filters: 4,
		Step: 32, RandomBlock: 32, WhitenSamples: 50000, Workers: 2}
	e := g.Fit()
	// Pooled outputs of a step, twice: 32*8*100 float32 each; per worker
	// one image's patches (15*15 positions of 25 values) and maps (32),
	// and one filter's outputs in float64.
	cand := int64(2*4*32*8*100 + 2*4*15*15*(25+32) + 8*8*100*2)
	if e.Candidates != cand {
		t.Errorf("candidates %d, want %d", e.Candidates, cand)
	}
	// H 100 x 64 float32, G 64 x 64, H^T T 64 x 3, targets and residuals.
	if factor := int64(4*100*64 + 8*64*64 + 8*64*3 + 3*8*100*3); e.Factor != factor {
		t.Errorf("factor %d, want %d", e.Factor, factor)
	}
	// Biases, means and scales; output weights; 8 filters of 26 values;
	// 64 bytes of trace per filter.
	if model := int64(4*64*3 + 8*64*3 + 4*8*26 + 64*8); e.Model != model {
		t.Errorf("model %d, want %d", e.Model, model)
	}
	if e.Solve != 0 {
		t.Errorf("solve %d", e.Solve)
	}
	x := g
	x.ExtraCandidates, x.ExtraFactor = 7, 11
	if f := x.Fit(); f.Candidates != e.Candidates+7 || f.Factor != e.Factor+11 || f.Model != e.Model {
		t.Errorf("extras: %+v from %+v", f, e)
	}
	w := g
	w.Whiten = true
	if f := w.Fit(); f.Candidates < e.Candidates {
		t.Errorf("whitening lowers the candidates: %d < %d", f.Candidates, e.Candidates)
	}
	s := g
	s.Step = 64
	if s.Fit().Candidates <= e.Candidates {
		t.Error("a larger step does not cost more")
	}
}

// TestLocalStream: a streamed local fit's bytes do not depend on N, grow
// with L, and count a row shard of images (4 bytes per value).
func TestLocalStream(t *testing.T) {
	g := Local{Rows: 32, Cols: 32, Chans: 3, M: 10, Outputs: 512, PerFilter: 8, Sizes: []int{5}, Filters: 64, RandomBlock: 32, WhitenSamples: 1000, Workers: 2}
	a := g.Stream()
	g.N = 1 << 30
	if b := g.Stream(); b != a {
		t.Errorf("the stream's bytes change with N: %d, %d", a, b)
	}
	if a < int64(4*32*32*3*lsq.ShardRows) {
		t.Errorf("%d bytes, below one shard of images", a)
	}
	more := g
	more.Outputs *= 2
	if more.Stream() <= a {
		t.Error("more outputs do not cost more")
	}
	w := g
	w.Whiten = true
	// The sample (1000 patches of 75 values and their plan) and the
	// covariance's matrices: 1000*(8*75+24) + 52*75*75 bytes at least.
	if w.Stream()-a != int64(1000*(8*75+24)+8*6*75*75+4*75*75) {
		t.Errorf("whitening adds %d bytes", w.Stream()-a)
	}
}

// TestLocalPredictByHand: prediction's bytes written out for one bank.
func TestLocalPredictByHand(t *testing.T) {
	p := LocalPredict{N: 10, M: 4, Nodes: 32, Rows: 8, Cols: 8, Chans: 3, Banks: [][]int{{3, 4}, {5, 2}}, Batch: 64, Workers: 2}
	// Outputs 10 x 4 float64; pooled outputs of a batch (float32 and
	// float64); per worker 9 x 9 positions of the largest filter's 75
	// values and the most filters' maps (4) and one more; the filters.
	want := int64(8*10*4 + 12*32*64 + 2*4*81*(75+4+1) + 4*75*4)
	if got := p.Bytes(); got != want {
		t.Errorf("%d bytes, want %d", got, want)
	}
}

// TestAugmentBytes: an augmented fit's extra bytes by hand, float64 Gram
// products and bfloat16.
func TestAugmentBytes(t *testing.T) {
	// 100 images (one shard), L = 16, 256 columns a step, 200 copies.
	base := int64(8*16*16 + 8*16*256 + 24*200)
	if got := Augment(100, 16, 256, 200, false, false); got != base+int64(4*16*100+8*16*100) {
		t.Errorf("float64 products: %d", got)
	}
	if got := Augment(100, 16, 256, 200, true, false); got != base+int64(4*16*100) {
		t.Errorf("float32 products: %d", got)
	}
	if got := Augment(100, 16, 256, 200, false, true); got != base+int64(4*16*100+2*16*100) {
		t.Errorf("bfloat16 products: %d", got)
	}
}
