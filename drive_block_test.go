package scn

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
	"github.com/scn2d/scn/internal/reference"
	"gonum.org/v1/gonum/mat"
)

// gaussH returns an n x l float32 H (node-major: l rows of n) and its
// float64 N x L copy, and N x m targets.
func gaussH(n, l, m int, seed uint64) (hb []float32, h, tt *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 9))
	hb = make([]float32, l*n)
	h = mat.NewDense(n, l, nil)
	tt = mat.NewDense(n, m, nil)
	for j := 0; j < l; j++ {
		for i := 0; i < n; i++ {
			v := float32(rng.NormFloat64())
			hb[j*n+i] = v
			h.Set(i, j, float64(v))
		}
	}
	for i := 0; i < n; i++ {
		for q := 0; q < m; q++ {
			tt.Set(i, q, rng.NormFloat64())
		}
	}
	return hb, h, tt
}

// fillEngine adds the columns of hb to a fresh engine in blocks of b.
func fillEngine(t *testing.T, hb []float32, n, l, m int, tt *mat.Dense, alpha float64, f32 bool, b int) *lsq.Gram {
	t.Helper()
	e := lsq.NewGram(tt.RawMatrix().Data, n, m, alpha, f32, l)
	for j0 := 0; j0 < l; j0 += b {
		k := min(b, l-j0)
		for j, ok := range e.AddBlock(hb[j0*n:(j0+k)*n], k) {
			if !ok {
				t.Fatalf("column %d of a Gaussian H refused as dependent", j0+j)
			}
		}
	}
	if e.Columns() != l {
		t.Fatalf("engine has %d columns, want %d", e.Columns(), l)
	}
	return e
}

// ridgeSolution returns (H^T H + alpha I)^-1 H^T T in float64.
func ridgeSolution(t *testing.T, h, tt *mat.Dense, alpha float64) []float64 {
	_, l := h.Dims()
	var a mat.Dense
	a.Mul(h.T(), h)
	for i := 0; i < l; i++ {
		a.Set(i, i, a.At(i, i)+alpha)
	}
	var rhs, out mat.Dense
	rhs.Mul(h.T(), tt)
	if err := out.Solve(&a, &rhs); err != nil {
		t.Fatal(err)
	}
	return out.RawMatrix().Data
}

func TestBlockEngineIsTheClosedForm(t *testing.T) {
	// Shards of 2048 rows: n = 4500 gives three, the last one short.
	const n, l, m = 4500, 150, 3
	hb, h, tt := gaussH(n, l, m, 1)
	for _, b := range []int{1, 37, 150} {
		e := fillEngine(t, hb, n, l, m, tt, 0, false, b)
		beta, err := e.Solve(l, 0)
		if err != nil {
			t.Fatal(err)
		}
		var want mat.Dense
		want.Mul(reference.Pinv(h), tt)
		if d := relDiff(beta, want.RawMatrix().Data); d > 1e-8 {
			t.Errorf("b=%d: ridge 0: beta differs from pinv(H) T by %.3g relative", b, d)
		}
		// Another ridge than the kept factor's: factored anew.
		beta, err = e.Solve(l, 0.7)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiff(beta, ridgeSolution(t, h, tt, 0.7)); d > 1e-8 {
			t.Errorf("b=%d: ridge 0.7 from G: differs from the closed form by %.3g", b, d)
		}
		// The kept factor at a ridge, and a prefix of it.
		er := fillEngine(t, hb, n, l, m, tt, 2.5, false, b)
		for _, pl := range []int{l, 61} {
			beta, err = er.Solve(pl, 2.5)
			if err != nil {
				t.Fatal(err)
			}
			hp := h.Slice(0, n, 0, pl).(*mat.Dense)
			if d := relDiff(beta, ridgeSolution(t, hp, tt, 2.5)); d > 1e-8 {
				t.Errorf("b=%d: prefix %d at the kept ridge: differs from the closed form by %.3g", b, pl, d)
			}
		}
		// normal() gives G and H^T T.
		g, ht := er.NormalDense(l)
		var wg, wht mat.Dense
		wg.Mul(h.T(), h)
		wht.Mul(h.T(), tt)
		if d := relDiff(g, wg.RawMatrix().Data); d > 1e-12 {
			t.Errorf("b=%d: normal(): G differs by %.3g", b, d)
		}
		if d := relDiff(ht, wht.RawMatrix().Data); d > 1e-12 {
			t.Errorf("b=%d: normal(): H^T T differs by %.3g", b, d)
		}
		// rss() is ||T - H beta||^2 without a pass over the data.
		beta, _ = er.Solve(l, 2.5)
		var r mat.Dense
		r.Mul(h, mat.NewDense(l, m, beta))
		r.Sub(tt, &r)
		want2 := mat.Norm(&r, 2)
		want2 *= want2
		if got := er.RSS(l, beta); math.Abs(got-want2) > 1e-8*want2 {
			t.Errorf("b=%d: rss %.10g, want %.10g", b, got, want2)
		}
	}
}

// TestBlockEngineFloat32Gram: float32 Gram products within shards of 2048
// rows agree with float64 ones. Each product adds at most 2048/16 = 128
// terms per kernel lane in float32 (unit roundoff 6e-8), so an entry of G
// is off by at most about 128 * 6e-8 ~ 8e-6 of the sum of |terms|, which
// for Gaussian columns is about n: we allow 1e-5 relative to n per entry.
// The ridge solution then moves by at most cond(G + alpha I) times that;
// with n = 4500 Gaussian rows and 150 columns, cond is below 3, so 1e-4.
func TestBlockEngineFloat32Gram(t *testing.T) {
	const n, l, m = 4500, 150, 3
	hb, _, tt := gaussH(n, l, m, 2)
	e64 := fillEngine(t, hb, n, l, m, tt, 1, false, 50)
	e32 := fillEngine(t, hb, n, l, m, tt, 1, true, 50)
	within32(t, "float32", e32, e64, n, l)
}

// within32 checks that engine e (float32 sums) agrees with e64 (float64
// products of the same outputs) on G to 1e-5 of n per entry and on the
// ridge-1 solution to 1e-4 relative (TestBlockEngineFloat32Gram says why).
func within32(t *testing.T, name string, e, e64 *lsq.Gram, n, l int) {
	t.Helper()
	g64, _ := e64.NormalDense(l)
	g, _ := e.NormalDense(l)
	for i := range g64 {
		if d := math.Abs(g64[i] - g[i]); d > 1e-5*float64(n) {
			t.Fatalf("%s: G entry %d: %.8g, float64 %.8g", name, i, g[i], g64[i])
		}
	}
	b64, _ := e64.Solve(l, 1)
	b, _ := e.Solve(l, 1)
	if d := relDiff(b, b64); d > 1e-4 {
		t.Errorf("%s Gram: beta differs from float64 by %.3g relative", name, d)
	}
}

// TestBlockEngineBF16Gram: bfloat16 Gram products are the float32 ones of
// the outputs rounded to bfloat16. G and the ridge solution agree with the
// float64 engine's on the rounded outputs to the float32 tolerances above
// (the bfloat16 products are exact in float32, so only the float32 sums
// round), and H^T T is formed from the rounded outputs too: the solution
// is that of one least-squares problem. Against the unrounded outputs the
// solution moves by about bfloat16's relative precision, 2^-9, times
// cond(G + alpha I): we check it stays within 1e-2, and is not within the
// float32 tolerance (the rounding does take place).
func TestBlockEngineBF16Gram(t *testing.T) {
	const n, l, m = 4500, 150, 3
	hb, _, tt := gaussH(n, l, m, 2)
	rounded := make([]float32, len(hb))
	for i, v := range hb {
		rounded[i] = linalg.BF16Float(linalg.RoundBF16(v))
	}
	e64 := fillEngine(t, rounded, n, l, m, tt, 1, false, 50)
	ebf := lsq.NewGram(tt.RawMatrix().Data, n, m, 1, true, l)
	ebf.BF16 = true
	for j0 := 0; j0 < l; j0 += 50 {
		ebf.AddBlock(hb[j0*n:(j0+50)*n], 50)
	}
	within32(t, "bfloat16 (against the rounded outputs)", ebf, e64, n, l)
	bbf, _ := ebf.Solve(l, 1)
	exact := fillEngine(t, hb, n, l, m, tt, 1, false, 50)
	bx, _ := exact.Solve(l, 1)
	if d := relDiff(bbf, bx); d > 1e-2 || d < 1e-4 {
		t.Errorf("bfloat16 Gram: beta differs from the unrounded float64 solution by %.3g relative, want between 1e-4 and 1e-2", d)
	}
}

// TestBlockEngineBF16StoresRounded: with bfloat16 Gram products the
// shards hold the outputs rounded (so the residual a supervised step
// judges candidates against is the rounded problem's), and that residual
// is orthogonal to the rounded columns up to the ridge: H'^T E = alpha
// beta for the ridge solution, to float32 tolerance.
func TestBlockEngineBF16StoresRounded(t *testing.T) {
	const n, l, m = 3000, 60, 2
	hb, _, tt := gaussH(n, l, m, 4)
	e := lsq.NewGram(tt.RawMatrix().Data, n, m, 1, true, l)
	e.BF16 = true
	e.AddBlock(hb[:30*n], 30)
	e.AddBlock(hb[30*n:], 30)
	for s, sh := range e.Shards {
		for _, v := range sh.H {
			if math.Float32bits(v)&0xffff != 0 {
				t.Fatalf("shard %d holds %g (%#08x), not a bfloat16 value", s, v, math.Float32bits(v))
			}
		}
	}
	beta, err := e.Solve(l, 1)
	if err != nil {
		t.Fatal(err)
	}
	res := make([]float64, m*n)
	e.Residual(l, beta, res)
	for j := 0; j < l; j++ {
		for q := 0; q < m; q++ {
			var dot float64
			for i := 0; i < n; i++ {
				dot += float64(linalg.BF16Float(linalg.RoundBF16(hb[j*n+i]))) * res[q*n+i]
			}
			if d := math.Abs(dot - beta[j*m+q]); d > 1e-3*math.Sqrt(n) {
				t.Fatalf("column %d, output %d: H'^T E = %.6g, alpha beta = %.6g", j, q, dot, beta[j*m+q])
			}
		}
	}
}

func TestBlockEngineRefusesDependentColumns(t *testing.T) {
	const n, l, m = 300, 40, 2
	hb, h, tt := gaussH(n, l, m, 3)
	// Column 25 repeats column 3; column 30 is the sum of 5 and 6.
	copy(hb[25*n:26*n], hb[3*n:4*n])
	for i := 0; i < n; i++ {
		hb[30*n+i] = hb[5*n+i] + hb[6*n+i]
	}
	e := lsq.NewGram(tt.RawMatrix().Data, n, m, 0, false, l)
	ok1 := e.AddBlock(hb[:20*n], 20)
	ok2 := e.AddBlock(hb[20*n:], 20)
	ok := append(ok1, ok2...)
	var kept []int
	for j, o := range ok {
		if want := j != 25 && j != 30; o != want {
			t.Fatalf("column %d: taken %v, want %v", j, o, want)
		}
		if o {
			kept = append(kept, j)
		}
	}
	beta, err := e.Solve(len(kept), 0)
	if err != nil {
		t.Fatal(err)
	}
	hk := mat.NewDense(n, len(kept), nil)
	for c, j := range kept {
		for i := 0; i < n; i++ {
			hk.Set(i, c, h.At(i, j))
		}
	}
	var want mat.Dense
	want.Mul(reference.Pinv(hk), tt)
	if d := relDiff(beta, want.RawMatrix().Data); d > 1e-8 {
		t.Errorf("after refusing dependent columns: beta differs from pinv by %.3g", d)
	}
	// Solving all 40 with a ridge from G is fine; without, it says why.
	if _, err := e.Solve(len(kept), 0.1); err != nil {
		t.Errorf("ridge solve: %v", err)
	}
}

// blockConfig is a small block configuration for tests.
func blockConfig(k Kind, l, b int) Config {
	c := Paper(k)
	c.MaxNodes, c.BlockSize, c.Preset = l, b, "custom"
	return c
}

func TestBlockResidualNeverGrows(t *testing.T) {
	p := blobProblem(t, 400)
	for _, k := range Kinds() {
		for _, ridge := range []float64{0, 0.3} {
			c := blockConfig(k, 120, 16)
			c.Ridge = ridge
			m := fitT(t, c, p)
			if len(m.Summary.Trace) != m.Nodes() {
				t.Fatalf("%v: %d trace steps for %d nodes", k, len(m.Summary.Trace), m.Nodes())
			}
			prev := math.Inf(1)
			for _, s := range m.Summary.Trace {
				if s.RMSE > prev*(1+1e-9) {
					t.Fatalf("%v ridge %g: node %d: RMSE %.8g after %.8g", k, ridge, s.L, s.RMSE, prev)
				}
				prev = s.RMSE
			}
		}
	}
}

// TestBlockRidgeGrowsPastN: with a ridge the supervisory inequality is
// applied to the regularised residual, which stays positive at L = N, so a
// supervised fit goes on adding useful nodes past N.
func TestBlockRidgeGrowsPastN(t *testing.T) {
	p := blobProblem(t, 50)
	for _, k := range []Kind{SCN2D, SCN} {
		c := blockConfig(k, 120, 10)
		c.Ridge = 0.01
		m := fitT(t, c, p)
		if m.Nodes() <= 50 {
			t.Fatalf("%v: stopped at %d nodes (%v), want past N = 50", k, m.Nodes(), m.Summary.Stop)
		}
		prev := math.Inf(1)
		for _, s := range m.Summary.Trace {
			if s.RMSE > prev*(1+1e-9) {
				t.Fatalf("%v: node %d: RMSE %.8g after %.8g", k, s.L, s.RMSE, prev)
			}
			prev = s.RMSE
		}
	}
}

// TestBlockInequalityOnTrace recomputes, for every block of a supervised
// block fit, the residual before it (from the model's prefix) and checks
// that every node of the block meets the supervisory inequality at the r
// the trace records.
func TestBlockInequalityOnTrace(t *testing.T) {
	p := blobProblem(t, 300)
	for _, k := range []Kind{SCN2D, SCN} {
		for _, ridge := range []float64{0, 0.2} {
			c := blockConfig(k, 90, 12)
			c.Ridge = ridge
			path, err := c.FitPath(context.Background(), p, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := path.Model()
			h := hiddenDense(m, p.X)
			n, mm := p.X.Len(), p.M
			checked := 0
			for l0 := 0; l0 < m.Nodes(); {
				e := append([]float64(nil), p.T...) // N x m
				if l0 > 0 {
					pm, err := path.Prefix(l0)
					if err != nil {
						t.Fatal(err)
					}
					y, _ := pm.Predict(p.X)
					for i := range e {
						e[i] -= y[i]
					}
				}
				l1 := l0 + 1
				for l1 < m.Nodes() && m.Summary.Trace[l1].Tried == 0 {
					l1++ // the nodes of one block: Tried is on its first
				}
				ee := make([]float64, mm)
				for i := 0; i < n; i++ {
					for q := 0; q < mm; q++ {
						ee[q] += e[i*mm+q] * e[i*mm+q]
					}
				}
				for j := l0; j < l1; j++ {
					r := m.Summary.Trace[j].Ratio
					var hh float64
					eh := make([]float64, mm)
					for i := 0; i < n; i++ {
						v := h.At(i, j)
						hh += v * v
						for q := 0; q < mm; q++ {
							eh[q] += e[i*mm+q] * v
						}
					}
					for q := 0; q < mm; q++ {
						xi := eh[q]*eh[q]/hh - (1-r)*ee[q]
						if xi < -1e-9*ee[q] {
							t.Fatalf("%v ridge %g: node %d (block from %d), output %d: xi = %.4g < 0 at r = %v", k, ridge, j+1, l0+1, q, xi, r)
						}
					}
					checked++
				}
				// The block form: the projection of each e_q on the span of
				// the block's columns is at least (1-r) e_q^T e_q.
				r := m.Summary.Trace[l0].Ratio
				hb := h.Slice(0, n, l0, l1).(*mat.Dense)
				em := mat.NewDense(n, mm, e)
				var coef, proj mat.Dense
				if err := coef.Solve(hb, em); err == nil {
					proj.Mul(hb, &coef)
					for q := 0; q < mm; q++ {
						var pe float64
						for i := 0; i < n; i++ {
							pe += proj.At(i, q) * e[i*mm+q]
						}
						if pe < (1-r)*ee[q]*(1-1e-9) {
							t.Fatalf("%v ridge %g: block from node %d, output %d: projection %.6g < (1-r) e^T e = %.6g", k, ridge, l0+1, q, pe, (1-r)*ee[q])
						}
					}
				}
				l0 = l1
			}
			if checked != m.Nodes() {
				t.Fatalf("checked %d of %d nodes", checked, m.Nodes())
			}
		}
	}
}

func TestBlockSameSeedSameFileWhateverGOMAXPROCS(t *testing.T) {
	p := blobProblem(t, 5000) // several shards
	for _, k := range Kinds() {
		// The supervised learners also with bfloat16 products (the
		// random ones have them in TestOnePassSameFileWhateverGOMAXPROCS).
		for _, bf16 := range []bool{false, true} {
			if bf16 && k.Choice == Random {
				continue
			}
			c := Fast(k)
			c.MaxNodes, c.BlockSize = 120, 50
			c.FieldMin, c.FieldMax = 3, 6
			c.BF16Gram = bf16
			if _, same := fileWhateverGOMAXPROCS(t, c, p); !same {
				t.Errorf("%v bf16=%v: block model files differ between GOMAXPROCS=1 and 2", k, bf16)
			}
		}
	}
}

// TestBlockSizeOneIsThePaperPath: BlockSize 1 alone keeps the one-node QR
// path, so its models are today's, byte for byte.
func TestBlockSizeOneIsThePaperPath(t *testing.T) {
	p := blobProblem(t, 300)
	for _, k := range Kinds() {
		c := Paper(k)
		c.MaxNodes = 40
		var a, b bytes.Buffer
		fitT(t, c, p).WriteTo(&a)
		c.BlockSize = 1
		fitT(t, c, p).WriteTo(&b)
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%v: BlockSize 1 changed the model file", k)
		}
	}
}

// TestReceptiveFieldNodes: a node's weights are zero outside its
// rectangle, and its output is u^T X v + b (w^T x + b) computed with every
// entry, zeros included, to 1e-6.
func TestReceptiveFieldNodes(t *testing.T) {
	p := blobProblem(t, 200) // 10 x 8 images
	for _, k := range Kinds() {
		c := Fast(k)
		c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 40, 20, 2, 5
		c.Pairs = k == SCN2D
		c.Differences = false // random entries: none zero on the field (TestDifferenceNodes has its own)
		m := fitT(t, c, p)
		h := hiddenDense(m, p.X)
		np := m.ParamsPerNode()
		rows, cols := p.X.Rows, p.X.Cols
		for j := 0; j < m.Nodes(); j++ {
			par := m.Params[j*np : (j+1)*np]
			w := make([]float64, rows*cols)
			if k.Input == Matrix {
				u, v := par[:rows], par[rows:]
				checkInterval(t, u, 2, 5)
				checkInterval(t, v, 2, 5)
				for a := 0; a < rows; a++ {
					for b := 0; b < cols; b++ {
						w[a*cols+b] = float64(u[a]) * float64(v[b])
					}
				}
			} else {
				nz := 0
				for i, x := range par {
					w[i] = float64(x)
					if x != 0 {
						nz++
					}
				}
				if nz < 4 || nz > 25 {
					t.Fatalf("%v node %d: %d non-zero weights, want a 2..5 x 2..5 rectangle", k, j, nz)
				}
			}
			for i := 0; i < p.X.Len(); i++ {
				var s float64
				for a, x := range p.X.Image(i) {
					s += w[a] * float64(x)
				}
				want := refActivation(m.Activation, s+float64(m.Bias[j]))
				if got := h.At(i, j); math.Abs(got-want) > 1e-6*max(1, math.Abs(want)) {
					t.Fatalf("%v node %d image %d: output %.8g, u^T X v + b gives %.8g", k, j, i, got, want)
				}
			}
		}
	}
}

// checkInterval fails unless the non-zero entries of x form one interval
// whose length is in [lo, hi].
func checkInterval(t *testing.T, x []float32, lo, hi int) {
	t.Helper()
	first, last := -1, -1
	for i, v := range x {
		if v != 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || last-first+1 < lo || last-first+1 > hi {
		t.Fatalf("support [%d, %d] of %v, want one interval of length %d..%d", first, last, x, lo, hi)
	}
}

// TestStandardizedNodesHaveUnitSpread: standardised nodes' inputs have mean
// about 0 (before the bias) and spread lambda on the training images.
func TestStandardizedNodesHaveUnitSpread(t *testing.T) {
	p := blobProblem(t, 2000)
	c := Fast(RVFL2D)
	c.MaxNodes, c.BlockSize, c.Scales = 30, 30, []float64{2}
	c.Activation = ReLU // identity on the positive side: read the inputs back
	m := fitT(t, c, p)
	w := m.weights()
	d := p.X.Dim()
	for j := 0; j < m.Nodes(); j++ {
		var s, s2 float64
		for i := 0; i < p.X.Len(); i++ {
			var z float64
			for a, x := range p.X.Image(i) {
				z += float64(w[j*d+a]) * float64(x)
			}
			z += float64(m.Bias[j])
			s += z
			s2 += z * z
		}
		n := float64(p.X.Len())
		mean, sd := s/n, math.Sqrt(s2/n-(s/n)*(s/n))
		// The mean is the random part of the bias, in [-lambda, lambda].
		if math.Abs(sd-2) > 0.05 || math.Abs(mean) > 2.01 {
			t.Errorf("node %d: spread %.4f (want 2), mean %.4f", j, sd, mean)
		}
	}
}

func TestBlockConfigValidation(t *testing.T) {
	for _, edit := range []func(*Config){
		func(c *Config) { c.BlockSize = -1 },
		func(c *Config) { c.FieldMin, c.FieldMax = 5, 0 },
		func(c *Config) { c.FieldMin, c.FieldMax = 0, 5 },
		func(c *Config) { c.FieldMin, c.FieldMax = 9, 5 },
		func(c *Config) { c.FieldMin, c.FieldMax = -2, 5 },
		func(c *Config) { c.BlockSize, c.Candidates = 1000, 1000 },
	} {
		c := Fast(SCN2D)
		edit(&c)
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: Validate() = %v, want ErrConfig", c, err)
		}
	}
	for _, k := range Kinds() {
		if err := Fast(k).Validate(); err != nil {
			t.Errorf("Fast(%v): %v", k, err)
		}
	}
}

// TestBlockPrefixAndFileRoundTrip: a block model's prefixes re-solve
// through the engine, and its file keeps the block settings.
func TestBlockPrefixAndFileRoundTrip(t *testing.T) {
	p := blobProblem(t, 300)
	c := Fast(SCN2D)
	c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 60, 20, 3, 6
	c.Float32Gram, c.BF16Gram = false, false
	path, err := c.FitPath(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := path.Model()
	pm, err := path.Prefix(33)
	if err != nil {
		t.Fatal(err)
	}
	// The closed form on the outputs the fit stored (the engine's shards):
	// prediction's kernels may round them differently (the pure-Go build
	// scores 2D nodes with a Go loop there and with Sgemm in the fit).
	eng := path.eng.(*lsq.Gram)
	h := mat.NewDense(p.X.Len(), 33, nil)
	for _, sh := range eng.Shards {
		r := sh.Hi - sh.Lo
		for j := 0; j < 33; j++ {
			for i := 0; i < r; i++ {
				h.Set(sh.Lo+i, j, float64(sh.H[j*r+i]))
			}
		}
	}
	want := ridgeSolution(t, h, mat.NewDense(p.X.Len(), p.M, p.T), c.Ridge)
	if d := relDiff(pm.Beta, want); d > 1e-8 {
		t.Errorf("prefix 33: beta differs from the closed form by %.3g", d)
	}
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	bc := back.Config
	if bc.BlockSize != 20 || bc.FieldMin != 3 || bc.FieldMax != 6 || !bc.Standardize || bc.Float32Gram || bc.BF16Gram || bc.Preset != "fast" {
		t.Errorf("block settings not kept by the file: %+v", bc)
	}
	// A bfloat16 fit's file says so, and its model reads back the same.
	c.BF16Gram = true
	mb, err := c.Fit(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	file := modelBytes(t, mb)
	back, err = Read(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if !back.Config.BF16Gram || !bytes.Equal(modelBytes(t, back), file) {
		t.Errorf("bfloat16 Gram: the file does not keep the setting or the model")
	}
}

// TestPairScoringIsEachPairAlone: the T_u x T_v pair products equal each
// pair's u^T X v scored alone by the predicting kernel to 1e-6 relative to
// sum |u_a| |X_ab| |v_b| (float32 products summed in two orders).
func TestPairScoringIsEachPairAlone(t *testing.T) {
	for _, shape := range [][2]int{{10, 8}, {28, 28}, {19, 33}} {
		rows, cols := shape[0], shape[1]
		x, _, _ := blobs(2500, rows, cols, 3, 7) // two shards
		rng := rand.New(rand.NewPCG(3, 3))
		tu, tv := 5, 7
		u := make([]float32, tu*rows)
		v := make([]float32, tv*cols)
		for i := range u {
			u[i] = float32(rng.NormFloat64())
		}
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		n := x.Len()
		z := make([]float32, tu*tv*n)
		scorePairs(x, u, tu, v, tv, z)
		mm := matrixMap{Rows: rows, Cols: cols, Ch: 1}
		w := make([]float32, rows*cols)
		one := make([]float32, n)
		for tt := 0; tt < tv; tt++ {
			for s := 0; s < tu; s++ {
				p := append(append([]float32(nil), u[s*rows:(s+1)*rows]...), v[tt*cols:(tt+1)*cols]...)
				mm.Weight(p, w)
				linalg.ScoreNT(1, n, rows*cols, w, x.Pix, one, n)
				for i := 0; i < n; i++ {
					var scale float64
					for a, xa := range x.Image(i) {
						scale += math.Abs(float64(w[a]) * float64(xa))
					}
					got := z[(tt*tu+s)*n+i]
					if d := math.Abs(float64(got) - float64(one[i])); d > 1e-6*scale {
						t.Fatalf("%dx%d pair (%d,%d) image %d: pair product %.8g, alone %.8g", rows, cols, s, tt, i, got, one[i])
					}
				}
			}
		}
	}
}

// TestPairsFit: a 2DSCN block fit with pair scoring is deterministic,
// its nodes' outputs are their u^T X v (the accepted columns recomputed),
// and it learns.
func TestPairsFit(t *testing.T) {
	p := blobProblem(t, 3000)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	c := Fast(SCN2D)
	c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax, c.Pairs = 80, 20, 3, 6, true
	var files [][]byte
	var m *Model
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		m = fitT(t, c, p)
		var buf bytes.Buffer
		m.WriteTo(&buf)
		files = append(files, buf.Bytes())
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Errorf("pair fit: files differ between GOMAXPROCS 1 and 2")
	}
	if acc, _ := m.Accuracy(p.X, labelsOf(p)); acc < 0.9 {
		t.Errorf("pair fit: training accuracy %.3f", acc)
	}
	if m.Summary.Tried != 4*81 { // side ceil(sqrt(4 x 20)) = 9: 81 per block
		t.Errorf("tried %d candidates, want 4 blocks of 9 x 9", m.Summary.Tried)
	}
	c.Kind = RVFL2D
	if err := c.Validate(); !errors.Is(err, ErrConfig) {
		t.Errorf("Pairs on 2drvfl: Validate() = %v, want ErrConfig", err)
	}
}

// refActivation is g(t) in float64.
func refActivation(a Activation, t float64) float64 {
	switch a {
	case Tanh:
		return math.Tanh(t)
	case ReLU:
		return max(t, 0)
	}
	return 1 / (1 + math.Exp(-t))
}

// TestSelectOnBlockFit: model selection (L and the ridge on a hold-out)
// runs on a block fit through the engine interface.
func TestSelectOnBlockFit(t *testing.T) {
	p := blobProblem(t, 600)
	for _, k := range []Kind{SCN2D, RVFL} {
		c := Fast(k)
		c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 120, 30, 3, 6
		m, err := c.Select(context.Background(), p, Selection{Validation: 0.25, Ridges: []float64{0, 0.1, 10}}, nil)
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if m.Nodes() < 1 || m.Nodes() > 120 {
			t.Errorf("%v: selected %d nodes", k, m.Nodes())
		}
	}
}

// TestStandardizedFitLinearInPixels: a standardised fit on 128 x 64 images
// allocates in all (garbage included) far less than a d x d pixel
// covariance (256 MiB in float32), which it once formed (on 243 x 320
// photos: 24 GB).
func TestStandardizedFitLinearInPixels(t *testing.T) {
	x, y, names := blobs(50, 128, 64, 3, 9)
	p, err := Classification(x, y, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []Kind{RVFL2D, RVFL, SCN2D, SCN} {
		c := Fast(k)
		c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 20, 10, 0, 0
		c.Pairs = false
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, err := c.Fit(context.Background(), p, nil); err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		runtime.ReadMemStats(&after)
		d := int64(x.Dim())
		if got := int64(after.TotalAlloc - before.TotalAlloc); got > 4*d*d/4 {
			t.Errorf("%v: the fit allocated %d bytes, a quarter of a %d x %d float32 covariance or more", k, got, d, d)
		}
	}
}

// relDiff returns ||a - b|| / ||b||.
func relDiff(a, b []float64) float64 {
	var d, n float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
		n += b[i] * b[i]
	}
	return math.Sqrt(d / n)
}

// scorePairs is node.ScorePairs on the images x.
func scorePairs(x Images, u []float32, tu int, v []float32, tv int, z []float32) {
	node.ScorePairs(x.Pix, x.Len(), x.Rows, x.Cols, x.Chans(), u, tu, v, tv, z)
}
