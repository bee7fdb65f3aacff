package scn

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scn2d/scn/internal/fixtures"
	"github.com/scn2d/scn/internal/modelfile"
	"github.com/scn2d/scn/internal/node"
)

// hueImages returns n images of 3 channels (N x C x H x W) whose classes
// differ in hue only, their grey (luminance) version and the labels
// (fixtures.Hue says how they are drawn).
func hueImages(n, rows, cols int, seed uint64) (colour, grey Images, labels []int) {
	c, g, labels := fixtures.Hue(n, rows, cols, seed)
	return Images{Rows: rows, Cols: cols, Channels: 3, Pix: c}, Images{Rows: rows, Cols: cols, Pix: g}, labels
}

func hueProblem(t testing.TB, n int, seed uint64) (colour, grey Problem) {
	t.Helper()
	xc, xg, y := hueImages(n, 12, 10, seed)
	names := []string{"red", "green"}
	colour, err := Classification(xc, y, names)
	if err != nil {
		t.Fatal(err)
	}
	grey, err = Classification(xg, y, names)
	if err != nil {
		t.Fatal(err)
	}
	return colour, grey
}

// TestTensorNodeWeight: the 3-way node's weight over vec(X) is
// vec(u (x) v (x) w) in the N x C x H x W layout, its size d1 + d2 + C and
// its norm ||u|| ||v|| ||w||; with one channel it is the 2D node.
func TestTensorNodeWeight(t *testing.T) {
	const rows, cols, ch = 4, 3, 3
	rng := newRand(9)
	for _, c := range []int{0, 1, ch} {
		nm := newNodeMap(Matrix, rows, cols, c)
		want := rows + cols
		if c > 1 {
			want += c
		}
		if nm.Size() != want {
			t.Fatalf("%d channels: size %d, want %d", c, nm.Size(), want)
		}
		p := make([]float32, nm.Size())
		nm.Draw(rng, 1, p)
		d := max(c, 1) * rows * cols
		w := make([]float32, d)
		nm.Weight(p, w)
		var ss float64
		for k := 0; k < max(c, 1); k++ {
			wk := float32(1)
			if c > 1 {
				wk = p[rows+cols+k]
			}
			for a := 0; a < rows; a++ {
				for b := 0; b < cols; b++ {
					got := w[k*rows*cols+a*cols+b]
					exp := p[a] * p[rows+b]
					if c > 1 {
						exp *= wk
					}
					if got != exp {
						t.Fatalf("%d channels: weight[%d][%d][%d] = %v, want w_c u_a v_b = %v", c, k, a, b, got, exp)
					}
					ss += float64(got) * float64(got)
				}
			}
		}
		if n := nm.WeightNorm(p); math.Abs(n-math.Sqrt(ss)) > 1e-6*n {
			t.Errorf("%d channels: weightNorm %v, ||vec(u (x) v (x) w)|| = %v", c, n, math.Sqrt(ss))
		}
	}
	// The grey map draws what it drew before channels existed: u then v,
	// and nothing more from the stream.
	a, b := newRand(3), newRand(3)
	pg := make([]float32, rows+cols)
	newNodeMap(Matrix, rows, cols, 1).Draw(a, 2, pg)
	node.Uniform(b, 2, make([]float32, rows+cols))
	if a.Uint64() != b.Uint64() {
		t.Error("a grey node draws more than u and v from the stream")
	}
}

// TestTensorNodeIdentity: the hidden outputs of a 2D model of 3 channels,
// as fitted and as predicted, are those of a 1D node with weight
// vec(u (x) v (x) w): the model's nodes turned into a vector model predict
// the same outputs, and each node's input computed from the definition
// sum_c w_c u^T X_c v + b (float64) matches the hidden outputs.
func TestTensorNodeIdentity(t *testing.T) {
	p, _ := hueProblem(t, 120, 3)
	for _, c := range []Config{Paper(RVFL2D), Paper(SCN2D), Default(SCN2D), Fast(SCN2D).ForImages(12, 10)} {
		c.MaxNodes = 40
		c.BlockSize = min(c.BlockSize, 20)
		m := fitT(t, c, p)
		if m.Channels != 3 || m.ParamsPerNode() != 12+10+3 {
			t.Fatalf("%v %s: %d channels, %d parameters per node, want 3 and 25", c.Kind, c.Preset, m.Channels, m.ParamsPerNode())
		}
		vm := *m
		vm.Kind = RVFL
		vm.Params = m.weights()
		y2, err := m.Predict(p.X)
		if err != nil {
			t.Fatal(err)
		}
		y1, err := vm.Predict(p.X)
		if err != nil {
			t.Fatal(err)
		}
		for i := range y1 {
			if math.Abs(y1[i]-y2[i]) > 1e-5*(1+math.Abs(y1[i])) {
				t.Fatalf("%v %s: output %d: 3-way nodes give %v, their 1D nodes vec(u (x) v (x) w) %v", c.Kind, c.Preset, i, y2[i], y1[i])
			}
		}
		h := hiddenDense(m, p.X)
		np, d1, d2 := m.ParamsPerNode(), m.Rows, m.Cols
		for j := 0; j < m.Nodes(); j += 7 {
			q := m.Params[j*np : (j+1)*np]
			for i := 0; i < p.X.Len(); i += 11 {
				x := p.X.Image(i)
				a := float64(m.Bias[j])
				for k := 0; k < 3; k++ {
					for r := 0; r < d1; r++ {
						for s := 0; s < d2; s++ {
							a += float64(q[d1+d2+k]) * float64(q[r]) * float64(x[k*d1*d2+r*d2+s]) * float64(q[d1+s])
						}
					}
				}
				want := 1 / (1 + math.Exp(-a))
				if got := h.At(i, j); math.Abs(got-want) > 1e-5 {
					t.Fatalf("%v %s: node %d image %d: hidden output %v, sigmoid(sum_c w_c u^T X_c v + b) = %v", c.Kind, c.Preset, j, i, got, want)
				}
			}
		}
		// The fit's residual is the model's: the nodes scored in training
		// (pair products included) are the nodes saved.
		if rmse, _ := m.RMSE(p.X, p.T); c.Kind.Choice == Supervised && c.Ridge == 0 && math.Abs(rmse-m.Summary.TrainRMSE) > 1e-6 {
			t.Errorf("%v %s: predicted training RMSE %v, fit's %v", c.Kind, c.Preset, rmse, m.Summary.TrainRMSE)
		}
	}
}

// TestScorePairsChannels: pair products of 3-channel images are
// u_s^T (sum_c w_tc X_c) v_t.
func TestScorePairsChannels(t *testing.T) {
	p, _ := hueProblem(t, 37, 4)
	x := p.X
	const tu, tv = 3, 4
	rows, cols, ch := x.Rows, x.Cols, 3
	rng := newRand(5)
	u := make([]float32, tu*rows)
	vw := make([]float32, tv*(cols+ch))
	node.Uniform(rng, 1, u)
	node.Uniform(rng, 1, vw)
	z := make([]float32, tu*tv*x.Len())
	scorePairs(x, u, tu, node.ExpandChannels(vw, tv, cols, ch), tv, z)
	for tt := 0; tt < tv; tt++ {
		v, w := vw[tt*(cols+ch):tt*(cols+ch)+cols], vw[tt*(cols+ch)+cols:(tt+1)*(cols+ch)]
		for s := 0; s < tu; s++ {
			for i := 0; i < x.Len(); i++ {
				img := x.Image(i)
				var want float64
				for k := 0; k < ch; k++ {
					for a := 0; a < rows; a++ {
						for b := 0; b < cols; b++ {
							want += float64(w[k]) * float64(u[s*rows+a]) * float64(img[k*rows*cols+a*cols+b]) * float64(v[b])
						}
					}
				}
				if got := z[(tt*tu+s)*x.Len()+i]; math.Abs(float64(got)-want) > 1e-4*(1+math.Abs(want)) {
					t.Fatalf("pair (%d, %d) image %d: %v, want %v", s, tt, i, got, want)
				}
			}
		}
	}
}

// TestRankOne3: a rank-1 difference tensor is recovered exactly.
func TestRankOne3(t *testing.T) {
	u, v, c := []float64{1, -2, 0.5}, []float64{0.3, 2, -1, 1}, []float64{2, -1}
	d := make([]float64, 2*3*4)
	for k := range c {
		for i := range u {
			for j := range v {
				d[(k*3+i)*4+j] = c[k] * u[i] * v[j]
			}
		}
	}
	gu, gv, gc := node.RankOne3(d, 2, 3, 4)
	for k := range c {
		for i := range u {
			for j := range v {
				if got := gc[k] * gu[i] * gv[j]; math.Abs(got-d[(k*3+i)*4+j]) > 1e-12 {
					t.Fatalf("(%d,%d,%d): %v, want %v", k, i, j, got, d[(k*3+i)*4+j])
				}
			}
		}
	}
}

// TestGreyChannelsSameBytes: images of Channels 1 and 0 are the same grey
// images: the same fit, the same file (version 1, no channels field).
func TestGreyChannelsSameBytes(t *testing.T) {
	p := blobProblem(t, 120)
	q := p
	q.X.Channels = 1
	for _, c := range []Config{Paper(SCN2D), Paper(RVFL2D), Default(SCN2D), Fast(RVFL2D).ForImages(10, 8)} {
		c.MaxNodes = 30
		c.BlockSize = min(c.BlockSize, 10)
		a, _ := roundTrip(t, fitT(t, c, p))
		b, _ := roundTrip(t, fitT(t, c, q))
		if !bytes.Equal(a, b) {
			t.Errorf("%v %s: Channels 1 and 0 give different files", c.Kind, c.Preset)
		}
		if v := binary.LittleEndian.Uint32(a[8:]); v != 1 || bytes.Contains(a, []byte(`"channels"`)) {
			t.Errorf("%v %s: grey model written as version %d (channels field: %v), want version 1 without it", c.Kind, c.Preset, v, bytes.Contains(a, []byte(`"channels"`)))
		}
	}
}

// TestOldModelFileLoads: a version 1 file written before channels existed
// (testdata/v1-2dscn.scn: Paper(SCN2D), L = 8, blobProblem(60), at commit
// 63692c6 on an AVX-512 machine) loads as a grey model, is written back to
// the same bytes, and predicts the network its numbers define
// (sum_j beta_j sigmoid(u_j^T X v_j + b_j), computed here in float64); where
// the same fit today gives the same file (the kernels it was made with),
// that fit's predictions are the file's bit for bit.
func TestOldModelFileLoads(t *testing.T) {
	path := filepath.Join("testdata", "v1-2dscn.scn")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.Channels != 0 || m.Chans() != 1 || m.Nodes() != 8 || m.ParamsPerNode() != 18 {
		t.Fatalf("old file: %d channels, %d nodes of %d parameters", m.Channels, m.Nodes(), m.ParamsPerNode())
	}
	again, _ := roundTrip(t, m)
	if !bytes.Equal(again, raw) {
		t.Error("the old file is not written back to the same bytes")
	}
	p := blobProblem(t, 60)
	y0, err := m.Predict(p.X)
	if err != nil {
		t.Fatal(err)
	}
	np, d1, d2 := m.ParamsPerNode(), m.Rows, m.Cols
	for i := 0; i < p.X.Len(); i++ {
		x := p.X.Image(i)
		for q := 0; q < m.M; q++ {
			var y float64
			for j := 0; j < m.Nodes(); j++ {
				a := float64(m.Bias[j])
				for r := 0; r < d1; r++ {
					for s := 0; s < d2; s++ {
						a += float64(m.Params[j*np+r]) * float64(x[r*d2+s]) * float64(m.Params[j*np+d1+s])
					}
				}
				y += m.Beta[j*m.M+q] / (1 + math.Exp(-a))
			}
			if got := y0[i*m.M+q]; math.Abs(got-y) > 1e-5*(1+math.Abs(y)) {
				t.Fatalf("image %d output %d: %v, the file's network gives %v", i, q, got, y)
			}
		}
	}
	fresh := Paper(SCN2D)
	fresh.MaxNodes = 8
	fm := fitT(t, fresh, p)
	if now, _ := roundTrip(t, fm); !bytes.Equal(now, raw) {
		t.Logf("the same fit gives other bytes on this platform class (%s): not compared bit for bit", kernelVariant())
		return
	}
	y1, _ := fm.Predict(p.X)
	for i := range y0 {
		if y0[i] != y1[i] {
			t.Fatalf("output %d: old file %v, refit %v", i, y0[i], y1[i])
		}
	}
}

// colourKinds are the four learners' configurations tried on colour.
func colourConfigs() []Config {
	var out []Config
	for _, k := range []Kind{SCN2D, SCN, RVFL2D, RVFL} {
		pc := Paper(k)
		pc.MaxNodes = 30
		if k.Choice == Random {
			pc.MaxNodes = 100
		}
		dc := Default(k)
		dc.MaxNodes, dc.BlockSize = 100, 50
		fc := Fast(k).ForImages(12, 10)
		fc.MaxNodes, fc.BlockSize = 200, 100
		out = append(out, pc, dc, fc)
	}
	return out
}

// TestColourLearnsHue: on classes that differ in hue only, every learner
// (paper settings, default and fast presets) fitted on the colour images
// separates them on new images, and fitted on their grey version cannot
// (the grey images of both classes are alike).
func TestColourLearnsHue(t *testing.T) {
	train, trainGrey := hueProblem(t, 300, 11)
	test, testGrey := hueProblem(t, 200, 12)
	labels := ArgMax(test.T, 2)
	for _, c := range colourConfigs() {
		m := fitT(t, c, train)
		acc, err := m.Accuracy(test.X, labels)
		if err != nil {
			t.Fatal(err)
		}
		g := fitT(t, c, trainGrey)
		gacc, err := g.Accuracy(testGrey.X, labels)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v %s: colour %.3f, grey %.3f", c.Kind, c.Preset, acc, gacc)
		if acc < 0.95 {
			t.Errorf("%v %s: test accuracy %.3f on hue classes, want >= 0.95", c.Kind, c.Preset, acc)
		}
		if gacc > 0.65 {
			t.Errorf("%v %s: test accuracy %.3f on the grey version, want near chance (<= 0.65)", c.Kind, c.Preset, gacc)
		}
	}
}

// TestColourSaveLoad: colour models of every learner are written as
// version 2 files with their channels, read back (Read, ReadInfo) and
// predict the same bits; they refuse grey images, and a grey model refuses
// colour ones, with a message naming the channels.
func TestColourSaveLoad(t *testing.T) {
	p, grey := hueProblem(t, 100, 13)
	for _, c := range colourConfigs() {
		m := fitT(t, c, p)
		file, back := roundTrip(t, m)
		if v := binary.LittleEndian.Uint32(file[8:]); v != 2 {
			t.Errorf("%v %s: colour model written as version %d, want 2", c.Kind, c.Preset, v)
		}
		if back.Channels != 3 {
			t.Fatalf("%v %s: read back with %d channels", c.Kind, c.Preset, back.Channels)
		}
		info, err := ReadInfo(bytes.NewReader(file))
		if err != nil || info.Channels != 3 || info.ParamsPerNode() != m.ParamsPerNode() || info.FileBytes != int64(len(file)) {
			t.Fatalf("%v %s: info %+v, %v", c.Kind, c.Preset, info, err)
		}
		y0, err := m.Predict(p.X)
		if err != nil {
			t.Fatal(err)
		}
		y1, err := back.Predict(p.X)
		if err != nil {
			t.Fatal(err)
		}
		for i := range y0 {
			if math.Float64bits(y0[i]) != math.Float64bits(y1[i]) {
				t.Fatalf("%v %s: output %d: %v before saving, %v after", c.Kind, c.Preset, i, y0[i], y1[i])
			}
		}
		if _, err := back.Predict(grey.X); !errors.Is(err, ErrData) || !strings.Contains(err.Error(), "channel") {
			t.Errorf("%v %s: grey images on a colour model: %v, want ErrData naming the channels", c.Kind, c.Preset, err)
		}
		if _, err := back.Indicator(grey.X); !errors.Is(err, ErrData) {
			t.Errorf("%v %s: indicator on grey images of a colour model: %v", c.Kind, c.Preset, err)
		}
		if _, err := back.Stats(grey); !errors.Is(err, ErrData) {
			t.Errorf("%v %s: statistics of grey images for a colour model: %v", c.Kind, c.Preset, err)
		}
	}
	gc := Paper(SCN2D)
	gc.MaxNodes = 10
	g := fitT(t, gc, grey)
	if _, err := g.Predict(p.X); !errors.Is(err, ErrData) || !strings.Contains(err.Error(), "3 channels") {
		t.Errorf("colour images on a grey model: %v, want ErrData naming 3 channels", err)
	}
}

// TestColourFileVersionChecks: a version 1 file with a channels field and
// a version 2 file without one are refused.
func TestColourFileVersionChecks(t *testing.T) {
	p, grey := hueProblem(t, 60, 14)
	c := Paper(RVFL2D)
	c.MaxNodes = 5
	colour, _ := roundTrip(t, fitT(t, c, p))
	greyFile, _ := roundTrip(t, fitT(t, c, grey))
	setVersion := func(file []byte, v uint32) []byte {
		f := bytes.Clone(file)
		binary.LittleEndian.PutUint32(f[8:], v)
		end := len(f) - 4
		binary.LittleEndian.PutUint32(f[end:], crc32.Checksum(f[:end], modelfile.Castagnoli))
		return f
	}
	for name, f := range map[string][]byte{
		"version 1 with channels":    setVersion(colour, 1),
		"version 2 without channels": setVersion(greyFile, 2),
		"version 4 (future)":         setVersion(colour, modelfile.Version+1),
	} {
		if _, err := Read(bytes.NewReader(f)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
}

// TestColourDeterminism: a colour fit gives the same bytes at GOMAXPROCS
// 1 and 2.
func TestColourDeterminism(t *testing.T) {
	p, _ := hueProblem(t, 150, 15)
	for _, c := range []Config{Default(SCN2D), Fast(SCN2D).ForImages(12, 10), Fast(RVFL).ForImages(12, 10), Paper(SCN2D)} {
		c.MaxNodes = 60
		c.BlockSize = min(c.BlockSize, 20)
		var files [][]byte
		for _, procs := range []int{1, 2} {
			old := runtime.GOMAXPROCS(procs)
			f, _ := roundTrip(t, fitT(t, c, p))
			runtime.GOMAXPROCS(old)
			files = append(files, f)
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("%v %s: colour fit differs between GOMAXPROCS 1 and 2", c.Kind, c.Preset)
		}
	}
}

// TestColourMemoryEstimate: the estimate counts every channel (d =
// C*rows*cols) and the channel weights.
func TestColourMemoryEstimate(t *testing.T) {
	for _, c := range colourConfigs() {
		grey := c.EstimateBytesC(1000, 64, 64, 1, 10)
		if g0 := c.EstimateBytes(1000, 64, 64, 10); g0 != grey {
			t.Errorf("%v %s: EstimateBytes %d, EstimateBytesC with one channel %d", c.Kind, c.Preset, g0, grey)
		}
		colour := c.EstimateBytesC(1000, 64, 64, 3, 10)
		if colour <= grey {
			t.Errorf("%v %s: colour estimate %d not above grey %d", c.Kind, c.Preset, colour, grey)
		}
		if c.Kind.Input == Vector {
			// A vector node over 3 planes is three times the parameters.
			if e3, e1 := c.EstimateMemoryC(1000, 64, 64, 3, 10).Model, c.EstimateMemory(1000, 64, 64, 10).Model; e3 < 2*e1 {
				t.Errorf("%v %s: model bytes %d for colour, %d for grey", c.Kind, c.Preset, e3, e1)
			}
		}
	}
}

// TestColourStats: the statistics of colour images for a colour model's
// nodes merge (the merge of two halves is the whole), survive their file,
// and statistics of a recipe of other channels are refused naming the
// channels.
func TestColourStats(t *testing.T) {
	p, _ := hueProblem(t, 200, 16)
	c := Paper(RVFL2D)
	c.MaxNodes, c.Ridge = 30, 0.1
	m := fitT(t, c, subsetProblem(p, 0, 100))
	a, b := statsT(t, m, subsetProblem(p, 0, 100)), statsT(t, m, subsetProblem(p, 100, 200))
	ab, err := a.Merge(b)
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(ab.G, statsT(t, m, p).G); d > 1e-12 {
		t.Errorf("merged G differs from the whole set's by %.3g", d)
	}
	var buf bytes.Buffer
	if _, err := ab.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadStats(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.Recipe.Channels != 3 || !slices.Equal(back.G, ab.G) {
		t.Errorf("statistics file: recipe of %d channels, G equal %v", back.Recipe.Channels, slices.Equal(back.G, ab.G))
	}
	other := *b
	r := *b.Recipe
	r.Channels = 4
	other.Recipe = &r
	if _, err := a.Merge(&other); !errors.Is(err, ErrStats) || !strings.Contains(err.Error(), "channels") {
		t.Errorf("merge with a recipe of 4 channels: %v, want ErrStats naming the channels", err)
	}
}

// TestColourIndicatorAndSelect: the indicator of a colour 2D model is that
// of its 1D nodes vec(u (x) v (x) w) (||w_j|| = ||u|| ||v|| ||w||), and
// model selection with the default preset learns the hue classes.
func TestColourIndicatorAndSelect(t *testing.T) {
	p, _ := hueProblem(t, 200, 17)
	c := Paper(SCN2D)
	c.MaxNodes = 20
	m := fitT(t, c, p)
	vm := *m
	vm.Kind = SCN
	vm.Params = m.weights()
	i2, err := m.Indicator(p.X)
	if err != nil {
		t.Fatal(err)
	}
	i1, err := vm.Indicator(p.X)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(i1-i2) > 1e-6*i1 {
		t.Errorf("indicator %v, of the 1D nodes %v", i2, i1)
	}
	test, _ := hueProblem(t, 100, 18)
	d := Default(SCN2D)
	d.MaxNodes, d.BlockSize = 100, 25
	sm, err := d.Select(context.Background(), p, Selection{Validation: 0.25}, nil)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := sm.Accuracy(test.X, ArgMax(test.T, 2))
	if err != nil {
		t.Fatal(err)
	}
	if sm.Channels != 3 || acc < 0.95 {
		t.Errorf("selected model: %d channels, test accuracy %.3f", sm.Channels, acc)
	}
}

// BenchmarkPredictColour compares the predictor's per-plane u^T X_c v
// scoring of a 2D colour model (planes) with scoring its nodes expanded
// to 1D weights vec(u (x) v (x) w) held whole (expanded: L x C d1 d2
// floats, the memory the predictor does not take), for one image and for
// a batch of 128.
func BenchmarkPredictColour(b *testing.B) {
	const rows, cols, l = 32, 32, 1000
	x, _, y := hueImages(256, rows, cols, 19)
	p, err := Classification(x, y, []string{"red", "teal"})
	if err != nil {
		b.Fatal(err)
	}
	c := Paper(RVFL2D)
	c.MaxNodes = l
	m := fitT(b, c, p)
	vm := *m
	vm.Kind = RVFL
	vm.Params = m.weights()
	for _, n := range []int{1, 128} {
		xs := Images{Rows: rows, Cols: cols, Channels: 3, Pix: x.Pix[:n*x.Dim()]}
		for _, v := range []struct {
			name string
			m    *Model
		}{{"planes", m}, {"expanded", &vm}} {
			pr := NewPredictor(v.m)
			b.Run(fmt.Sprintf("%s/n=%d", v.name, n), func(b *testing.B) {
				for range b.N {
					if _, err := pr.Predict(xs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestColourBudget: a fit within a time budget (the fast RVFL it plans,
// its probe, checkpoints and selection) takes colour images, and its
// Replay gives the same model bytes.
func TestColourBudget(t *testing.T) {
	p, _ := hueProblem(t, 300, 22)
	b := Budget{Duration: 3 * time.Second, Seed: 1}
	m, err := b.Fit(context.Background(), p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Channels != 3 || m.Budget == nil {
		t.Fatalf("budget fit: %d channels, record %v", m.Channels, m.Budget)
	}
	r, err := Replay(context.Background(), m.Budget, m, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := roundTrip(t, m)
	c, _ := roundTrip(t, r)
	if !bytes.Equal(a, c) {
		t.Error("the replay of a colour budget fit gives other bytes")
	}
}
