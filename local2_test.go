package scn

import (
	"bytes"
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/localnet"
)

// secondConfig returns a small two-layer local configuration of learner k.
func secondConfig(k Kind) Config {
	c := localConfig(k)
	c.Local.Sizes = []int{3}
	c.Local.Filters = 4
	c.Local.Second = &LocalSecond{Filters: 5, Size: 3, Window: 2, Stride: 2, MidPooling: PoolMax, Concat: true}
	return c
}

// secondReference computes a two-layer model's standardised hidden outputs
// by direct loops in float64 from the weights the model reports
// (LocalWeights, SecondWeights) and its biases: every position of every
// first-layer filter, the activation, the windows between the layers,
// every position of every second-layer filter (zero-padded by k2/2), the
// activation, the regions of the pool grid, the standardisation.
func secondReference(m *Model, x Images) [][]float64 {
	g := m.Local.Geometry
	act := func(z float64) float64 {
		v := []float32{float32(z)}
		m.Activation.applyRow(v, 0)
		return float64(v[0])
	}
	sides := g.Sides()
	// conv applies filters w (F x C x k x k) with biases b to planes of
	// rows x cols padded by pad, stride st, and returns the activated maps
	// of each filter and side.
	conv := func(img []float64, ch, rows, cols int, w, b []float32, k, pad, st int) ([][]float64, int, int) {
		f := len(b)
		h, wd := (rows+2*pad-k)/st+1, (cols+2*pad-k)/st+1
		var maps [][]float64
		for j := 0; j < f; j++ {
			pos, neg := make([]float64, h*wd), make([]float64, h*wd)
			for pr := 0; pr < h; pr++ {
				for pc := 0; pc < wd; pc++ {
					z := float64(b[j])
					for c := 0; c < ch; c++ {
						for a := 0; a < k; a++ {
							for bb := 0; bb < k; bb++ {
								r, cc := pr*st-pad+a, pc*st-pad+bb
								if r >= 0 && r < rows && cc >= 0 && cc < cols {
									z += float64(w[((j*ch+c)*k+a)*k+bb]) * img[(c*rows+r)*cols+cc]
								}
							}
						}
					}
					pos[pr*wd+pc], neg[pr*wd+pc] = act(z), act(-z)
				}
			}
			maps = append(maps, pos)
			if sides == 2 {
				maps = append(maps, neg)
			}
		}
		return maps, h, wd
	}
	// pooled returns the pool grid's outputs of the maps, filter by
	// filter, side by side (avg then max).
	pooled := func(maps [][]float64, h, w int) []float64 {
		var out []float64
		p := g.Pool
		for _, mp := range maps {
			var avg, mx []float64
			for gi := 0; gi < p; gi++ {
				for gj := 0; gj < p; gj++ {
					r0, r1 := int(math.Floor(float64(gi*h)/float64(p))), int(math.Ceil(float64((gi+1)*h)/float64(p)))
					c0, c1 := int(math.Floor(float64(gj*w)/float64(p))), int(math.Ceil(float64((gj+1)*w)/float64(p)))
					s, top := 0.0, math.Inf(-1)
					for r := r0; r < r1; r++ {
						for c := c0; c < c1; c++ {
							s += mp[r*w+c]
							top = math.Max(top, mp[r*w+c])
						}
					}
					avg = append(avg, s/float64((r1-r0)*(c1-c0)))
					mx = append(mx, top)
				}
			}
			switch g.Pooling {
			case PoolAvg:
				out = append(out, avg...)
			case PoolMax:
				out = append(out, mx...)
			default:
				out = append(append(out, avg...), mx...)
			}
		}
		return out
	}
	s := g.Second
	k1 := g.Sizes[0]
	w1, w2 := m.LocalWeights(0), m.SecondWeights()
	ch, d := m.Chans(), x.Dim()
	var rows [][]float64
	for i := 0; i < x.Len(); i++ {
		img := make([]float64, d)
		for t, v := range x.Pix[i*d : (i+1)*d] {
			img[t] = float64(v)
		}
		maps, h, w := conv(img, ch, m.Rows, m.Cols, w1, m.Local.Banks[0].Bias, k1, g.PadFor(k1), g.Stride)
		var row []float64
		if s.Concat {
			row = pooled(maps, h, w)
		}
		hp, wp := (h-s.Window)/s.Stride+1, (w-s.Window)/s.Stride+1
		planes := make([]float64, 0, len(maps)*hp*wp)
		for _, mp := range maps {
			for r := 0; r < hp; r++ {
				for c := 0; c < wp; c++ {
					sum, top := 0.0, math.Inf(-1)
					for a := 0; a < s.Window; a++ {
						for b := 0; b < s.Window; b++ {
							v := mp[(r*s.Stride+a)*w+c*s.Stride+b]
							sum += v
							top = math.Max(top, v)
						}
					}
					if s.MidPooling == PoolMax {
						planes = append(planes, top)
					} else {
						planes = append(planes, sum/float64(s.Window*s.Window))
					}
				}
			}
		}
		maps2, h2, w2s := conv(planes, len(maps), hp, wp, w2, m.Local.Second.Bias, s.Size, s.Size/2, 1)
		row = append(row, pooled(maps2, h2, w2s)...)
		for j := range row {
			if m.Local.Mean != nil {
				row[j] = (row[j] - float64(m.Local.Mean[j])) / float64(m.Local.Scale[j])
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// TestLocalSecondReference: the hidden outputs of fitted two-layer models
// (grey and colour, odd sizes, stride 2 and padding in the first layer,
// max and avg between the layers, a window with stride 1, both layers'
// outputs or the second's, 2D and 1D learners) agree with direct loops.
func TestLocalSecondReference(t *testing.T) {
	colour, grey := hueProblem(t, 40, 31) // 12 x 10 images
	cases := []struct {
		name string
		k    Kind
		p    Problem
		edit func(*Local)
	}{
		{"2drvfl colour", RVFL2D, colour, func(*Local) {}},
		{"rvfl grey stride 2, avg 3/1, second only", RVFL, grey, func(l *Local) {
			l.Stride, l.Pad = 2, 1
			l.Second.Window, l.Second.Stride, l.Second.MidPooling, l.Second.Concat = 3, 1, PoolAvg, false
		}},
		{"2dscn colour avg+max, 2x2 filters, one-sided", SCN2D, colour, func(l *Local) {
			l.Pooling, l.TwoSided = PoolAvgMax, false
			l.Second.Size = 2
		}},
		{"scn grey unstandardised, 5x5 first layer, pad 0", SCN, grey, func(l *Local) {
			l.Sizes, l.Pad, l.Standardize, l.Pool = []int{5}, 0, false, 1
			l.Second.Window, l.Second.Stride = 2, 1
		}},
	}
	for _, c := range cases {
		cfg := secondConfig(c.k)
		c.edit(cfg.Local)
		m := fitT(t, cfg, c.p)
		if m.Local.Second == nil || m.Local.Second.Filters() == 0 {
			t.Fatalf("%s: no second layer", c.name)
		}
		want := secondReference(m, c.p.X)
		got := localHidden(t, m, c.p.X) // L x N
		n, l := c.p.X.Len(), m.Nodes()
		if len(want[0]) != l {
			t.Fatalf("%s: reference gives %d outputs, the model %d", c.name, len(want[0]), l)
		}
		for i := 0; i < n; i++ {
			for j := 0; j < l; j++ {
				if v, r := float64(got[j*n+i]), want[i][j]; math.Abs(v-r) > 1e-3*(1+math.Abs(r)) {
					t.Fatalf("%s: image %d output %d = %v, reference %v", c.name, i, j, v, r)
				}
			}
		}
	}
}

// TestLocalSecondFits: two-layer fits of every learner save and load to the
// same bytes, predict the same, are the same bits whatever GOMAXPROCS,
// learn the hue task, and leave the first layer's filters those a
// one-layer fit draws.
func TestLocalSecondFits(t *testing.T) {
	p, _ := hueProblem(t, 100, 32)
	test, _ := hueProblem(t, 50, 33)
	for _, k := range Kinds() {
		c := secondConfig(k)
		var files [][]byte
		for _, procs := range []int{1, 3} {
			old := runtime.GOMAXPROCS(procs)
			m := fitT(t, c, p)
			runtime.GOMAXPROCS(old)
			file, back := roundTrip(t, m)
			files = append(files, file)
			if file[8] != 3 {
				t.Fatalf("%v: version %d", k, file[8])
			}
			file2, _ := roundTrip(t, back)
			if !bytes.Equal(file, file2) {
				t.Fatalf("%v: a read two-layer model writes other bytes", k)
			}
			y, err := m.Predict(test.X)
			if err != nil {
				t.Fatal(err)
			}
			yb, err := back.Predict(test.X)
			if err != nil || !slices.Equal(y, yb) {
				t.Fatalf("%v: predictions of the read model differ (%v)", k, err)
			}
			if acc, _ := m.Accuracy(test.X, ArgMax(test.T, test.M)); acc < 0.8 {
				t.Errorf("%v: test accuracy %.2f on the hue task", k, acc)
			}
			if m.Nodes() != m.Local.Outputs() {
				t.Fatalf("%v: %d nodes, %d pooled outputs", k, m.Nodes(), m.Local.Outputs())
			}
			info, err := ReadInfo(bytes.NewReader(file))
			if err != nil {
				t.Fatal(err)
			}
			if info.SecondFilters != m.Local.Second.Filters() || info.ParamCount() != m.ParamCount() {
				t.Errorf("%v: info says %d second-layer filters and %d parameters, the model %d and %d", k,
					info.SecondFilters, info.ParamCount(), m.Local.Second.Filters(), m.ParamCount())
			}
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("%v: two-layer fit differs between GOMAXPROCS 1 and 3", k)
		}
	}
	// The first layer is the bank a one-layer random fit draws.
	c := secondConfig(RVFL2D)
	one := c
	one.Local = c.Local.Clone()
	one.Local.Second = nil
	m1, m2 := fitT(t, one, p), fitT(t, c, p)
	if !slices.Equal(m1.Local.Banks[0].Params, m2.Local.Banks[0].Params) || !slices.Equal(m1.Local.Banks[0].Bias, m2.Local.Banks[0].Bias) {
		t.Error("the first layer's filters differ from a one-layer fit's")
	}
}

// TestLocalSecondStats: the statistics of a two-layer model's training
// images solve to its output weights, and statistics of another second
// layer do not merge.
func TestLocalSecondStats(t *testing.T) {
	p, _ := hueProblem(t, 60, 34)
	c := secondConfig(RVFL2D)
	m := fitT(t, c, p)
	st, err := m.Stats(p)
	if err != nil {
		t.Fatal(err)
	}
	back, err := st.Solve(c.Ridge)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range back.Beta {
		if math.Abs(v-m.Beta[i]) > 1e-6*(1+math.Abs(m.Beta[i])) {
			t.Fatalf("output weight %d: solved %v, fitted %v", i, v, m.Beta[i])
		}
	}
	c.Seed++
	other, err := fitT(t, c, p).Stats(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Merge(other); !errors.Is(err, ErrStats) {
		t.Errorf("merging statistics of other filters: %v", err)
	}
}

// TestLocalSecondBadInput: clear errors for second layers that cannot be
// fitted.
func TestLocalSecondBadInput(t *testing.T) {
	p, _ := hueProblem(t, 30, 35) // 12 x 10 images: pooled maps of 6 x 5
	cases := []struct {
		edit func(*Local)
		want string
	}{
		{func(l *Local) { l.Second.Size = 6 }, "larger than the first layer's pooled maps"},
		{func(l *Local) { l.Second.Stride = 0 }, "pooling stride 0"},
		{func(l *Local) { l.Second.Window = 0 }, "pooling window 0"},
		{func(l *Local) { l.Second.Window = 11 }, "larger than the first layer's map"},
		{func(l *Local) { l.Second.Filters = 0 }, "filters = 0"},
		{func(l *Local) { l.Second.MidPooling = PoolAvgMax }, "want max or avg"},
		{func(l *Local) { l.Sizes = []int{3, 5} }, "want one"},
		{func(l *Local) { l.Pool = 6 }, "pool grid"},
	}
	for _, c := range cases {
		cfg := secondConfig(RVFL2D)
		c.edit(cfg.Local)
		m, err := cfg.Fit(context.Background(), p, nil)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) || m != nil {
			t.Errorf("error %v, want one saying %q", err, c.want)
		}
	}
	// Augmented and streamed two-layer fits are built (TestLocal2Augment,
	// TestLocal2Stream); a supervised second layer is not streamed.
	cfg := secondConfig(RVFL2D)
	cfg.Augment = &Augment{Flip: true}
	if err := cfg.Validate(); err != nil {
		t.Errorf("augmented two-layer fit: %v", err)
	}
	if err := secondConfig(RVFL2D).StreamFits(); err != nil {
		t.Errorf("streamed two-layer fit: %v", err)
	}
	if err := secondConfig(SCN2D).StreamFits(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "residual") {
		t.Errorf("streamed supervised two-layer fit: %v", err)
	}
}

// TestLocalSecondFileChecks: a two-layer file refuses a header its payload
// cannot hold, and a one-layer model's file has no trace of the field.
func TestLocalSecondFileChecks(t *testing.T) {
	p, _ := hueProblem(t, 40, 36)
	file, _ := roundTrip(t, fitT(t, secondConfig(SCN2D), p))
	for cut := 1; cut < 200; cut += 37 {
		if _, err := Read(bytes.NewReader(file[:len(file)-cut])); !errors.Is(err, ErrFormat) {
			t.Errorf("file cut by %d bytes: %v", cut, err)
		}
	}
	for _, swap := range [][2]string{{`"held":`, `"held":9`}, {`"held":`, `"held":-`}, {`"size":3,"window":2`, `"size":7,"window":2`},
		{`"mid_pooling":"max"`, `"mid_pooling":"avg+max"`}, {`"window":2`, `"window":0`}, {`"second":{`, `"sizes":[3,5],"second":{`}} {
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
	one, _ := roundTrip(t, fitT(t, localConfig(RVFL2D), p))
	if bytes.Contains(one, []byte(`"second"`)) {
		t.Error("a one-layer model's header names a second layer")
	}
}

// FuzzReadLocalSecond: whatever two-layer model file Read accepts,
// ReadInfo agrees with, writes back to the same bytes and predicts.
func FuzzReadLocalSecond(f *testing.F) {
	p, grey := hueProblem(f, 30, 37)
	for i, k := range Kinds() {
		c := secondConfig(k)
		q := p
		if i%2 == 1 {
			q = grey
			c.Local.Second.Concat = false
			c.Local.Second.MidPooling = PoolAvg
		}
		m, err := c.Fit(context.Background(), q, nil)
		if err != nil {
			f.Fatal(err)
		}
		addModelSeeds(f, m)
	}
	fuzzModelFile(f)
}

// TestLocalSecondResidual: a supervised second layer after a kept first
// layer judges its filters against the residual of the first layer's
// outputs (the ridge solution of the columns so far), not the targets.
func TestLocalSecondResidual(t *testing.T) {
	p, _ := hueProblem(t, 60, 38)
	var first []float64
	calls := 0
	localnet.AcceptHook = func(_ []float32, _, _ int, e []float64, _ int, _ float64) {
		if calls == 0 {
			first = append([]float64(nil), e...)
		}
		calls++
	}
	defer func() { localnet.AcceptHook = nil }()
	fitT(t, secondConfig(SCN2D), p)
	if calls == 0 {
		t.Fatal("no second-layer filter accepted")
	}
	var ee, tt float64
	for i, v := range first {
		ee += v * v
		tt += p.T[i] * p.T[i]
	}
	if !(ee < 0.9*tt) {
		t.Errorf("the first second-layer filter was judged on a residual of squared norm %v, the targets' is %v", ee, tt)
	}
}

// TestLocalSecondEmpty: a supervised fit whose first layer meets the
// tolerance, or after which no second-layer filter is admissible, keeps
// an empty second layer; the model saves, loads and predicts with the
// first layer's outputs alone.
func TestLocalSecondEmpty(t *testing.T) {
	p, _ := hueProblem(t, 12, 39)
	for _, c := range []struct {
		tol  float64
		stop StopReason
	}{{0.55, ReachedTolerance}, {0.05, NoAdmissible}} {
		cfg := secondConfig(SCN2D)
		cfg.Tolerance = c.tol
		m := fitT(t, cfg, p)
		if m.Summary.Stop != c.stop || m.Local.Second == nil || m.Local.Second.Filters() != 0 {
			t.Fatalf("tolerance %v: stop %v, second layer %+v (RMSE %v)", c.tol, m.Summary.Stop, m.Local.Second, m.Summary.TrainRMSE)
		}
		file, back := roundTrip(t, m)
		if !bytes.Contains(file, []byte(`"held":0`)) {
			t.Error("the header does not say the second layer holds no filter")
		}
		y, err := m.Predict(p.X)
		if err != nil {
			t.Fatal(err)
		}
		yb, err := back.Predict(p.X)
		if err != nil || !slices.Equal(y, yb) {
			t.Fatalf("predictions of the read model differ (%v)", err)
		}
	}
}
