package scn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/scn2d/scn/internal/lsq"
)

// withShardRows sets the shard size for one test, so that small problems
// have many shards (and a short last one).
func withShardRows(t *testing.T, rows int) {
	t.Helper()
	old := lsq.ShardRows
	lsq.ShardRows = rows
	t.Cleanup(func() { lsq.ShardRows = old })
}

// withOnePass sets whether fits that can take the one-pass path take it.
func withOnePass(t *testing.T, on bool) {
	t.Helper()
	old := onePassFits
	onePassFits = on
	t.Cleanup(func() { onePassFits = old })
}

// oddProblem is a classification problem of n 9 x 7 images (63 pixels: the
// scoring kernels' tails are used).
func oddProblem(t testing.TB, n int) Problem {
	x, y, names := blobs(n, 9, 7, 3, 8)
	p, err := Classification(x, y, names)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fitBoth fits c on p by the block-by-block path and by the one-pass path.
func fitBoth(t *testing.T, c Config, p Problem) (old, one *Path) {
	t.Helper()
	if !c.onePass() {
		t.Fatalf("%+v does not take the one-pass path", c)
	}
	for _, on := range []bool{false, true} {
		onePassFits = on
		path, err := c.FitPath(context.Background(), p, nil)
		onePassFits = true
		if err != nil {
			t.Fatal(err)
		}
		if on {
			one = path
		} else {
			old = path
		}
	}
	eng := one.eng.(*lsq.Gram)
	for _, sh := range eng.Shards {
		if sh.H != nil {
			t.Fatal("a one-pass fit stored hidden outputs")
		}
	}
	if eng.Acc != nil {
		t.Fatal("a one-pass fit left accumulated sums behind")
	}
	if old.eng.(*lsq.Gram).Shards[0].H == nil {
		t.Fatal("the block-by-block path kept no hidden outputs")
	}
	return old, one
}

// modelBytes returns m's file.
func modelBytes(t *testing.T, m *Model) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fileWhateverGOMAXPROCS fits c on p at GOMAXPROCS 1, 2 and 1 (restoring
// it after) and returns the first model file, and whether the three files
// are the same bytes.
func fileWhateverGOMAXPROCS(t *testing.T, c Config, p Problem) ([]byte, bool) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var files [][]byte
	for _, procs := range []int{1, 2, 1} {
		runtime.GOMAXPROCS(procs)
		files = append(files, modelBytes(t, fitT(t, c, p)))
	}
	return files[0], bytes.Equal(files[0], files[1]) && bytes.Equal(files[0], files[2])
}

// samePaths fails unless the two paths' models, traces and prefixes (at
// the fit's ridge and another) are the same bytes.
func samePaths(t *testing.T, name string, old, one *Path) {
	t.Helper()
	if !bytes.Equal(modelBytes(t, old.Model()), modelBytes(t, one.Model())) {
		t.Fatalf("%s: the one-pass model file differs from the block-by-block one", name)
	}
	if !reflect.DeepEqual(old.Model().Summary.Trace, one.Model().Summary.Trace) {
		t.Fatalf("%s: traces differ", name)
	}
	if old.Model().Summary.TrainRMSE != one.Model().Summary.TrainRMSE || old.independent != one.independent {
		t.Fatalf("%s: training RMSE %v and %v, independent %d and %d", name,
			old.Model().Summary.TrainRMSE, one.Model().Summary.TrainRMSE, old.independent, one.independent)
	}
	l := old.Nodes()
	for _, pl := range []int{1, l / 3, l/2 + 1, l} {
		if pl < 1 {
			continue
		}
		a, erra := old.Prefix(pl)
		b, errb := one.Prefix(pl)
		if erra != nil || errb != nil {
			t.Fatalf("%s: prefix %d: %v, %v", name, pl, erra, errb)
		}
		if !bytes.Equal(modelBytes(t, a), modelBytes(t, b)) || a.Summary.TrainRMSE != b.Summary.TrainRMSE {
			t.Fatalf("%s: prefixes of %d nodes differ", name, pl)
		}
		a, erra = old.Solve(pl, 0.037)
		b, errb = one.Solve(pl, 0.037)
		if erra != nil || errb != nil {
			t.Fatalf("%s: solve %d: %v, %v", name, pl, erra, errb)
		}
		if !bytes.Equal(modelBytes(t, a), modelBytes(t, b)) {
			t.Fatalf("%s: models of %d nodes at another ridge differ", name, pl)
		}
	}
}

// gramPrecisions are the block engine's Gram precisions.
var gramPrecisions = []string{"float64", "float32", "bfloat16"}

// setGramPrecision sets c's Gram precision by its name in gramPrecisions.
func setGramPrecision(c *Config, prec string) {
	c.Float32Gram, c.BF16Gram = prec == "float32", prec == "bfloat16"
}

// TestOnePassIsTheBlockPath: one-pass fits of the random learners give the
// block-by-block path's model files, traces and prefixes, byte for byte,
// over block sizes (one that divides L_max, one that does not, one block,
// a block larger than L_max), float64, float32 and bfloat16 Gram products, the
// activations, and L_max past N. Shards of 64 images give the 300 images
// five shards, the last one short.
func TestOnePassIsTheBlockPath(t *testing.T) {
	withShardRows(t, 64)
	p := oddProblem(t, 300)
	for _, k := range []Kind{RVFL2D, RVFL} {
		for _, prec := range gramPrecisions {
			for _, act := range []Activation{Sigmoid, Tanh, ReLU} {
				for _, b := range []int{1, 7, 30, 90, 128} {
					c := Fast(k)
					c.MaxNodes, c.BlockSize, c.Activation = 90, b, act
					setGramPrecision(&c, prec)
					c.FieldMin, c.FieldMax = 3, 6
					name := fmt.Sprintf("%v %s %v block %d", k, prec, act, b)
					old, one := fitBoth(t, c, p)
					samePaths(t, name, old, one)
				}
			}
		}
	}
	// Past N (the engine at L > N with its ridge), no receptive fields, no
	// standardisation.
	q := oddProblem(t, 70)
	for _, k := range []Kind{RVFL2D, RVFL} {
		c := Fast(k)
		c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax, c.Standardize, c.Differences = 150, 40, 0, 0, false, false
		old, one := fitBoth(t, c, q)
		samePaths(t, fmt.Sprintf("%v past N", k), old, one)
	}
	// Images of 2 x 3 pixels: ScoreNT scores them with Sgemm (gonum or
	// OpenBLAS), in other shapes on each path.
	x, y, names := blobs(300, 2, 3, 3, 8)
	tiny, err := Classification(x, y, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []Kind{RVFL2D, RVFL} {
		c := Fast(k)
		c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 90, 7, 1, 2
		old, one := fitBoth(t, c, tiny)
		samePaths(t, fmt.Sprintf("%v on 2 x 3 images", k), old, one)
	}
}

// TestStagedIsTheBlockPath: a one-pass fit in stages (a Budget's) is the
// block-by-block fit, bit for bit, on grey and colour images, wherever the
// stages end; a stage of no nodes stops it with the budget's stop at a
// prefix of that fit.
func TestStagedIsTheBlockPath(t *testing.T) {
	withShardRows(t, 64)
	colour, _ := hueProblem(t, 300, 5)
	for _, p := range []Problem{oddProblem(t, 300), colour} {
		for _, k := range []Kind{RVFL2D, RVFL} {
			for _, prec := range gramPrecisions {
				for _, b := range []int{7, 30} {
					c := Fast(k)
					c.MaxNodes, c.BlockSize = 120, b
					setGramPrecision(&c, prec)
					c.FieldMin, c.FieldMax = 3, 6
					name := fmt.Sprintf("%v %s block %d, %d channel(s)", k, prec, b, p.X.Chans())
					want, err := c.fitPath(context.Background(), p, nil, runOpts{blockByBlock: true})
					if err != nil {
						t.Fatal(err)
					}
					// Stages of 1 (a block), 40 and 13 nodes (rounded up to
					// whole blocks), then the rest.
					sizes := []int{1, 40, 13, 1000}
					var asked []int
					staged := runOpts{stages: func(done int) int {
						asked = append(asked, done)
						return sizes[len(asked)-1]
					}}
					got, err := c.fitPath(context.Background(), p, nil, staged)
					if err != nil {
						t.Fatal(err)
					}
					if len(asked) < 3 || asked[1] != b {
						t.Fatalf("%s: stages asked at %v", name, asked)
					}
					samePaths(t, name, want, got)
					for _, sh := range got.eng.(*lsq.Gram).Shards {
						if sh.H != nil {
							t.Fatalf("%s: a staged fit stored hidden outputs", name)
						}
					}
					// Stop after two stages: the first 2b nodes of the same
					// fit, stopped by the budget.
					asked = nil
					sizes = []int{b, b, 0}
					got, err = c.fitPath(context.Background(), p, nil, staged)
					if err != nil {
						t.Fatal(err)
					}
					if got.Nodes() != 2*b || got.Model().Summary.Stop != BudgetSpent {
						t.Fatalf("%s: %d nodes, stop %v, want %d and the budget's stop", name, got.Nodes(), got.Model().Summary.Stop, 2*b)
					}
					a, _ := want.Prefix(2 * b)
					g, _ := got.Prefix(2 * b)
					if !reflect.DeepEqual(a.Beta, g.Beta) || !reflect.DeepEqual(a.Params, g.Params) || !reflect.DeepEqual(a.Bias, g.Bias) || !reflect.DeepEqual(a.Summary.Trace, g.Summary.Trace) {
						t.Fatalf("%s: the stopped fit is not the prefix of the block-by-block one", name)
					}
				}
			}
		}
	}
}

// TestOnePassDefaultShards: the same at the real shard size, on three
// shards of 2048 images, the last one short.
func TestOnePassDefaultShards(t *testing.T) {
	p := blobProblem(t, 4500)
	for _, k := range []Kind{RVFL2D, RVFL} {
		c := Fast(k)
		c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 120, 50, 3, 6
		old, one := fitBoth(t, c, p)
		samePaths(t, k.String(), old, one)
	}
}

// TestOnePassFallsBackOnDependentColumns: with more nodes than images and
// a ridge below the rounding of the float32 Gram products, columns are
// found dependent; the one-pass fit then goes on block by block from the
// columns so far and still gives the block-by-block model (its trace, equal
// to the block-by-block one, has the rejected nodes: the fallback ran).
func TestOnePassFallsBackOnDependentColumns(t *testing.T) {
	withShardRows(t, 16)
	p := oddProblem(t, 40)
	for _, k := range []Kind{RVFL2D, RVFL} {
		c := Fast(k)
		c.MaxNodes, c.BlockSize, c.Ridge, c.FieldMin, c.FieldMax = 120, 25, 1e-9, 0, 0
		old, err := func() (*Path, error) {
			onePassFits = false
			defer func() { onePassFits = true }()
			return c.FitPath(context.Background(), p, nil)
		}()
		if err != nil {
			t.Fatal(err)
		}
		if old.Model().Summary.Rejected == 0 {
			t.Fatalf("%v: no column was dependent: the test does not reach the fallback", k)
		}
		one, err := c.FitPath(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(modelBytes(t, old.Model()), modelBytes(t, one.Model())) ||
			!reflect.DeepEqual(old.Model().Summary.Trace, one.Model().Summary.Trace) {
			t.Fatalf("%v: after the fallback the one-pass model differs", k)
		}
		if one.independent != old.independent {
			t.Fatalf("%v: %d independent nodes, block-by-block %d", k, one.independent, old.independent)
		}
	}
}

// TestOnePassSelection: model selection (a hold-out, a ridge grid, and
// Patience checks after every block) selects the same model, the same
// bytes, on a one-pass fit.
func TestOnePassSelection(t *testing.T) {
	withShardRows(t, 64)
	p := oddProblem(t, 400)
	for _, k := range []Kind{RVFL2D, RVFL} {
		for _, sel := range []Selection{
			{Validation: 0.25, Ridges: []float64{0, 0.1, 10}},
			{Validation: 0.25, Points: 12, Patience: 2},
		} {
			c := Fast(k)
			c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 240, 20, 3, 6
			var files [][]byte
			for _, on := range []bool{false, true} {
				onePassFits = on
				m, err := c.Select(context.Background(), p, sel, nil)
				onePassFits = true
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, modelBytes(t, m))
			}
			if !bytes.Equal(files[0], files[1]) {
				t.Errorf("%v %+v: the selected one-pass model differs", k, sel)
			}
		}
	}
}

// TestOnePassSameFileWhateverGOMAXPROCS: the pass runs the blocks'
// products in parallel; the file does not depend on the number of
// goroutines.
func TestOnePassSameFileWhateverGOMAXPROCS(t *testing.T) {
	withShardRows(t, 64)
	p := oddProblem(t, 300)
	for _, k := range []Kind{RVFL2D, RVFL} {
		for _, prec := range gramPrecisions {
			c := Fast(k)
			c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 100, 15, 3, 6
			setGramPrecision(&c, prec)
			if _, same := fileWhateverGOMAXPROCS(t, c, p); !same {
				t.Errorf("%v %s: one-pass model files differ between GOMAXPROCS 1 and 2", k, prec)
			}
		}
	}
}

// countingCtx is a context whose Err turns to context.Canceled at its
// cancelAt-th call, counting the calls.
type countingCtx struct {
	context.Context
	calls, cancelAt int64
}

func (c *countingCtx) Err() error {
	if atomic.AddInt64(&c.calls, 1) >= c.cancelAt {
		return context.Canceled
	}
	return nil
}

// TestOnePassCancellation: a fit cancelled during the pass returns the
// cancel error at the next shard, with no model (no node could be added);
// cancelled while the factor grows, it returns the blocks added so far,
// whose model is the full fit's prefix.
func TestOnePassCancellation(t *testing.T) {
	withShardRows(t, 64)
	p := oddProblem(t, 300) // five shards
	c := Fast(RVFL2D)
	c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 60, 20, 3, 6
	// The pass checks the context before each shard: cancelled at the
	// third check, it stops there.
	ctx := &countingCtx{Context: context.Background(), cancelAt: 3}
	var steps int
	path, err := c.FitPath(ctx, p, func(Step) { steps++ })
	if !errors.Is(err, context.Canceled) || path != nil || steps != 0 {
		t.Fatalf("cancelled mid-pass: err %v, path %v, %d steps", err, path != nil, steps)
	}
	if ctx.calls != 3 {
		t.Fatalf("the fit went on after the cancellation: %d context checks, want 3", ctx.calls)
	}
	// Cancelled after the second block, two blocks are kept.
	cctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	path, err = c.FitPath(cctx, p, func(s Step) {
		if s.L == 40 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || path == nil || path.Nodes() != 40 || path.Model().Summary.Stop != Cancelled {
		t.Fatalf("cancelled while the factor grows: err %v, path %v", err, path != nil)
	}
	full, err := c.FitPath(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := full.Prefix(40)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want.Beta, path.Model().Beta) || !reflect.DeepEqual(want.Bias, path.Model().Bias) {
		t.Error("the cancelled fit's model is not the full fit's prefix")
	}
}

// TestOnePassOnlyWithARidge: without a ridge (columns may be dependent),
// supervised learners and one-node fits keep their paths.
func TestOnePassOnlyWithARidge(t *testing.T) {
	c := Fast(RVFL2D)
	if !c.onePass() {
		t.Error("Fast(2DRVFL) does not take the one-pass path")
	}
	c.Ridge = 0
	if c.onePass() {
		t.Error("a fit without a ridge takes the one-pass path")
	}
	if Fast(SCN2D).onePass() || Paper(RVFL2D).onePass() {
		t.Error("a supervised or a one-node fit takes the one-pass path")
	}
	withOnePass(t, false)
	if Fast(RVFL).onePass() {
		t.Error("onePassFits = false does not force the block-by-block path")
	}
	withOnePass(t, true)
	// A ridge-free random block fit keeps H in its shards.
	p := blobProblem(t, 300)
	c.MaxNodes, c.BlockSize = 40, 20
	path, err := c.FitPath(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if path.eng.(*lsq.Gram).Shards[0].H == nil {
		t.Error("a fit without a ridge did not keep H")
	}
}

// naiveRSS is lsq.Gram.Rss as first written, one row of G at a time
// (reading G above the diagonal by columns): the reference for its bits.
func naiveRSS(e *lsq.Gram, l int, beta []float64) float64 {
	m := e.M
	s := 0.0
	for _, v := range e.TT {
		s += v
	}
	for i := 0; i < l*m; i++ {
		s -= 2 * beta[i] * e.HT[i]
	}
	gb := make([]float64, m)
	for i := 0; i < l; i++ {
		clear(gb)
		for j := 0; j < l; j++ {
			var gij float64
			switch {
			case j == i:
				gij = e.GD[i]
			case j > i:
				gij = e.G[i*e.LD+j]
			default:
				gij = e.G[j*e.LD+i]
			}
			if gij == 0 {
				continue
			}
			for q := 0; q < m; q++ {
				gb[q] += gij * beta[j*m+q]
			}
		}
		for q := 0; q < m; q++ {
			s += beta[i*m+q] * gb[q]
		}
	}
	return max(s, 0)
}

// TestRSSBits: rss, which reads G by tiles of rows in parallel, gives the
// bits of the row-at-a-time sum (the training RMSE a model file records
// depends on them), at every prefix and at tile edges.
func TestRSSBits(t *testing.T) {
	const n, l, m = 700, 150, 4
	hb, _, tt := gaussH(n, l, m, 3)
	for _, j := range []int{5, 32, 77} {
		clear(hb[j*n : (j+1)*n]) // zero columns: exact zeros in G, skipped
	}
	e := fillEngine(t, hb, n, l, m, tt, 0.5, true, 40)
	for _, pl := range []int{1, 31, 32, 33, 64, 100, 150} {
		beta, err := e.Solve(pl, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := e.RSS(pl, beta), naiveRSS(e, pl, beta); got != want {
			t.Errorf("%d columns: rss %v, row at a time %v", pl, got, want)
		}
	}
}
