package scn

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/modelfile"
	"gonum.org/v1/gonum/mat"
)

// localConfig returns a small local configuration of learner k.
func localConfig(k Kind) Config {
	c := Paper(k)
	c.Activation = ReLU
	c.Ridge = 1e-2
	c.Scales = []float64{1}
	if k.Choice == Supervised {
		c.Scales = []float64{1, 2}
		c.Candidates = 3
	}
	c.Local = &Local{Sizes: []int{3, 5}, Filters: 6, Stride: 1, Pad: PadSame, Pool: 2, Pooling: PoolAvg, TwoSided: true, Standardize: true}
	return c
}

func localHidden(t *testing.T, m *Model, x Images) []float32 {
	t.Helper()
	var out []float32
	m.hidden(x, func(_, rows int, h []float32) {
		if rows != x.Len() {
			t.Fatalf("hidden in passes of %d of %d images", rows, x.Len())
		}
		out = append(out, h...)
	})
	return out
}

// TestLocal2DEquals1D: a local 2D node with filter u v^T (x w) gives the
// outputs of the local 1D node whose filter is vec(u v^T) (x w).
func TestLocal2DEquals1D(t *testing.T) {
	for _, ch := range []int{1, 3} {
		p, _ := hueProblem(t, 40, 21)
		if ch == 1 {
			_, p = hueProblem(t, 40, 21)
		}
		m2 := fitT(t, localConfig(RVFL2D), p)
		m1 := *m2
		m1.Kind = RVFL
		ll := *m2.Local
		ll.Banks = nil
		for _, b := range m2.Local.Banks {
			nm, kk := filterMap(Matrix, b.Size, ch), ch*b.Size*b.Size
			full := make([]float32, b.Filters()*kk)
			for j := range b.Bias {
				nm.Weight(b.Params[j*nm.Size():(j+1)*nm.Size()], full[j*kk:(j+1)*kk])
			}
			ll.Banks = append(ll.Banks, LocalBank{Size: b.Size, Params: full, Bias: b.Bias})
		}
		m1.Local = &ll
		if err := m1.check(); err != nil {
			t.Fatal(err)
		}
		h2, h1 := localHidden(t, m2, p.X), localHidden(t, &m1, p.X)
		if !slices.Equal(h1, h2) {
			t.Fatalf("%d channels: the 2D local nodes' outputs differ from the 1D nodes' of vec(u v^T)", ch)
		}
		y2, _ := m2.Predict(p.X)
		y1, _ := m1.Predict(p.X)
		if !slices.Equal(y1, y2) {
			t.Fatalf("%d channels: predictions differ", ch)
		}
	}
}

// TestLocalWholeImageIsGlobal: a local node whose filter covers the whole
// (square) image, pooled over one region, is today's global node: the same
// outputs to rounding, for matrix and vector learners, grey and colour.
func TestLocalWholeImageIsGlobal(t *testing.T) {
	const side = 6
	rng := rand.New(rand.NewPCG(3, 3))
	for _, ch := range []int{1, 3} {
		for _, in := range []InputMap{Matrix, Vector} {
			n, f := 7, 4
			x := Images{Rows: side, Cols: side, Channels: ch, Pix: make([]float32, n*ch*side*side)}
			for i := range x.Pix {
				x.Pix[i] = rng.Float32()
			}
			kind := Kind{Input: in, Choice: Random}
			nm := filterMap(in, side, ch)
			params := make([]float32, f*nm.Size())
			bias := make([]float32, f)
			for i := range params {
				params[i] = float32(rng.NormFloat64())
			}
			for i := range bias {
				bias[i] = float32(rng.NormFloat64())
			}
			beta := make([]float64, f*2)
			for i := range beta {
				beta[i] = rng.NormFloat64()
			}
			global := &Model{Kind: kind, Activation: Sigmoid, Rows: side, Cols: side, Channels: ch, M: 2,
				Params: params, Bias: bias, Beta: beta}
			loc := &Model{Kind: kind, Activation: Sigmoid, Rows: side, Cols: side, Channels: ch, M: 2,
				Params: []float32{}, Bias: []float32{}, Beta: beta,
				Local: &LocalLayer{Geometry: Local{Sizes: []int{side}, Filters: f, Stride: 1, Pool: 1, Pooling: PoolAvg},
					Banks: []LocalBank{{Size: side, Params: params, Bias: bias}}}}
			if ch == 1 {
				global.Channels, loc.Channels = 0, 0
			}
			for _, m := range []*Model{global, loc} {
				if err := m.check(); err != nil {
					t.Fatal(err)
				}
			}
			hg, hl := localHidden(t, global, x), localHidden(t, loc, x)
			for i := range hg {
				if d := math.Abs(float64(hg[i] - hl[i])); d > 1e-6 {
					t.Fatalf("%v, %d channels: output %d global %v, local %v", in, ch, i, hg[i], hl[i])
				}
			}
			yg, _ := global.Predict(x)
			yl, _ := loc.Predict(x)
			for i := range yg {
				if d := math.Abs(yg[i] - yl[i]); d > 1e-5 {
					t.Fatalf("%v, %d channels: prediction %d global %v, local %v", in, ch, i, yg[i], yl[i])
				}
			}
		}
	}
}

// TestLocalFitsSaveLoad: every learner fits local nodes, learns the hue
// task, writes version 3 and reads back the same model (same bytes, same
// predictions), and a fit is the same bytes at GOMAXPROCS 1 and 2.
func TestLocalFitsSaveLoad(t *testing.T) {
	p, _ := hueProblem(t, 120, 22)
	test, _ := hueProblem(t, 60, 23)
	for _, k := range Kinds() {
		c := localConfig(k)
		var files [][]byte
		for _, procs := range []int{1, 2} {
			old := runtime.GOMAXPROCS(procs)
			m := fitT(t, c, p)
			runtime.GOMAXPROCS(old)
			file, back := roundTrip(t, m)
			files = append(files, file)
			if v := file[8]; v != 3 {
				t.Fatalf("%v: file version %d, want 3", k, v)
			}
			file2, _ := roundTrip(t, back)
			if !bytes.Equal(file, file2) {
				t.Fatalf("%v: a read model writes other bytes", k)
			}
			y, err := m.Predict(test.X)
			if err != nil {
				t.Fatal(err)
			}
			yb, _ := back.Predict(test.X)
			if !slices.Equal(y, yb) {
				t.Fatalf("%v: predictions of the read model differ", k)
			}
			acc, _ := m.Accuracy(test.X, ArgMax(test.T, test.M))
			if acc < 0.8 {
				t.Errorf("%v: test accuracy %.2f on the hue task", k, acc)
			}
			if m.Nodes() != m.Local.Outputs() || m.Nodes() == 0 {
				t.Fatalf("%v: %d nodes, %d pooled outputs", k, m.Nodes(), m.Local.Outputs())
			}
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("%v: local fit differs between GOMAXPROCS 1 and 2", k)
		}
	}
}

// TestLocalInequality: every filter a supervised local fit accepts meets
// the block form of the supervisory inequality, checked by an independent
// least squares (QR) of the residual on the filter's pooled outputs, and
// the training RMSE never grows from step to step.
func TestLocalInequality(t *testing.T) {
	p, _ := hueProblem(t, 80, 24)
	checked := 0
	localnet.AcceptHook = func(cols []float32, per, n int, e []float64, m int, r float64) {
		h := mat.NewDense(n, per, nil)
		for a := 0; a < per; a++ {
			for i := 0; i < n; i++ {
				h.Set(i, a, float64(cols[a*n+i]))
			}
		}
		for q := 0; q < m; q++ {
			eq := mat.NewVecDense(n, append([]float64(nil), e[q*n:(q+1)*n]...))
			var b mat.VecDense
			if err := b.SolveVec(h, eq); err != nil {
				t.Fatal(err)
			}
			var proj mat.VecDense
			proj.MulVec(h, &b)
			ee := mat.Dot(eq, eq)
			if xi := mat.Dot(eq, &proj) - (1-r)*ee; xi < -1e-9*ee {
				t.Errorf("accepted filter with xi_%d = %g < 0 (r = %v)", q, xi, r)
			}
		}
		checked++
	}
	defer func() { localnet.AcceptHook = nil }()
	for _, k := range []Kind{SCN2D, SCN} {
		c := localConfig(k)
		c.Local.Standardize = false // full-rank blocks for the QR check
		c.Local.Pooling = PoolAvgMax
		m := fitT(t, c, p)
		prev := math.Inf(1)
		for i, st := range m.Summary.Trace {
			if st.RMSE > prev*(1+1e-12) {
				t.Errorf("%v: training RMSE grew at step %d: %v after %v", k, i, st.RMSE, prev)
			}
			prev = st.RMSE
		}
	}
	if checked == 0 {
		t.Fatal("no filter was accepted")
	}
}

// TestLocalBadInput: impossible geometries and images are clear errors.
func TestLocalBadInput(t *testing.T) {
	p, _ := hueProblem(t, 30, 25) // 12 x 10 images
	cases := []struct {
		edit func(*Local)
		want string
	}{
		{func(l *Local) { l.Sizes = []int{13}; l.Pad = 0 }, "larger than the images"},
		{func(l *Local) { l.Stride = 0 }, "stride 0"},
		{func(l *Local) { l.Pool = 11 }, "pool grid 11 x 11 is larger than the map"},
		{func(l *Local) { l.Filters = 0 }, "filters = 0"},
		{func(l *Local) { l.Sizes = []int{3, 3} }, "given twice"},
		{func(l *Local) { l.Sizes = nil }, "no filter size"},
	}
	for _, c := range cases {
		cfg := localConfig(RVFL2D)
		c.edit(cfg.Local)
		_, err := cfg.Fit(context.Background(), p, nil)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one saying %q", err, c.want)
		}
	}
	cfg := localConfig(RVFL2D)
	cfg.Ridge = 0
	if _, err := cfg.Fit(context.Background(), p, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("ridge 0: %v", err)
	}
	// Direct links are not built for local nodes: refused, not ignored.
	cfg = localConfig(RVFL2D)
	cfg.DirectLink = true
	if m, err := cfg.Fit(context.Background(), p, nil); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "direct links") || m != nil {
		t.Errorf("local nodes with direct links: %v", err)
	}
	m := fitT(t, localConfig(RVFL2D), p)
	small, _, _ := hueImages(3, 8, 8, 1)
	if _, err := m.Predict(small); !errors.Is(err, ErrData) || !strings.Contains(err.Error(), "the model takes 12 x 10") {
		t.Errorf("predicting smaller images: %v", err)
	}
	if _, err := localConfig(RVFL2D).FitPath(context.Background(), p, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("FitPath of local nodes: %v", err)
	}
}

// TestLocalFileChecks: a local model's file refuses a wrong version and
// claims its payload cannot hold.
func TestLocalFileChecks(t *testing.T) {
	p, _ := hueProblem(t, 40, 26)
	file, _ := roundTrip(t, fitT(t, localConfig(SCN2D), p))
	f := bytes.Clone(file)
	f[8] = 2
	fixCRC(f)
	if _, err := Read(bytes.NewReader(f)); !errors.Is(err, ErrFormat) {
		t.Errorf("version 2 with local nodes: %v", err)
	}
	for cut := 1; cut < 200; cut += 37 {
		if _, err := Read(bytes.NewReader(file[:len(file)-cut])); !errors.Is(err, ErrFormat) {
			t.Errorf("file cut by %d bytes: %v", cut, err)
		}
	}
	for _, swap := range [][2]string{{`"pool":2`, `"pool":9`}, {`"banks":[`, `"banks":[99,`}, {`"stride":1`, `"stride":0`}} {
		g := bytes.Replace(file, []byte(swap[0]), []byte(swap[1]), 1)
		if bytes.Equal(g, file) {
			t.Fatalf("no %s in the header", swap[0])
		}
		fixHeaderLen(g, len(swap[1])-len(swap[0]))
		fixCRC(g)
		if _, err := Read(bytes.NewReader(g)); !errors.Is(err, ErrFormat) {
			t.Errorf("header with %s: %v", swap[1], err)
		}
	}
}

func fixCRC(f []byte) {
	end := len(f) - 4
	binary.LittleEndian.PutUint32(f[end:], crc32.Checksum(f[:end], modelfile.Castagnoli))
}

// fixHeaderLen adds grow to the header length of a model file.
func fixHeaderLen(f []byte, grow int) {
	binary.LittleEndian.PutUint32(f[12:], uint32(int(binary.LittleEndian.Uint32(f[12:]))+grow))
}

// FuzzReadLocal: files of local models, cut or altered, are read or
// refused, never a panic; what is read writes back the same bytes and
// predicts.
func FuzzReadLocal(f *testing.F) {
	p, grey := hueProblem(f, 40, 27)
	for i, k := range Kinds() {
		c := localConfig(k)
		q := p
		if i%2 == 1 {
			q = grey
			c.Local.Pooling = PoolAvgMax
			c.Local.Standardize = false
		}
		m, err := c.Fit(context.Background(), q, nil)
		if err != nil {
			f.Fatal(err)
		}
		addModelSeeds(f, m)
	}
	fuzzModelFile(f)
}

// TestLocalSelectRidge: selection of local nodes scores every ridge of the
// grid on held-out images, keeps the best, and its output weights are
// those of a fit at that ridge (to rounding); the choice is saved.
func TestLocalSelectRidge(t *testing.T) {
	p, _ := hueProblem(t, 120, 28)
	c := localConfig(RVFL2D)
	c.Ridge = 1
	s := Selection{Validation: 0.25, Ridges: []float64{0.01, 1, 100, 1e4}}
	m, err := c.Select(context.Background(), p, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	ch := m.Selection
	if ch == nil || len(ch.Curve) != 4 || ch.Held != 30 || m.Config.Ridge != ch.Ridge {
		t.Fatalf("selection %+v, ridge %v", ch, m.Config.Ridge)
	}
	for _, sc := range ch.Curve {
		if sc.better(Score{Nodes: ch.Nodes, Ridge: ch.Ridge, Accuracy: ch.Accuracy, RMSE: ch.RMSE}, true) {
			t.Errorf("ridge %v scored %+v, better than the choice %+v", sc.Ridge, sc, ch)
		}
	}
	c.Ridge = ch.Ridge
	f := fitT(t, c, p)
	for i, v := range f.Beta {
		if d := math.Abs(v - m.Beta[i]); d > 1e-6*(1+math.Abs(v)) {
			t.Fatalf("output weight %d: selected %v, fit at ridge %v %v", i, m.Beta[i], ch.Ridge, v)
		}
	}
	_, back := roundTrip(t, m)
	if back.Selection == nil || back.Selection.Ridge != ch.Ridge {
		t.Fatal("the choice was not saved")
	}
	s.Ridges = []float64{0, 1}
	if _, err := c.Select(context.Background(), p, s, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("ridge 0 in the grid: %v", err)
	}
}

// TestLocalRefusals: what local models do not have yet is an error
// wrapping ErrLocal, never a panic.
func TestLocalRefusals(t *testing.T) {
	p, _ := hueProblem(t, 40, 29)
	m := fitT(t, localConfig(SCN2D), p)
	if _, err := m.Indicator(p.X); !errors.Is(err, ErrLocal) {
		t.Errorf("Indicator: %v", err)
	}
	if _, _, err := m.Robust(p); !errors.Is(err, ErrLocal) {
		t.Errorf("Robust: %v", err)
	}
	if _, err := m.Grow(context.Background(), p.X, p.T, 2, 1); !errors.Is(err, ErrLocal) {
		t.Errorf("Grow: %v", err)
	}
	if b := m.PredictBytes(10); b <= 0 {
		t.Errorf("PredictBytes %d", b)
	}
}

// addModelSeeds adds a fuzz target's seeds: m's file, and the file cut
// short.
func addModelSeeds(f *testing.F, m *Model) {
	f.Helper()
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:len(buf.Bytes())-40])
}

// fuzzModelFile runs a model-file fuzz target: whatever Read accepts,
// ReadInfo agrees with, writes back to the same bytes, and predicts.
func fuzzModelFile(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		info, infoErr := ReadInfo(bytes.NewReader(data))
		m, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if infoErr != nil || info.Nodes != m.Nodes() || info.FileBytes != int64(len(data)) || info.ParamCount() != m.ParamCount() {
			t.Fatalf("ReadInfo disagrees with Read: %v, %+v", infoErr, info)
		}
		var out bytes.Buffer
		if _, err := m.WriteTo(&out); err != nil {
			t.Fatalf("a model that was read cannot be written: %v", err)
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatal("read then write changed the bytes")
		}
		x := Images{Rows: m.Rows, Cols: m.Cols, Channels: m.Channels, Pix: make([]float32, m.Dim())}
		if _, err := m.Predict(x); err != nil {
			t.Fatalf("a model that was read cannot predict: %v", err)
		}
	})
}

// TestLocalnetAgrees: internal/localnet bounds a geometry's hidden
// outputs by the root's maxNodes, and numbers its stops as StopReason.
func TestLocalnetAgrees(t *testing.T) {
	if localnet.MaxOutputs != maxNodes || maxLocalFilters != localnet.MaxFilters {
		t.Fatalf("localnet.MaxOutputs = %d, maxNodes = %d", localnet.MaxOutputs, maxNodes)
	}
	stops := map[localnet.Stop]StopReason{localnet.ReachedMaxNodes: ReachedMaxNodes, localnet.ReachedTolerance: ReachedTolerance,
		localnet.NoAdmissible: NoAdmissible, localnet.Cancelled: Cancelled}
	for s, want := range stops {
		if StopReason(s) != want {
			t.Errorf("localnet's stop %d is %v, want %v", int(s), StopReason(s), want)
		}
	}
}
