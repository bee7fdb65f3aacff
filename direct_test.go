package scn

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/scn2d/scn/internal/direct"
	"gonum.org/v1/gonum/mat"
)

// refRidge solves min ||A w - T||^2 + alpha ||w||^2 with gonum, through the
// normal equations and an LU solve (alpha > 0), or a QR least squares
// (alpha = 0, A of full column rank): an independent reference.
func refRidge(t *testing.T, a *mat.Dense, tt []float64, m int, alpha float64) []float64 {
	t.Helper()
	n, k := a.Dims()
	tm := mat.NewDense(n, m, tt)
	out := mat.NewDense(k, m, nil)
	if alpha == 0 {
		var qr mat.QR
		qr.Factorize(a)
		if err := qr.SolveTo(out, false, tm); err != nil {
			t.Fatal(err)
		}
		return out.RawMatrix().Data
	}
	var g mat.Dense
	g.Mul(a.T(), a)
	for i := 0; i < k; i++ {
		g.Set(i, i, g.At(i, i)+alpha)
	}
	var at mat.Dense
	at.Mul(a.T(), tm)
	if err := out.Solve(&g, &at); err != nil {
		t.Fatal(err)
	}
	return out.RawMatrix().Data
}

// relDiffDirect returns ||a - b|| / ||b||.
func relDiffDirect(a, b []float64) float64 {
	var num, den float64
	for i := range a {
		num += (a[i] - b[i]) * (a[i] - b[i])
		den += b[i] * b[i]
	}
	return math.Sqrt(num / den)
}

// pixelsDense returns the images as float64 rows.
func pixelsDense(x Images) *mat.Dense {
	n, d := x.Len(), x.Dim()
	a := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j, v := range x.Image(i) {
			a.Set(i, j, float64(v))
		}
	}
	return a
}

// TestDirectZeroNodesIsRidge: direct links over no hidden node are the
// ridge regression on the pixels, primal (D < N) and dual (D > N) alike.
func TestDirectZeroNodesIsRidge(t *testing.T) {
	for _, tc := range []struct{ n, rows, cols int }{{150, 10, 8}, {40, 10, 8}} {
		p := blobProblem(t, tc.n)
		c := Paper(RVFL)
		c.MaxNodes = 5
		m, err := c.Fit(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, alpha := range []float64{0.1, 3} {
			dm, err := withDirect(m, 0, p.X, p.T, 1, alpha)
			if err != nil {
				t.Fatal(err)
			}
			if dm.Nodes() != 0 || len(dm.Beta) != 0 {
				t.Fatalf("%d nodes", dm.Nodes())
			}
			want := refRidge(t, pixelsDense(p.X), p.T, p.M, alpha)
			if r := relDiffDirect(dm.Direct.Beta, want); r > 1e-9 {
				t.Errorf("N = %d, alpha %g: direct weights differ from ridge on the pixels by %.3g", tc.n, alpha, r)
			}
			// Prediction is the linear model's.
			y, err := dm.Predict(p.X)
			if err != nil {
				t.Fatal(err)
			}
			var yr mat.Dense
			yr.Mul(pixelsDense(p.X), mat.NewDense(p.X.Dim(), p.M, want))
			if r := relDiffDirect(y, yr.RawMatrix().Data); r > 1e-9 {
				t.Errorf("N = %d: predictions differ by %.3g", tc.n, r)
			}
			_, back := roundTrip(t, dm)
			yb, err := back.Predict(p.X)
			if err != nil {
				t.Fatal(err)
			}
			if !equalFloats(y, yb) {
				t.Error("zero-node direct model: predictions change through its file")
			}
		}
	}
}

func equalFloats(a, b []float64) bool {
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

// TestDirectIsLeastSquaresOnHX: with nodes, the output weights are the
// (ridge) least squares over [H X], for each learner, primal and dual, and
// the minimum-norm one without a ridge term.
func TestDirectIsLeastSquaresOnHX(t *testing.T) {
	for _, k := range []Kind{SCN2D, SCN, RVFL2D, RVFL} {
		for _, n := range []int{150, 60} { // 80 + 30 unknowns: primal at 150, dual at 60
			p := blobProblem(t, n)
			c := Default(k)
			c.MaxNodes, c.BlockSize = 30, 10
			c.DirectLink = true
			m, err := c.Fit(context.Background(), p, nil)
			if err != nil {
				t.Fatal(err)
			}
			if m.Direct == nil || m.Direct.Pool != 1 || m.Config.Ridge != c.Ridge {
				t.Fatalf("%v: direct %+v", k, m.Direct)
			}
			l := m.Nodes()
			a := directDense(m, l, p.X, 1)
			// The reference's unknowns are [beta; W] in the order [H X].
			hx := mat.NewDense(n, l+p.X.Dim(), nil)
			hx.Slice(0, n, 0, l).(*mat.Dense).Copy(a.Slice(0, n, p.X.Dim(), p.X.Dim()+l))
			hx.Slice(0, n, l, l+p.X.Dim()).(*mat.Dense).Copy(pixelsDense(p.X))
			want := refRidge(t, hx, p.T, p.M, c.Ridge)
			got := append(append([]float64(nil), m.Beta...), m.Direct.Beta...)
			if r := relDiffDirect(got, want); r > 1e-9 {
				t.Errorf("%v N = %d: weights differ from the least squares on [H X] by %.3g", k, n, r)
			}
			y, err := m.Predict(p.X)
			if err != nil {
				t.Fatal(err)
			}
			var yr mat.Dense
			yr.Mul(hx, mat.NewDense(l+p.X.Dim(), p.M, want))
			// The predictor scores 2D nodes as u^T X v in float32, the fit
			// (and H here) from the expanded weights: they round apart.
			tol := 1e-9
			if k.Input == Matrix {
				tol = 1e-6
			}
			if r := relDiffDirect(y, yr.RawMatrix().Data); r > tol {
				t.Errorf("%v N = %d: predictions differ from [H X] w by %.3g", k, n, r)
			}
			file, back := roundTrip(t, m)
			if v := binary.LittleEndian.Uint32(file[8:]); v != 3 {
				t.Errorf("direct-link model written as version %d", v)
			}
			var again bytes.Buffer
			if _, err := back.WriteTo(&again); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(file, again.Bytes()) {
				t.Errorf("%v: file changes through a round trip", k)
			}
			yb, err := back.Predict(p.X)
			if err != nil {
				t.Fatal(err)
			}
			if !equalFloats(y, yb) {
				t.Errorf("%v: predictions change through the file", k)
			}
		}
	}
	// Without a ridge term: the minimum-norm least squares (full column
	// rank here: the QR solution).
	p := blobProblem(t, 150)
	c := Paper(RVFL)
	c.MaxNodes = 20
	c.DirectLink = true
	m, err := c.Fit(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := directDense(m, m.Nodes(), p.X, 1)
	want := refRidge(t, a, p.T, p.M, 0)
	got := append(append([]float64(nil), m.Direct.Beta...), m.Beta...)
	if r := relDiffDirect(got, want); r > 1e-9 {
		t.Errorf("ridge 0: weights differ from the least squares by %.3g", r)
	}
}

// TestSelectTriesDirect: on targets linear in the pixels, selection with
// TryDirect keeps direct links, and the record survives the file; without
// TryDirect, nothing changes.
func TestSelectTriesDirect(t *testing.T) {
	p := blobProblem(t, 150)
	rng := rand.New(rand.NewPCG(9, 9))
	w := make([]float64, p.X.Dim())
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	t2 := make([]float64, p.X.Len())
	for i := range t2 {
		for j, v := range p.X.Image(i) {
			t2[i] += w[j] * float64(v)
		}
	}
	lin, err := Regression(p.X, t2, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, folds := range []int{0, 3} {
		c := Default(RVFL)
		c.MaxNodes, c.BlockSize = 40, 10
		sel := Selection{Validation: 0.2, Folds: folds, Points: 6, TryDirect: true}
		m, err := c.Select(context.Background(), lin, sel, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.Direct == nil || !m.Selection.Direct {
			t.Fatalf("folds %d: linear targets, direct links not chosen: %+v", folds, m.Selection)
		}
		nd := 0
		for _, s := range m.Selection.Curve {
			if s.Direct {
				nd++
			}
		}
		if nd == 0 || nd == len(m.Selection.Curve) {
			t.Errorf("folds %d: %d of %d curve points with direct links", folds, nd, len(m.Selection.Curve))
		}
		_, back := roundTrip(t, m)
		if back.Selection == nil || !back.Selection.Direct || len(back.Selection.Curve) != len(m.Selection.Curve) || back.Selection.Curve[len(back.Selection.Curve)-1] != m.Selection.Curve[len(m.Selection.Curve)-1] {
			t.Errorf("folds %d: selection record lost in the file", folds)
		}
		rmse, err := m.RMSE(lin.X, lin.T)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("folds %d: chose L = %d ridge %g direct, train RMSE %.3g", folds, m.Nodes(), m.Config.Ridge, rmse)
		c.DirectLink = false
		sel.TryDirect = false
		plain, err := c.Select(context.Background(), lin, sel, nil)
		if err != nil {
			t.Fatal(err)
		}
		if plain.Direct != nil || choiceUsesV3(plain.Selection) {
			t.Errorf("folds %d: selection without TryDirect used direct links", folds)
		}
	}
}

// TestDirectBadFiles: a header's direct field that disagrees with the
// shapes, and direct links in a version 1 file, are refused.
func TestDirectBadFiles(t *testing.T) {
	p := blobProblem(t, 60)
	c := Default(RVFL)
	c.MaxNodes, c.BlockSize, c.DirectLink = 10, 10, true
	m, err := c.Fit(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	file, _ := roundTrip(t, m)
	for name, edit := range map[string]func([]byte) []byte{
		"pool 0":    func(b []byte) []byte { return bytes.Replace(b, []byte(`"pool":1`), []byte(`"pool":0`), 1) },
		"features":  func(b []byte) []byte { return bytes.Replace(b, []byte(`"features":80`), []byte(`"features":81`), 1) },
		"version 1": func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 1); return b },
		"truncated": func(b []byte) []byte { return b[:len(b)-20] },
		"no direct key": func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"direct":{"pool":1,"features":80}`), []byte(`"meta":{"pool":"1"}`), 1)
		},
	} {
		bad := edit(append([]byte(nil), file...))
		if _, err := Read(bytes.NewReader(bad)); err == nil {
			t.Errorf("%s: file read", name)
		}
	}
}

// TestDirectStatsUpdate: the statistics of a direct-link model are those of
// [H F]; their solve is the fit's weights, and an update with new images is
// the solve over both sets (also after a trip through the statistics file).
func TestDirectStatsUpdate(t *testing.T) {
	for _, pool := range []int{1, 2} {
		p := blobProblem(t, 400)
		a, b := subsetProblem(p, 0, 250), subsetProblem(p, 250, 400)
		c := Default(RVFL)
		c.MaxNodes, c.BlockSize, c.Ridge = 20, 10, 0.5
		base, err := c.Fit(context.Background(), a, nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := withDirect(base, base.Nodes(), a.X, a.T, pool, c.Ridge)
		if err != nil {
			t.Fatal(err)
		}
		st, err := m.Stats(a)
		if err != nil {
			t.Fatal(err)
		}
		if st.Nodes() != 20+direct.Dim(0, 10, 8, pool) {
			t.Fatalf("pool %d: statistics of %d columns", pool, st.Nodes())
		}
		var buf bytes.Buffer
		if _, err := st.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		st2, err := ReadStats(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		solved, err := st2.Solve(c.Ridge)
		if err != nil {
			t.Fatal(err)
		}
		if solved.Direct == nil || relDiffDirect(solved.Direct.Beta, m.Direct.Beta) > 1e-9 || relDiffDirect(solved.Beta, m.Beta) > 1e-9 {
			t.Fatalf("pool %d: the statistics' solve differs from the fit", pool)
		}
		nm, _, err := m.Update(st2, b, false)
		if err != nil {
			t.Fatal(err)
		}
		want, err := withDirect(base, base.Nodes(), p.X, p.T, pool, c.Ridge)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiffDirect(append(append([]float64(nil), nm.Beta...), nm.Direct.Beta...), append(append([]float64(nil), want.Beta...), want.Direct.Beta...)); d > 1e-9 {
			t.Errorf("pool %d: update differs from the solve on both sets by %.3g", pool, d)
		}
	}
}

// TestDirectPartialModelSaves: a cancelled direct-link fit returns its
// nodes without direct links, and that model is written as a plain one.
func TestDirectPartialModelSaves(t *testing.T) {
	p := blobProblem(t, 100)
	c := Default(RVFL)
	c.MaxNodes, c.BlockSize, c.DirectLink = 40, 10, true
	ctx, cancel := context.WithCancel(context.Background())
	m, err := c.Fit(ctx, p, func(s Step) {
		if s.L >= 10 {
			cancel()
		}
	})
	if err == nil || m == nil {
		t.Skipf("the fit finished before the cancel (%v)", err)
	}
	if m.Direct != nil {
		t.Fatal("a cancelled fit has direct links")
	}
	file, back := roundTrip(t, m)
	if v := binary.LittleEndian.Uint32(file[8:]); v != 1 || back.Direct != nil {
		t.Errorf("partial model written as version %d", v)
	}
	// A zero-node direct model has an indicator: the direct part alone.
	z, err := withDirect(m, 0, p.X, p.T, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	th, err := z.Indicator(p.X)
	if err != nil {
		t.Fatal(err)
	}
	var w2 float64
	for _, v := range z.Direct.Beta {
		w2 += v * v
	}
	if want := math.Sqrt(float64(p.X.Len()*p.X.Dim()) * w2); math.Abs(th-want) > 1e-9*want {
		t.Errorf("indicator %v, want %v", th, want)
	}
}

// FuzzReadDirect is FuzzRead from files with direct links (and selection
// records with direct-link rows and growth): whatever Read accepts is
// written back to the same bytes, and ReadInfo agrees.
func FuzzReadDirect(f *testing.F) {
	p := blobProblem(f, 60)
	for _, k := range []Kind{RVFL, SCN2D} {
		c := Default(k)
		c.MaxNodes, c.BlockSize = 6, 3
		m, err := c.Select(context.Background(), p, Selection{Validation: 0.2, Points: 3, Ridges: []float64{1}, TryDirect: true, Grow: true, GrowLimit: 12}, nil)
		if err != nil {
			f.Fatal(err)
		}
		z, err := withDirect(m, 0, p.X, p.T, 2, 1)
		if err != nil {
			f.Fatal(err)
		}
		for _, mm := range []*Model{m, z} {
			var buf bytes.Buffer
			if _, err := mm.WriteTo(&buf); err != nil {
				f.Fatal(err)
			}
			f.Add(buf.Bytes())
			f.Add(buf.Bytes()[:len(buf.Bytes())-9])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		info, infoErr := ReadInfo(bytes.NewReader(data))
		m, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if infoErr != nil || info.Nodes != m.Nodes() || info.FileBytes != int64(len(data)) || info.DirectFeatures != m.DirectDim() {
			t.Fatalf("ReadInfo disagrees with Read: %v, %+v", infoErr, info)
		}
		var out bytes.Buffer
		if _, err := m.WriteTo(&out); err != nil {
			t.Fatalf("a model that was read cannot be written: %v", err)
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatal("read then write changed the bytes")
		}
	})
}

// directDense returns [F H] of the first l nodes of m over x (direct.Dense).
func directDense(m *Model, l int, x Images, pool int) *mat.Dense {
	return direct.Dense(modelHidden{m, x}, l, direct.Images(x), pool)
}
