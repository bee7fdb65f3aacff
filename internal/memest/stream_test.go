package memest

import (
	"math"
	"testing"

	"github.com/scn2d/scn/internal/lsq"
)

// TestStreamSupervisedByHand: a streamed supervised fit of vector nodes,
// its buffers written out, and its invariants: N does not count, pairs
// and float64 products cost more.
func TestStreamSupervisedByHand(t *testing.T) {
	f := Fit{Rows: 10, Cols: 10, Chans: 1, M: 2, Nodes: 20, Params: 100, Candidates: 5, BlockSize: 4, Float32Gram: true, Sizes: sizes}
	L, M, b, k, d, r := 20.0, 2.0, 4.0, 20.0, 100.0, float64(lsq.ShardRows)
	engine := 8*L*L + 8*L + 2*8*L*M + 2*8*b*L
	cand := 4*k*d + 4*k*d + 4*k + 4*256*d
	shard := 4*(L+k)*r + 2*8*M*r
	// The candidates' sums and one shard's part of them in float32.
	sums := 8*k*(L+k) + 4*k*(L+k) + 2*8*k*M + 2*8*k*(M+1)
	model := 2*(4*L*d+4*L+8*L*M) + 64*L
	if got, want := f.StreamSupervised(), int64(math.Ceil(engine+cand+shard+sums+model)); got != want {
		t.Errorf("%d bytes, want %d", got, want)
	}
	n := f
	n.N = 1 << 30
	if n.StreamSupervised() != f.StreamSupervised() {
		t.Error("N changes a streamed fit's bytes")
	}
	wide := f
	wide.Float32Gram = false
	if wide.StreamSupervised() <= f.StreamSupervised() {
		t.Error("float64 products do not cost more")
	}
	pairs := f
	pairs.Pairs = true
	if pairs.StreamSupervised() <= f.StreamSupervised() {
		t.Error("pair candidates do not cost more")
	}
}

// TestSelectionByHand: a hold-out's bytes with its share rounded up per
// class, a k-fold's with every image, and the streamed selection's, which
// hold the grid's weights instead.
func TestSelectionByHand(t *testing.T) {
	s := Selection{N: 1000, Rows: 10, Cols: 10, Chans: 1, M: 10, Nodes: 50, Validation: 0.1, PredictBatch: 128}
	// The images and targets; 110 held-out rows of 50 outputs, three
	// times; three 50 x 50 matrices; weights over the image and a batch.
	if got, want := s.Bytes(), int64(1000*(400+80)+3*110*50*8+3*50*50*8+4*50*(100+128)); got != want {
		t.Errorf("hold-out: %d, want %d", got, want)
	}
	k := s
	k.Folds = 5
	if got, want := k.Bytes(), int64(1000*(400+80)+3*1000*50*8+3*50*50*8+4*50*(100+128)); got != want {
		t.Errorf("folds: %d, want %d", got, want)
	}
	s.GridPairs = 36
	if got, want := s.Stream(), int64(17*1000+3*8*50*50+8*50*10+8*36*50*10+4*50*100+20*50*128); got != want {
		t.Errorf("streamed: %d, want %d", got, want)
	}
}
