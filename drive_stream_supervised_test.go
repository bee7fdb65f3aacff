package scn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/linalg"
)

// sameStreamed fails unless the streamed model got is the fit in memory
// want: the same file, byte for byte, where the Gram and output products
// are the project's kernels or gonum's (every element a function of its
// two rows and the inner length, whatever the product's shape, so the
// candidates' products a streamed pass forms are the block's); with
// OpenBLAS, whose dgemm and sgemm kernels depend on the call's shape, the
// same nodes, trace (but for its RMSE) and stop, training RMSEs equal to
// within tol relative and output weights to within 100 tol (the callers
// give 1e-6: float32 Gram products round at 6e-8 of each sum, and the
// ridge solve amplifies it: 1e-5 seen).
func sameStreamed(t *testing.T, name string, got, want *Model, tol float64) {
	t.Helper()
	if linalg.Backend() != "openblas" {
		if !bytes.Equal(modelBytes(t, got), modelBytes(t, want)) {
			t.Fatalf("%s: the streamed model differs from the fit in memory (%d nodes, %v, RMSE %v; in memory %d, %v, %v)", name,
				got.Nodes(), got.Summary.Stop, got.Summary.TrainRMSE, want.Nodes(), want.Summary.Stop, want.Summary.TrainRMSE)
		}
		return
	}
	if !slices.Equal(got.Params, want.Params) || !slices.Equal(got.Bias, want.Bias) || got.Summary.Stop != want.Summary.Stop {
		t.Fatalf("%s: the streamed nodes differ from the fit in memory (%d nodes, %v; in memory %d, %v)", name, got.Nodes(), got.Summary.Stop, want.Nodes(), want.Summary.Stop)
	}
	for i, st := range want.Summary.Trace {
		g := got.Summary.Trace[i]
		if g.Scale != st.Scale || g.Ratio != st.Ratio || g.Tried != st.Tried || g.Rejected != st.Rejected || math.Abs(g.RMSE-st.RMSE) > tol*st.RMSE {
			t.Fatalf("%s: step %d streamed %+v, in memory %+v", name, i+1, g, st)
		}
	}
	if d := relDiff(got.Beta, want.Beta); d > 100*tol || math.Abs(got.Summary.TrainRMSE-want.Summary.TrainRMSE) > tol*want.Summary.TrainRMSE {
		t.Fatalf("%s: output weights differ by %.3g relative, training RMSE %v and %v", name, d, got.Summary.TrainRMSE, want.Summary.TrainRMSE)
	}
}

// streamSupervisedConfig is a small supervised block configuration that
// FitStream takes: the fast preset's nodes (pair candidates for 2DSCN) on
// receptive fields for 9 x 7 images, or plain uniform nodes.
func streamSupervisedConfig(k Kind, plain bool) Config {
	c := Fast(k)
	c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 60, 20, 3, 6
	if plain {
		c.FieldMin, c.FieldMax, c.Standardize, c.Differences = 0, 0, false, false
		c.Scales = []float64{1, 5}
	}
	return c
}

// TestFitStreamSupervisedIsTheFit: streamed SCN and 2DSCN fits, their
// source cut into shards that do not line up with the engine's row
// shards (64 images: five for 300 images, the last one short), give the
// model file of Fit on the same images, byte for byte, and its trace,
// for float64 and float32 Gram products, standardised difference nodes on
// receptive fields and plain uniform nodes, 2DSCN's candidates drawn one
// by one and as pairs, a block size that divides L_max and one that does
// not.
func TestFitStreamSupervisedIsTheFit(t *testing.T) {
	withShardRows(t, 64)
	p := oddProblem(t, 300)
	for _, k := range []Kind{SCN2D, SCN} {
		for _, prec := range gramPrecisions[:2] {
			for _, plain := range []bool{false, true} {
				for _, bs := range []int{20, 25} {
					for _, pairs := range []bool{false, true} {
						c := streamSupervisedConfig(k, plain)
						c.BlockSize = bs
						if k != SCN2D && pairs {
							continue
						}
						c.Pairs = pairs
						setGramPrecision(&c, prec)
						name := fmt.Sprintf("%v %s plain %v block %d pairs %v", k, prec, plain, bs, pairs)
						in := fitT(t, c, p)
						for _, sizes := range [][]int{{300}, {37, 101, 1}, {64}} {
							var steps []Step
							m, err := c.FitStream(context.Background(), ProblemSource(p, sizes...), func(s Step) { steps = append(steps, s) })
							if err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							sameStreamed(t, fmt.Sprintf("%s, source shards %v", name, sizes), m, in, 1e-6)
							if !reflect.DeepEqual(steps, m.Summary.Trace) {
								t.Fatalf("%s: the streamed progress differs from its trace", name)
							}
						}
					}
				}
			}
		}
	}
}

// TestFitStreamSupervisedDefaultShards: the same at the real row shard
// size (three of 2048 images, the last one short) with the fast preset's
// nodes (2DSCN: pair candidates), with the in-memory
// fit's supervisory inequality checked on the streamed trace: the
// training residual never grows from block to block.
func TestFitStreamSupervisedDefaultShards(t *testing.T) {
	p := blobProblem(t, 4500)
	for _, k := range []Kind{SCN2D, SCN} {
		c := Fast(k)
		c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 80, 40, 3, 6
		want := fitT(t, c, p)
		got, err := c.FitStream(context.Background(), ProblemSource(p, 999, 3000), nil)
		if err != nil {
			t.Fatal(err)
		}
		sameStreamed(t, k.String(), got, want, 1e-6)
		if got.Nodes() != c.MaxNodes {
			t.Fatalf("%v: %d nodes (%v), want %d", k, got.Nodes(), got.Summary.Stop, c.MaxNodes)
		}
		t.Logf("%v: %d nodes, training RMSE %.4g, %d candidates tried", k, got.Nodes(), got.Summary.TrainRMSE, got.Summary.Tried)
		prev := got.Summary.Trace[0].RMSE
		for _, st := range got.Summary.Trace {
			if st.RMSE > prev {
				t.Fatalf("%v: the training RMSE grew from %v to %v at node %d", k, prev, st.RMSE, st.L)
			}
			prev = st.RMSE
		}
	}
}

// TestFitStreamSupervisedInequality: every node of a streamed 2DSCN fit
// meets the supervisory inequality at its block's r, recomputed from the
// model's hidden outputs on the training images: with e the residual
// before the block (at the ridge) and h the node's column,
// (e_q^T h)^2 / h^T h >= (1 - r) e_q^T e_q for every output q; and the
// training residual never grows.
func TestFitStreamSupervisedInequality(t *testing.T) {
	withShardRows(t, 64)
	p := oddProblem(t, 300)
	c := streamSupervisedConfig(SCN2D, true)
	c.Float32Gram = false
	m := fitStreamT(t, c, p, 50)
	h := hiddenDense(m, p.X)
	n, mm := p.X.Len(), p.M
	path := mustPath(t, c, p)
	l0 := 0
	prevRSS := -1.0
	for l0 < m.Nodes() {
		// The block's nodes: the steps up to the next one with Tried set.
		l1 := l0 + 1
		for l1 < m.Nodes() && m.Summary.Trace[l1].Tried == 0 {
			l1++
		}
		// The residual before the block, at the fit's ridge.
		e := make([]float64, n*mm)
		copy(e, p.T)
		if l0 > 0 {
			prefix, err := path.Solve(l0, c.Ridge)
			if err != nil {
				t.Fatal(err)
			}
			out, err := prefix.Predict(p.X)
			if err != nil {
				t.Fatal(err)
			}
			for i := range e {
				e[i] -= out[i]
			}
		}
		rss := 0.0
		for _, v := range e {
			rss += v * v
		}
		if prevRSS >= 0 && rss > prevRSS*(1+1e-9) {
			t.Fatalf("the residual grew from %v to %v before node %d", prevRSS, rss, l0+1)
		}
		prevRSS = rss
		for j := l0; j < l1; j++ {
			r := m.Summary.Trace[j].Ratio
			var hh float64
			for i := 0; i < n; i++ {
				v := h.At(i, j)
				hh += v * v
			}
			for q := 0; q < mm; q++ {
				var eh, ee float64
				for i := 0; i < n; i++ {
					eh += e[i*mm+q] * h.At(i, j)
					ee += e[i*mm+q] * e[i*mm+q]
				}
				if xi := eh*eh/hh - (1-r)*ee; xi < -1e-9*ee {
					t.Fatalf("node %d, output %d: xi = %v < 0 at r = %v", j+1, q, xi, r)
				}
			}
		}
		l0 = l1
	}
}

// mustPath fits c on p in memory and returns its path.
func mustPath(t *testing.T, c Config, p Problem) *Path {
	t.Helper()
	path, err := c.FitPath(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFitStreamSupervisedBadInput: a shard with another image size stops
// a streamed 2DSCN fit with its name and no model; a cancelled stream
// returns the context's error and no model, in the first pass, in a
// block's pass and in the last pass; a fit reads the stream ceil(L /
// block) + 2 times (without pair candidates; with them and standardised
// nodes, twice per block); bfloat16 Gram products are refused.
func TestFitStreamSupervisedBadInput(t *testing.T) {
	p := oddProblem(t, 300)
	c := streamSupervisedConfig(SCN2D, false)
	c.Pairs = false
	m, err := c.FitStream(context.Background(), badShapeSource{p}, nil)
	if m != nil || err == nil || !strings.Contains(err.Error(), "part-00002") || !errors.Is(err, ErrData) {
		t.Fatalf("a shard of 7 x 9 images among 9 x 7: model %v, error %v", m != nil, err)
	}
	// 6 shards a pass; 60 nodes in blocks of 20: passes 1 (scan), 2-4
	// (blocks), 5 (the last residual).
	for _, after := range []int{2, 8, 15, 28} {
		ctx, cancel := context.WithCancel(context.Background())
		seen := 0
		m, err := c.FitStream(ctx, cancelSource{ProblemSource(p, 50), after, cancel, &seen}, nil)
		cancel()
		if m != nil || !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled after %d shards: model %v, error %v", after, m != nil, err)
		}
	}
	seen := 0
	if _, err := c.FitStream(context.Background(), cancelSource{ProblemSource(p, 50), -1, func() {}, &seen}, nil); err != nil {
		t.Fatal(err)
	}
	if seen != 5*6 {
		t.Fatalf("%d shards read, want 5 passes of 6", seen)
	}
	c.Pairs, seen = true, 0
	if _, err := c.FitStream(context.Background(), cancelSource{ProblemSource(p, 50), -1, func() {}, &seen}, nil); err != nil {
		t.Fatal(err)
	}
	if seen != 8*6 {
		t.Fatalf("pair candidates: %d shards read, want 8 passes of 6", seen)
	}
	cc := c
	cc.BF16Gram = true
	if m, err := cc.FitStream(context.Background(), ProblemSource(p, 50), nil); m != nil || !errors.Is(err, ErrConfig) {
		t.Fatalf("bfloat16 Gram products: model %v, error %v", m != nil, err)
	}
}

// TestEstimateStreamSupervisedMemory: the estimate of a streamed
// supervised fit (the fast 2DSCN: L = 3000, 2025 pair candidates per
// block) counts G and the candidates' sums and stays below the in-memory
// fit of MNIST's 60000 images.
func TestEstimateStreamSupervisedMemory(t *testing.T) {
	c := Fast(SCN2D)
	s := c.EstimateStreamMemory(28, 28, 10)
	k := 45.0 * 45
	if min := 8*3000.0*3000 + 8*k*(3000+k); float64(s) < min {
		t.Fatalf("streamed estimate %d below G's and the candidates' sums' %v bytes", s, min)
	}
	if in := c.EstimateBytes(60000, 28, 28, 10) + 60000*784*4; s >= in {
		t.Fatalf("streamed %d bytes, in memory %d", s, in)
	}
}

// TestFitStreamSupervisedStops: the streamed fit stops where the fit in
// memory stops, with its model file: for want of an admissible candidate
// after steps that tried several scales (one pass each) and blocks left
// part full, and at the tolerance on the training RMSE.
func TestFitStreamSupervisedStops(t *testing.T) {
	withShardRows(t, 64)
	p := oddProblem(t, 300)
	for _, k := range []Kind{SCN, SCN2D} {
		c := streamSupervisedConfig(k, true)
		c.Ratios, c.Scales, c.BlockSize, c.MaxNodes = []float64{0.999}, []float64{0.5, 1, 5}, 10, 300
		want := fitT(t, c, p)
		scales := map[float64]bool{}
		for _, st := range want.Summary.Trace {
			scales[st.Scale] = true
		}
		if want.Summary.Stop != NoAdmissible || len(scales) < 2 || want.Nodes()%10 == 0 {
			t.Fatalf("%v: the fit in memory stopped at %d nodes (%v) with scales %v: not the case tested", k, want.Nodes(), want.Summary.Stop, scales)
		}
		sameStreamed(t, k.String()+" without admissible candidates", fitStreamT(t, c, p, 37, 101, 1), want, 1e-6)
		c = streamSupervisedConfig(k, false)
		full := fitT(t, c, p)
		c.Tolerance = full.Summary.Trace[2*c.BlockSize-1].RMSE
		want = fitT(t, c, p)
		if want.Summary.Stop != ReachedTolerance || want.Nodes() != 2*c.BlockSize {
			t.Fatalf("%v: the fit in memory stopped at %d nodes (%v): not the case tested", k, want.Nodes(), want.Summary.Stop)
		}
		sameStreamed(t, k.String()+" at the tolerance", fitStreamT(t, c, p, 50), want, 1e-6)
	}
}
