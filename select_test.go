package scn

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/scn2d/scn/internal/lsq"
)

// TestSelectionMatchesBruteForce checks that Select picks the (L, alpha) of
// the best held-out score, against a brute-force loop of separate fits of
// every prefix length and separate ridge solves, for a supervised and a
// random learner.
func TestSelectionMatchesBruteForce(t *testing.T) {
	p := blobProblem(t, 150)
	sel := Selection{Validation: 0.3, Points: 8, Ridges: []float64{0, 0.01, 1, 100}}
	for _, k := range []Kind{SCN2D, RVFL} {
		c := Paper(k)
		c.MaxNodes = 40
		m, err := c.Select(context.Background(), p, sel, nil)
		if err != nil {
			t.Fatal(err)
		}
		ch := m.Selection
		if ch == nil || ch.Method != "holdout" || ch.Metric != "accuracy" {
			t.Fatalf("%v: selection record %+v", k, ch)
		}
		train, held, err := splitHoldout(p, sel.Validation, c.Seed)
		if err != nil {
			t.Fatal(err)
		}
		tp, hp := p.subset(train), p.subset(held)
		if ch.Held != hp.X.Len() {
			t.Errorf("%v: %d held out, want %d", k, ch.Held, hp.X.Len())
		}
		ev := newEvaluator(hp, sel.withDefaults())
		var best Score
		n := 0
		for _, l := range ev.Grid(c.MaxNodes) {
			for _, alpha := range sel.Ridges {
				ci := c
				ci.MaxNodes, ci.Ridge = l, alpha
				mi, err := ci.Fit(context.Background(), tp, nil)
				if err != nil {
					t.Fatal(err)
				}
				y, _ := mi.Predict(hp.X)
				s := Score{Nodes: l, Ridge: alpha, RMSE: RMSE(y, hp.T), Accuracy: Accuracy(ArgMax(y, hp.M), ArgMax(hp.T, hp.M))}
				if n == 0 || s.better(best, true) {
					best = s
				}
				n++
				// The selection's own score of this pair agrees: to 1e-9 for 1D
				// models; a 2D model's selection scores with the fit's expanded
				// weights, its prediction in u^T X v form (linalg.Score2D),
				// whose float32 hidden outputs round differently (a few units
				// of 6e-8 relative each).
				tol := 1e-9
				if k.Input == Matrix {
					tol = 1e-6
				}
				for _, cs := range ch.Curve {
					if cs.Nodes == l && cs.Ridge == alpha {
						if cs.Accuracy != s.Accuracy || math.Abs(cs.RMSE-s.RMSE) > tol*s.RMSE {
							t.Errorf("%v L=%d alpha=%g: selection scored %+v, a separate fit %+v", k, l, alpha, cs, s)
						}
					}
				}
			}
		}
		if ch.Candidates != n {
			t.Errorf("%v: %d pairs scored, brute force %d", k, ch.Candidates, n)
		}
		if ch.Nodes != best.Nodes || ch.Ridge != best.Ridge {
			t.Errorf("%v: chose L=%d alpha=%g, brute force L=%d alpha=%g", k, ch.Nodes, ch.Ridge, best.Nodes, best.Ridge)
		}
		if m.Nodes() != ch.Nodes || m.Config.Ridge != ch.Ridge || m.Summary.Samples != p.X.Len() {
			t.Errorf("%v: model has %d nodes, ridge %g, %d samples", k, m.Nodes(), m.Config.Ridge, m.Summary.Samples)
		}
		t.Logf("%v: chose L=%d alpha=%g (held-out accuracy %.3f) of %d pairs", k, ch.Nodes, ch.Ridge, ch.Accuracy, n)
	}
}

// TestRefitSolvesOnAllImages checks the final weights: those of the chosen
// nodes and ridge term over training and held-out images together.
func TestRefitSolvesOnAllImages(t *testing.T) {
	p := blobProblem(t, 120)
	for _, alpha := range []float64{0, 0.5} {
		sel := Selection{Validation: 0.25, Points: 4, Ridges: []float64{alpha}}
		c := Paper(SCN)
		c.MaxNodes = 25
		m, err := c.Select(context.Background(), p, sel, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Same nodes, weights solved on all of p.
		h := hiddenDense(m, p.X)
		want, err := lsq.MinNorm(h, p.T, p.M, alpha)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiff(m.Beta, want); d > 1e-7 {
			t.Errorf("alpha=%g: final weights differ from the solve over all images by %.3g", alpha, d)
		}
	}
}

func TestStratifiedSplitKeepsEveryClass(t *testing.T) {
	x, y, names := blobs(64, 4, 4, 5, 9)
	// Unbalanced: class 4 has only 2 images.
	var pix []float32
	var labels []int
	for i, c := range y {
		if c == 4 && labels != nil && count(labels, 4) == 2 {
			continue
		}
		pix = append(pix, x.Image(i)...)
		labels = append(labels, c)
	}
	p, err := Classification(Images{Rows: 4, Cols: 4, Pix: pix}, labels, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, share := range []float64{0.01, 0.1, 0.5, 0.99} {
		train, held, err := splitHoldout(p, share, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(train)+len(held) != len(labels) {
			t.Fatalf("share %v: %d + %d images of %d", share, len(train), len(held), len(labels))
		}
		for c := range names {
			if count(pick1(labels, train), c) == 0 || count(pick1(labels, held), c) == 0 {
				t.Errorf("share %v: class %d missing from a part", share, c)
			}
		}
	}
	// A class with one image cannot be split.
	p1, _ := Classification(Images{Rows: 4, Cols: 4, Pix: pix[:16*3]}, []int{0, 0, 1}, []string{"a", "b"})
	c := Paper(SCN2D)
	c.MaxNodes = 5
	if _, err := c.Select(context.Background(), p1, Selection{Validation: 0.1}, nil); !errors.Is(err, ErrData) {
		t.Errorf("a class of one image: %v, want ErrData", err)
	}
	for _, bad := range []Selection{{Validation: 0}, {Validation: 1}, {Validation: math.NaN()}, {Validation: 0.1, Patience: -1}, {Validation: 0.1, Ridges: []float64{-1}}, {Validation: 0.1, Ridges: []float64{}}, {Folds: -2}} {
		if _, err := c.Select(context.Background(), p, bad, nil); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", bad, err)
		}
	}
}

func count(xs []int, v int) int {
	n := 0
	for _, x := range xs {
		if x == v {
			n++
		}
	}
	return n
}

func pick1(xs, idx []int) []int {
	out := make([]int, len(idx))
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

func TestSelectionDeterministicAndSaved(t *testing.T) {
	p := blobProblem(t, 150)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var files [][]byte
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		c := Paper(SCN2D)
		c.MaxNodes = 30
		m, err := c.Select(context.Background(), p, Selection{Validation: 0.2, Patience: 3}, nil)
		if err != nil {
			t.Fatal(err)
		}
		file, back := roundTrip(t, m)
		files = append(files, file)
		if back.Selection == nil || back.Selection.Nodes != m.Selection.Nodes || len(back.Selection.Curve) != len(m.Selection.Curve) {
			t.Fatalf("selection record lost in the file: %+v", back.Selection)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("selected model files differ between GOMAXPROCS 1 and 2")
	}
}

func TestPatienceStopsGrowth(t *testing.T) {
	p := blobProblem(t, 100)
	c := Paper(RVFL2D)
	c.MaxNodes = 400
	m, err := c.Select(context.Background(), p, Selection{Validation: 0.2, Points: 40, Patience: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Selection.StoppedAt == 0 || m.Selection.StoppedAt >= 400 || m.Selection.FitNodes != m.Selection.StoppedAt {
		t.Errorf("patience: stopped at %d, fit %d nodes", m.Selection.StoppedAt, m.Selection.FitNodes)
	}
	t.Logf("stopped at %d, chose %d", m.Selection.StoppedAt, m.Nodes())
}

func TestKFoldSelection(t *testing.T) {
	p := blobProblem(t, 90)
	c := Paper(SCN)
	c.MaxNodes = 20
	m, err := c.Select(context.Background(), p, Selection{Folds: 3, Points: 6}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Selection.Method != "kfold" || m.Selection.Held != 90 || m.Nodes() != m.Selection.Nodes {
		t.Errorf("k-fold record %+v, %d nodes", m.Selection, m.Nodes())
	}
}

// TestSelectionEstimateBytes checks the estimate against its terms and that
// it grows with the held-out share and with L^2.
func TestSelectionEstimateBytes(t *testing.T) {
	c := Paper(SCN2D)
	c.MaxNodes = 1000
	s := Selection{Validation: 0.1}
	n, d, m := 60000, 784, 10
	// held-out outputs, their copy and transpose; the L x d weights that
	// scoring expands and a batch of outputs
	want := int64(n)*int64(d*4+m*8) + 3*int64(6000+m)*1000*8 + 3*1000*1000*8 + 4*1000*int64(d+predictBatch)
	if got := s.EstimateBytes(c, n, 28, 28, m); got != want {
		t.Errorf("estimate %d, want %d", got, want)
	}
	big := c
	big.MaxNodes = 20000
	if s.EstimateBytes(big, n, 28, 28, m) < 3*20000*20000*8 {
		t.Error("the L x L matrices are not counted")
	}
	if f := (Selection{Folds: 5}); f.EstimateBytes(c, n, 28, 28, m) <= s.EstimateBytes(c, n, 28, 28, m) {
		t.Error("k-fold's held-out outputs are not counted")
	}
}

// TestSelectFoldsPastN: k-fold selection of fits that grow past N, where
// the folds can solve different sets of (L, ridge) points without a ridge
// (found with ORL faces: it used to index past the shorter list), gives a
// choice every fold scored.
func TestSelectFoldsPastN(t *testing.T) {
	// 62 images: the folds train on 49 or 50, so without a ridge their
	// fits stop at different L (the first fold's is the shortest).
	p := blobProblem(t, 62)
	for _, k := range Kinds() {
		c := Default(k)
		c.MaxNodes, c.BlockSize, c.Ridge, c.StopAtRank = 150, 10, 0, true
		m, err := c.Select(t.Context(), p, Selection{Folds: 5}, nil)
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		ch := m.Selection
		if ch == nil || ch.Nodes < 1 || ch.Nodes > 150 {
			t.Fatalf("%v: choice %+v", k, ch)
		}
		if acc, _ := m.Accuracy(p.X, labelsOf(p)); acc < 0.9 {
			t.Errorf("%v: training accuracy %.3f after k-fold selection", k, acc)
		}
	}
}

// TestRefitTrainRMSE: the training RMSE a hold-out selection records with
// a ridge (formed from the normal equations of all images) is the RMSE of
// the final model's predictions on all training images.
func TestRefitTrainRMSE(t *testing.T) {
	p := blobProblem(t, 400)
	for _, c := range []Config{Paper(SCN2D), Default(RVFL)} {
		c.MaxNodes = 60
		m, err := c.Select(t.Context(), p, Selection{Validation: 0.2, Ridges: []float64{0.1, 1}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		y, err := m.Predict(p.X)
		if err != nil {
			t.Fatal(err)
		}
		want := RMSE(y, p.T)
		// 1e-5: the block engine's G has float32 products (about 1e-7
		// relative; OpenBLAS's sgemm sums a shard's 2048 terms in its own
		// order), and the normal-equation RSS subtracts numbers near
		// T^T T, here about 50 times the RSS: measured 1.3e-6 with
		// OpenBLAS, 6e-9 with the pure-Go kernels.
		if got := m.Summary.TrainRMSE; math.Abs(got-want) > 1e-5*want {
			t.Errorf("%v: recorded training RMSE %v, predictions give %v", c.Kind, got, want)
		}
	}
}

// TestSelectFoldsOnRedundantImages: the last fit of k-fold selection has
// nodes of its own, whose normal equations can be indefinite at the
// smallest ridge term the folds chose (float32 Gram products of redundant
// images: five bands over noise). Selection then takes the best pair with
// a larger ridge term instead of failing with "singular".
func TestSelectFoldsOnRedundantImages(t *testing.T) {
	if testing.Short() {
		t.Skip("a k-fold selection on 112 x 92 images")
	}
	const n, rows, cols = 200, 112, 92
	r := rand.New(rand.NewPCG(200, rows*cols))
	x := Images{Rows: rows, Cols: cols, Pix: make([]float32, n*rows*cols)}
	labels := make([]int, n)
	for i := range n {
		labels[i] = i % 5
		for j := range rows * cols {
			v := float32(r.IntN(100))
			if (j/cols)*5/rows == labels[i] {
				v += 100
			}
			x.Pix[i*rows*cols+j] = v / 255
		}
	}
	p, err := Classification(x, labels, []string{"a", "b", "c", "d", "e"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Default(SCN2D)
	cfg.MaxNodes = 100
	m, err := cfg.Select(context.Background(), p, Selection{Folds: 5}, nil)
	if err != nil {
		t.Fatalf("selection failed: %v", err)
	}
	if acc, _ := m.Accuracy(x, labels); acc < 0.99 {
		t.Errorf("training accuracy %.3f on five separable bands", acc)
	}
	t.Logf("L = %d, ridge %g", m.Nodes(), m.Config.Ridge)
}
