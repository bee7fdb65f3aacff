package scn

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/fixtures"
	"github.com/scn2d/scn/internal/linalg/kernel"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
	"github.com/scn2d/scn/internal/reference"
	"gonum.org/v1/gonum/mat"
)

// blobs returns n rows x cols images of k classes: a class prototype plus
// noise, clipped to [0, 1] (fixtures.Blobs).
func blobs(n, rows, cols, k int, seed uint64) (Images, []int, []string) {
	pix, labels, names := fixtures.Blobs(n, rows, cols, k, seed)
	return Images{Rows: rows, Cols: cols, Pix: pix}, labels, names
}

func blobProblem(t testing.TB, n int) Problem {
	x, y, names := blobs(n, 10, 8, 3, 5)
	p, err := Classification(x, y, names)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// roundTrip writes m as a model file and reads it back.
func roundTrip(t testing.TB, m *Model) (file []byte, back *Model) {
	t.Helper()
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), back
}

func fitT(t testing.TB, c Config, p Problem) *Model {
	t.Helper()
	m, err := c.Fit(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestResidualNeverGrows(t *testing.T) {
	p := blobProblem(t, 300)
	for _, k := range []Kind{SCN2D, SCN} {
		c := Paper(k)
		c.MaxNodes = 60
		m := fitT(t, c, p)
		prev := math.Sqrt(lsq.Dot(p.T, p.T) / float64(len(p.T)))
		for _, s := range m.Summary.Trace {
			// The convergence argument: ||e_L||^2 <= r ||e_{L-1}||^2.
			if s.RMSE*s.RMSE > s.Ratio*prev*prev*(1+1e-9) {
				t.Fatalf("%v: node %d: RMSE %.6g after %.6g breaks ||e_L||^2 <= r ||e_L-1||^2 with r=%v", k, s.L, s.RMSE, prev, s.Ratio)
			}
			prev = s.RMSE
		}
		if len(m.Summary.Trace) != m.Nodes() {
			t.Fatalf("%v: %d trace steps for %d nodes", k, len(m.Summary.Trace), m.Nodes())
		}
	}
}

func TestLearnersClassifyBlobs(t *testing.T) {
	train, test := blobProblem(t, 600), blobProblem(t, 300)
	_, testLabels, _ := blobs(300, 10, 8, 3, 5)
	for _, k := range Kinds() {
		c := Paper(k)
		c.MaxNodes = 40
		m := fitT(t, c, train)
		acc, err := m.Accuracy(test.X, testLabels)
		if err != nil {
			t.Fatal(err)
		}
		if acc < 0.9 {
			t.Errorf("%v: test accuracy %.3f on separable blobs, want >= 0.9", k, acc)
		}
	}
}

// TestMatrixNodeIsRankOneVectorNode checks u^T X v + b = vec(u v^T)^T vec(X) + b.
func TestMatrixNodeIsRankOneVectorNode(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const rows, cols = 7, 5
	mm := matrixMap{Rows: rows, Cols: cols, Ch: 1}
	for trial := 0; trial < 20; trial++ {
		p := make([]float32, mm.Size())
		mm.Draw(rng, 3, p)
		x := make([]float64, rows*cols)
		for i := range x {
			x[i] = rng.Float64()
		}
		b := rng.Float64()
		u, v := p[:rows], p[rows:]
		// u^T X v computed as a matrix expression in float64.
		direct := b
		for a := 0; a < rows; a++ {
			var xv float64
			for c := 0; c < cols; c++ {
				xv += x[a*cols+c] * float64(v[c])
			}
			direct += float64(u[a]) * xv
		}
		// w = vec(u v^T) in float64, then w^T vec(X).
		flat := b
		for a := 0; a < rows; a++ {
			for c := 0; c < cols; c++ {
				flat += float64(u[a]) * float64(v[c]) * x[a*cols+c]
			}
		}
		if math.Abs(direct-flat) > 1e-12*math.Max(1, math.Abs(direct)) {
			t.Fatalf("u^T X v + b = %.17g, vec(uv^T)^T vec(X) + b = %.17g", direct, flat)
		}
		// The weight the learner uses is vec(u v^T), rounded once to float32.
		w := make([]float32, rows*cols)
		mm.Weight(p, w)
		for a := 0; a < rows; a++ {
			for c := 0; c < cols; c++ {
				if w[a*cols+c] != float32(float64(u[a])*float64(v[c])) {
					t.Fatalf("weight (%d,%d) = %v, want u_a v_c = %v", a, c, w[a*cols+c], u[a]*v[c])
				}
			}
		}
		if got, want := mm.WeightNorm(p), node.Norm32(w); math.Abs(got-want) > 1e-6*want {
			t.Fatalf("||u|| ||v|| = %v, ||vec(uv^T)|| = %v", got, want)
		}
	}
}

// hiddenMatrix returns the model's hidden outputs on x as float64, N x L.
func hiddenMatrix(m *Model, x Images) *mat.Dense { return hiddenDense(m, x) }

func TestRVFLOutputWeightsAreClosedForm(t *testing.T) {
	p := blobProblem(t, 400)
	for _, k := range []Kind{RVFL, RVFL2D} {
		c := Paper(k)
		c.MaxNodes = 150
		m := fitT(t, c, p)
		if m.Nodes() != 150 || m.Summary.Stop != ReachedMaxNodes {
			t.Fatalf("%v: %d nodes, stop %v", k, m.Nodes(), m.Summary.Stop)
		}
		var want mat.Dense
		want.Mul(reference.Pinv(hiddenMatrix(m, p.X)), mat.NewDense(p.X.Len(), p.M, p.T))
		// H here is prediction's. Where its kernels are the fit's (the
		// amd64 assembly), it is the H the fit solved with, and beta agrees
		// to the solve's rounding; the Go fallback (purego, arm64) sums the
		// hidden outputs in another order than the fit's scoring, H moves by
		// float32 rounding (6e-8 relative) and beta by that times the
		// problem's condition (measured 1.4e-7 and 1.7e-7).
		tol := 1e-8
		if !kernel.Available {
			tol = 1e-6
		}
		if d := relDiff(m.Beta, want.RawMatrix().Data); d > tol {
			t.Errorf("%v: beta differs from reference.Pinv(H) T by %.3g relative (tolerance %g, %s kernels)", k, d, tol, kernelVariant())
		}
		for i, v := range m.Params {
			if math.Abs(float64(v)) > 1 {
				t.Fatalf("%v: hidden parameter %d = %v outside [-1, 1]", k, i, v)
			}
		}
	}
}

// TestRVFLWithMoreNodesThanSamples checks that a random learner with L > N
// keeps all L nodes and gets the minimum-norm solution pinv(H) T, for the
// whole model and for its prefixes on both sides of N.
func TestRVFLWithMoreNodesThanSamples(t *testing.T) {
	p := blobProblem(t, 60)
	for _, k := range []Kind{RVFL, RVFL2D} {
		c := Paper(k)
		c.MaxNodes = 150
		path, err := c.FitPath(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := path.Model()
		if m.Nodes() != 150 || m.Summary.Rejected == 0 {
			t.Fatalf("%v: %d nodes, %d rejected", k, m.Nodes(), m.Summary.Rejected)
		}
		for _, l := range []int{40, 60, 100, 150} {
			pm, err := path.Prefix(l)
			if err != nil {
				t.Fatal(err)
			}
			checkPinvBeta(t, k, l, pm, p)
		}
		if acc, _ := m.Accuracy(p.X, labelsOf(p)); acc != 1 {
			t.Errorf("%v: training accuracy %v with L > N", k, acc)
		}
	}
}

func labelsOf(p Problem) []int { return ArgMax(p.T, p.M) }

func TestRankDeficientFitDoesNotBlowUp(t *testing.T) {
	// 40 samples, every image the same pair of patterns: H has tiny rank,
	// and L_max far exceeds N.
	x, y, names := blobs(2, 6, 6, 2, 1)
	pix := make([]float32, 0, 40*36)
	labels := make([]int, 0, 40)
	for i := 0; i < 20; i++ {
		pix = append(pix, x.Pix...)
		labels = append(labels, y...)
	}
	p, err := Classification(Images{Rows: 6, Cols: 6, Pix: pix}, labels, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Kinds() {
		c := Paper(k)
		c.MaxNodes = 100
		m := fitT(t, c, p)
		if err := checkFinite(m.Beta, "beta"); err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		// Every learner keeps going past rank (supervised ones as the
		// authors' code does), solved by the pseudo-inverse.
		if m.Nodes() != 100 {
			t.Errorf("%v: %d nodes kept on data of rank 2", k, m.Nodes())
		}
		// With StopAtRank, supervised learners stop: no candidate can
		// reduce a zero residual.
		if k.Choice == Supervised {
			c.StopAtRank = true
			if ms := fitT(t, c, p); ms.Nodes() > 2 || ms.Summary.Stop != NoAdmissible {
				t.Errorf("%v, StopAtRank: %d nodes, stop %v on data of rank 2", k, ms.Nodes(), ms.Summary.Stop)
			}
		}
		if acc, _ := m.Accuracy(p.X, labels); acc != 1 {
			t.Errorf("%v: training accuracy %v on two distinct images", k, acc)
		}
		t.Logf("%v: %d nodes, stop %v, rejected %d", k, m.Nodes(), m.Summary.Stop, m.Summary.Rejected)
	}
}

func TestPrefixIsTheShorterFit(t *testing.T) {
	p := blobProblem(t, 200)
	for _, k := range Kinds() {
		c := Paper(k)
		c.MaxNodes = 30
		full, err := c.FitPath(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.MaxNodes = 12
		short := fitT(t, c, p)
		pre, err := full.Prefix(12)
		if err != nil {
			t.Fatal(err)
		}
		if !equal32(pre.Params, short.Params) || !equal32(pre.Bias, short.Bias) {
			t.Fatalf("%v: prefix nodes differ from a 12-node fit", k)
		}
		if d := relDiff(pre.Beta, short.Beta); d > 1e-10 {
			t.Errorf("%v: prefix beta differs from the 12-node fit by %.3g", k, d)
		}
	}
}

func equal32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSameSeedSameFileWhateverGOMAXPROCS(t *testing.T) {
	p := blobProblem(t, 5000) // big enough for the parallel paths
	for _, k := range Kinds() {
		c := Paper(k)
		c.MaxNodes = 25
		file, same := fileWhateverGOMAXPROCS(t, c, p)
		if !same {
			t.Errorf("%v: model files differ between GOMAXPROCS=1 and 2", k)
		}
		c.Seed++
		if bytes.Equal(file, modelBytes(t, fitT(t, c, p))) {
			t.Errorf("%v: a different seed gave the same file", k)
		}
	}
}

func TestIndicatorMatchesDefinition(t *testing.T) {
	p := blobProblem(t, 100)
	for _, k := range Kinds() {
		c := Paper(k)
		c.MaxNodes = 10
		m := fitT(t, c, p)
		got, err := m.Indicator(p.X)
		if err != nil {
			t.Fatal(err)
		}
		h := hiddenMatrix(m, p.X)
		w := m.weights()
		d := p.X.Dim()
		var s float64
		for j := 0; j < m.Nodes(); j++ {
			wn := node.Norm32(w[j*d : (j+1)*d])
			for i := 0; i < p.X.Len(); i++ {
				v := h.At(i, j) * (1 - h.At(i, j)) * wn
				s += v * v
			}
		}
		want := math.Sqrt(s) * mat.Norm(mat.NewDense(m.Nodes(), m.M, m.Beta), 2)
		if math.Abs(got-want) > 1e-5*want {
			t.Errorf("%v: indicator %v, direct computation %v", k, got, want)
		}
	}
}

func TestCancelledFitReturnsPartialModel(t *testing.T) {
	p := blobProblem(t, 300)
	ctx, cancel := context.WithCancel(context.Background())
	c := Paper(SCN2D)
	c.MaxNodes = 500
	m, err := c.Fit(ctx, p, func(s Step) {
		if s.L == 7 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || m == nil || m.Nodes() != 7 || m.Summary.Stop != Cancelled {
		t.Fatalf("got err %v, model %v", err, m != nil)
	}
	// Cancelled before the first node: no model, the context's error.
	cancel()
	m, err = c.Fit(ctx, p, nil)
	if !errors.Is(err, context.Canceled) || m != nil {
		t.Fatalf("cancelled before any node: got err %v, model %v", err, m)
	}
}

// A tolerance the untrained network already meets is a configuration
// error that says what the starting error is, not an empty model.
func TestToleranceAlreadyMet(t *testing.T) {
	p := blobProblem(t, 100)
	c := Paper(SCN2D)
	c.Tolerance = 10
	m, err := c.Fit(context.Background(), p, nil)
	if !errors.Is(err, ErrConfig) || m != nil || !strings.Contains(err.Error(), "before any node") {
		t.Fatalf("got %v, %v", m, err)
	}
}

func TestBadInputIsAnErrorNotAPanic(t *testing.T) {
	x, y, names := blobs(30, 4, 4, 2, 1)
	good, _ := Classification(x, y, names)
	nan := Images{Rows: 4, Cols: 4, Pix: append([]float32(nil), x.Pix...)}
	nan.Pix[17] = float32(math.NaN())
	inf := Images{Rows: 4, Cols: 4, Pix: append([]float32(nil), x.Pix...)}
	inf.Pix[3] = float32(math.Inf(1))
	cases := []struct {
		name string
		run  func() error
	}{
		{"NaN pixel", func() error { _, err := Classification(nan, y, names); return err }},
		{"Inf pixel", func() error { _, err := Classification(inf, y, names); return err }},
		{"empty set", func() error { _, err := Classification(Images{Rows: 4, Cols: 4}, nil, names); return err }},
		{"label count", func() error { _, err := Classification(x, y[:29], names); return err }},
		{"label range", func() error {
			bad := append([]int(nil), y...)
			bad[0] = 2
			_, err := Classification(x, bad, names)
			return err
		}},
		{"one class", func() error { _, err := Classification(x, make([]int, 30), names[:1]); return err }},
		{"ragged images", func() error {
			_, err := Classification(Images{Rows: 4, Cols: 4, Pix: x.Pix[:100]}, y, names)
			return err
		}},
		{"zero shape", func() error { _, err := Classification(Images{Rows: 0, Cols: 4, Pix: x.Pix}, y, names); return err }},
		{"NaN target", func() error { _, err := Regression(x, append(make([]float64, 29), math.NaN()), 1); return err }},
		{"target count", func() error { _, err := Regression(x, make([]float64, 31), 1); return err }},
		{"hand-made problem", func() error {
			_, err := Paper(SCN).Fit(context.Background(), Problem{X: x, T: make([]float64, 5), M: 2}, nil)
			return err
		}},
	}
	cfgs := map[string]func(*Config){
		"L_max 0":          func(c *Config) { c.MaxNodes = 0 },
		"T_max 0":          func(c *Config) { c.Candidates = 0 },
		"empty scales":     func(c *Config) { c.Scales = nil },
		"empty r list":     func(c *Config) { c.Ratios = nil },
		"r = 1":            func(c *Config) { c.Ratios = []float64{0.9, 1} },
		"r = 0":            func(c *Config) { c.Ratios = []float64{0} },
		"r decreasing":     func(c *Config) { c.Ratios = []float64{0.99, 0.9} },
		"negative scale":   func(c *Config) { c.Scales = []float64{1, -5} },
		"NaN tolerance":    func(c *Config) { c.Tolerance = math.NaN() },
		"negative ridge":   func(c *Config) { c.Ridge = -1 },
		"bad activation":   func(c *Config) { c.Activation = 9 },
		"bad kind":         func(c *Config) { c.Kind = Kind{Input: 5} },
		"absurd L_max":     func(c *Config) { c.MaxNodes = 1 << 40 },
		"absurd T_max":     func(c *Config) { c.Candidates = 1 << 30 },
		"infinite scale":   func(c *Config) { c.Scales = []float64{math.Inf(1)} },
		"infinite ridge":   func(c *Config) { c.Ridge = math.Inf(1) },
		"negative tol":     func(c *Config) { c.Tolerance = -1 },
		"r above one only": func(c *Config) { c.Ratios = []float64{1.5} },
	}
	for name, mod := range cfgs {
		cases = append(cases, struct {
			name string
			run  func() error
		}{name, func() error {
			c := Paper(SCN2D)
			mod(&c)
			_, err := c.Fit(context.Background(), good, nil)
			if err != nil && !errors.Is(err, ErrConfig) {
				t.Errorf("%s: error %v does not wrap ErrConfig", name, err)
			}
			return err
		}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v", r)
				}
			}()
			err := tc.run()
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
		})
	}
	m := fitT(t, Paper(SCN2D), good)
	if _, err := m.Predict(Images{Rows: 5, Cols: 4, Pix: make([]float32, 20)}); err == nil {
		t.Error("predicting on 5x4 images with a 4x4 model gave no error")
	}
}

// TestSupervisedPastRankAsTheAuthors checks the paper preset's behaviour at
// L = N: SCN and 2DSCN go on to L_max as the authors' code does, with output
// weights pinv(H) T at MATLAB's tolerance, for the model and its prefixes.
func TestSupervisedPastRankAsTheAuthors(t *testing.T) {
	p := blobProblem(t, 50)
	for _, k := range []Kind{SCN2D, SCN} {
		c := Paper(k)
		c.MaxNodes = 80
		path, err := c.FitPath(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := path.Model()
		if m.Nodes() != 80 || m.Summary.Stop != ReachedMaxNodes {
			t.Fatalf("%v: %d nodes, stop %v; want 80, reached L_max", k, m.Nodes(), m.Summary.Stop)
		}
		for _, l := range []int{30, 50, 65, 80} {
			pm, err := path.Prefix(l)
			if err != nil {
				t.Fatal(err)
			}
			checkPinvBeta(t, k, l, pm, p)
		}
		prev := math.Inf(1)
		for _, st := range m.Summary.Trace {
			if st.RMSE > prev*(1+1e-9)+1e-12 {
				t.Errorf("%v: training RMSE grew at L=%d (%g after %g)", k, st.L, st.RMSE, prev)
			}
			prev = st.RMSE
		}
	}
}

// TestRankDeficientDataStopsAtItsRank: on images of rank 6 (copies of six
// images) with conflicting labels, a supervised learner's residual is what
// the minimum-norm output weights leave, far from zero, and orthogonal to
// every column a node can have (a node's outputs on copies are copies): the
// fit stops at 6 nodes with no admissible candidate, and each step's
// training RMSE is that of the prefix model (beta = pinv(H) T).
func TestRankDeficientDataStopsAtItsRank(t *testing.T) {
	p := blobProblem(t, 60)
	d := p.X.Dim()
	for i := 6; i < p.X.Len(); i++ {
		copy(p.X.Pix[i*d:(i+1)*d], p.X.Pix[(i%6)*d:(i%6+1)*d])
	}
	for i := range p.X.Len() { // copies of one image in different classes
		for q := range p.M {
			p.T[i*p.M+q] = 0
		}
		p.T[i*p.M+(i/6)%p.M] = 1
	}
	for _, k := range []Kind{SCN2D, SCN} {
		c := Paper(k)
		c.MaxNodes = 30
		path, err := c.FitPath(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := path.Model()
		if m.Nodes() != 6 || m.Summary.Stop != NoAdmissible {
			t.Fatalf("%v: %d nodes, stop %v; want 6, no admissible candidate", k, m.Nodes(), m.Summary.Stop)
		}
		for _, st := range m.Summary.Trace {
			pm, err := path.Prefix(st.L)
			if err != nil {
				t.Fatal(err)
			}
			var y mat.Dense
			y.Mul(hiddenMatrix(pm, p.X), mat.NewDense(st.L, p.M, pm.Beta))
			var ss float64
			for i, v := range y.RawMatrix().Data {
				ss += (v - p.T[i]) * (v - p.T[i])
			}
			want := math.Sqrt(ss / float64(len(p.T)))
			if want < 0.1 {
				t.Fatalf("%v L=%d: training RMSE %g: the data should not be fitted exactly", k, st.L, want)
			}
			if math.Abs(st.RMSE-want) > 1e-9*want {
				t.Errorf("%v L=%d: step RMSE %.12g, the minimum-norm fit's %.12g", k, st.L, st.RMSE, want)
			}
		}
	}
}

// checkPinvBeta checks that the output weights of the prefix pm (L = l)
// equal pinv(H) T on p, H being its hidden outputs.
func checkPinvBeta(t *testing.T, k Kind, l int, pm *Model, p Problem) {
	t.Helper()
	var want mat.Dense
	want.Mul(reference.Pinv(hiddenMatrix(pm, p.X)), mat.NewDense(p.X.Len(), p.M, p.T))
	if d := relDiff(pm.Beta, want.RawMatrix().Data); d > 1e-6 {
		t.Errorf("%v, L=%d: beta differs from pinv(H) T by %.3g relative", k, l, d)
	}
}
