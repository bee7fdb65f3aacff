package localnet

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/cfgerr"
	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/modelfile"
	"github.com/scn2d/scn/internal/node"
)

// images returns n random images of rows x cols x ch with one-hot targets
// of m classes (the class shifts the first plane's mean).
func images(n, rows, cols, ch, m int, seed uint64) (x []float32, t []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	d := rows * cols * ch
	x, t = make([]float32, n*d), make([]float64, n*m)
	for i := 0; i < n; i++ {
		c := i % m
		t[i*m+c] = 1
		for j := 0; j < d; j++ {
			x[i*d+j] = float32(rng.NormFloat64())
			if j < rows*cols {
				x[i*d+j] += float32(c)
			}
		}
	}
	return x, t
}

// fitOf fits geometry g to the images with opt and returns the fit.
func fitOf(t *testing.T, opt Options, g *Geometry, x []float32, tt []float64, n, rows, cols, ch, m int) *Fit {
	t.Helper()
	if err := g.ForImages(rows, cols, ch); err != nil {
		t.Fatal(err)
	}
	mean, sd := PlaneMoments(x, n, ch, rows*cols)
	f := NewFit(opt, g.Clone(), x, n, rows, cols, ch, m, mean, sd, rand.New(rand.NewPCG(opt.Seed, 0x2d5c4e)))
	f.Start(lsq.NewGram(tt, n, m, opt.Ridge, false, g.Outputs()))
	if _, err := f.Grow(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return f
}

func randomOpts(matrix bool) Options {
	return Options{Maps: Maps{Matrix: matrix, Act: node.ReLU}, Seed: 3, Ridge: 1, Scales: []float64{1}, Ratios: []float64{0.9}, Candidates: 4}
}

// TestGeometryValidate: every impossible setting is refused with an error
// wrapping the configuration error and naming it; the defaults pass.
func TestGeometryValidate(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatal(err)
	}
	if g := Default(); g.Outputs() != 256*3*3*2 || g.PerFilter() != 18 || g.PadFor(5) != 2 {
		t.Fatalf("default: %d outputs, %d per filter", g.Outputs(), g.PerFilter())
	}
	two := Default()
	two.Second = DefaultSecond(8)
	if err := two.ForImages(28, 28, 1); err != nil {
		t.Fatal(err)
	}
	if p := PlanesOf(two, 28, 28); p.Chans != 512 || p.Rows != 14 || p.Cols != 14 {
		t.Fatalf("planes %+v", p)
	}
	cases := []struct {
		edit func(g *Geometry)
		want string
	}{
		{func(g *Geometry) { g.Sizes = nil }, "no filter size"},
		{func(g *Geometry) { g.Filters = 0 }, "filters = 0"},
		{func(g *Geometry) { g.Stride = 0 }, "stride 0"},
		{func(g *Geometry) { g.Pad = -2 }, "padding -2"},
		{func(g *Geometry) { g.Pool = 0 }, "pool grid 0"},
		{func(g *Geometry) { g.Pooling = 7 }, "unknown pooling"},
		{func(g *Geometry) { g.Whiten = true }, "whitening eps"},
		{func(g *Geometry) { g.WhitenEps = 1 }, "without whitening"},
		{func(g *Geometry) { g.Sizes = []int{5, 5} }, "given twice"},
		{func(g *Geometry) { g.Pad = 5 }, "not less than the filter size"},
		{func(g *Geometry) { g.Filters = MaxFilters }, "exceed"},
		{func(g *Geometry) { g.Second = DefaultSecond(0) }, "second layer of local nodes: filters = 0"},
		{func(g *Geometry) { g.Second = DefaultSecond(4); g.Sizes = []int{3, 5} }, "want one"},
		{func(g *Geometry) {
			g.Second = &Second{Filters: 4, Size: 3, Window: 2, Stride: 2, MidPooling: local.AvgMax}
		}, "between the layers"},
	}
	for _, c := range cases {
		g := Default()
		c.edit(g)
		err := g.Validate()
		if !errors.Is(err, cfgerr.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", g, err, c.want)
		}
	}
	// Too large for the images.
	g := Default()
	g.Second = DefaultSecond(4)
	g.Second.Size = 9
	if err := g.ForImages(12, 12, 1); !errors.Is(err, cfgerr.ErrConfig) || !strings.Contains(err.Error(), "larger than the first layer's pooled maps") {
		t.Fatal(err)
	}
	g = Default()
	g.Pool = 40
	if err := g.ForImages(12, 12, 1); !errors.Is(err, cfgerr.ErrConfig) {
		t.Fatal(err)
	}
	// A clone shares nothing.
	a := two.Clone()
	a.Sizes[0], a.Second.Filters = 3, 99
	if two.Sizes[0] != 5 || two.Second.Filters != 8 || !SameSecond(two.Second, DefaultSecond(8)) || SameSecond(a.Second, two.Second) {
		t.Fatal("Clone shares its slices or second layer")
	}
}

// TestFitLayerFeatures: a fitted layer checks, its features are the fit's
// standardised columns (the same bits), its prediction is the features
// times beta, and a fit is the same bits at GOMAXPROCS 1 and 2.
func TestFitLayerFeatures(t *testing.T) {
	const n, rows, cols, ch, m = 40, 9, 8, 2, 3
	x, tt := images(n, rows, cols, ch, m, 1)
	for _, matrix := range []bool{false, true} {
		g := &Geometry{Sizes: []int{3, 5}, Filters: 4, Stride: 1, Pad: PadSame, Pool: 2, Pooling: local.AvgMax, TwoSided: true, Standardize: true}
		var layers []*Layer
		for _, procs := range []int{1, 2} {
			old := runtime.GOMAXPROCS(procs)
			f := fitOf(t, randomOpts(matrix), g, x, tt, n, rows, cols, ch, m)
			runtime.GOMAXPROCS(old)
			layers = append(layers, f.Layer())
			nt := Net{Maps: f.opt.Maps, Layer: f.Layer(), Rows: rows, Cols: cols, Chans: ch}
			if err := nt.Check(); err != nil {
				t.Fatal(err)
			}
			l := nt.Layer.Outputs()
			if l != g.Outputs() || f.Eng.L != l || f.Tried != 8 || len(f.Trace) != 8 {
				t.Fatalf("%d outputs, engine %d, tried %d, %d steps", l, f.Eng.L, f.Tried, len(f.Trace))
			}
			h := make([]float32, n*l)
			if err := nt.Features(nt.Layers(), x, n, h); err != nil {
				t.Fatal(err)
			}
			// The engine holds the same standardised columns.
			col := 0
			for _, sh := range f.Eng.Shards {
				r := sh.Hi - sh.Lo
				for j := 0; j < l; j++ {
					for i := 0; i < r; i++ {
						if sh.H[j*r+i] != h[(sh.Lo+i)*l+j] {
							t.Fatalf("column %d image %d: engine %v, features %v", j, sh.Lo+i, sh.H[j*r+i], h[(sh.Lo+i)*l+j])
						}
					}
				}
				col += r
			}
			beta, err := f.Solver().Solve(l, 1)
			if err != nil {
				t.Fatal(err)
			}
			y, err := nt.Predict(x, n, beta, m)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				for q := 0; q < m; q++ {
					var s float64
					for j := 0; j < l; j++ {
						s += float64(h[i*l+j]) * beta[j*m+q]
					}
					if math.Abs(s-y[i*m+q]) > 1e-9*(1+math.Abs(s)) {
						t.Fatalf("prediction %d,%d: %v, want %v", i, q, y[i*m+q], s)
					}
				}
			}
		}
		if !reflect.DeepEqual(layers[0], layers[1]) {
			t.Fatal("the fit differs between GOMAXPROCS 1 and 2")
		}
	}
}

// TestStreamMatchesMemory: a streamed fit over row shards draws the
// filters the fit in memory draws, with the same pooled outputs' means,
// scales to rounding, and output weights to rounding.
func TestStreamMatchesMemory(t *testing.T) {
	const n, rows, cols, ch, m = 50, 8, 8, 1, 2
	x, tt := images(n, rows, cols, ch, m, 2)
	d := rows * cols * ch
	for _, second := range []bool{false, true} {
		g := &Geometry{Sizes: []int{3}, Filters: 6, Stride: 1, Pad: PadSame, Pool: 2, Pooling: local.Avg, TwoSided: true, Standardize: true}
		if second {
			g.Second = &Second{Filters: 5, Size: 3, Window: 2, Stride: 2, MidPooling: local.Max, Concat: true}
		}
		mem := fitOf(t, randomOpts(true), g, x, tt, n, rows, cols, ch, m)
		beta, err := mem.Solver().Solve(mem.Eng.L, 1)
		if err != nil {
			t.Fatal(err)
		}
		mean, sd := PlaneMoments(x, n, ch, rows*cols)
		st := NewFit(randomOpts(true), g.Clone(), nil, n, rows, cols, ch, m, mean, sd, rand.New(rand.NewPCG(3, 0x2d5c4e)))
		pass := func(fn func(x []float32, r int, tc []float64) error) error {
			for lo := 0; lo < n; lo += 17 {
				r := min(17, n-lo)
				tc := make([]float64, m*r)
				for i := 0; i < r; i++ {
					for q := 0; q < m; q++ {
						tc[q*r+i] = tt[(lo+i)*m+q]
					}
				}
				if err := fn(x[lo*d:(lo+r)*d], r, tc); err != nil {
					return err
				}
			}
			return nil
		}
		tts := make([]float64, m)
		for i, v := range tt {
			tts[i%m] += v * v
		}
		res, err := st.Stream(pass, tts, nil, false, false)
		if err != nil {
			t.Fatal(err)
		}
		ml, sl := mem.Layer(), res.Layer
		if !reflect.DeepEqual(ml.Banks, sl.Banks) || !reflect.DeepEqual(ml.Second, sl.Second) || !slices.Equal(ml.Mean, sl.Mean) {
			t.Fatalf("second %v: the streamed filters or means differ from the fit in memory's", second)
		}
		for j := range ml.Scale {
			if math.Abs(float64(ml.Scale[j]-sl.Scale[j])) > 1e-5*float64(ml.Scale[j]) {
				t.Fatalf("scale %d: %v streamed, %v in memory", j, sl.Scale[j], ml.Scale[j])
			}
		}
		for i := range beta {
			if math.Abs(beta[i]-res.Beta[i]) > 1e-6*(1+math.Abs(beta[i])) {
				t.Fatalf("second %v: beta %d: %v streamed, %v in memory", second, i, res.Beta[i], beta[i])
			}
		}
		if !reflect.DeepEqual(st.Trace, mem.Trace) {
			t.Fatal("the streamed trace differs")
		}
	}
}

// TestFormatRoundTrip: a layer's header field and payload read back as
// the layer; bad fields are refused with the format's error.
func TestFormatRoundTrip(t *testing.T) {
	const n, rows, cols, ch, m = 30, 9, 9, 3, 2
	x, tt := images(n, rows, cols, ch, m, 3)
	g := &Geometry{Sizes: []int{3}, Filters: 3, Stride: 2, Pad: 1, Pool: 2, Pooling: local.Max, TwoSided: true, Standardize: true, Whiten: true, WhitenEps: 0.1,
		Second: &Second{Filters: 2, Size: 2, Window: 2, Stride: 1, MidPooling: local.Avg}}
	for _, matrix := range []bool{false, true} {
		f := fitOf(t, randomOpts(matrix), g, x, tt, n, rows, cols, ch, m)
		ll := f.Layer()
		beta, err := f.Solver().Solve(ll.Outputs(), 1)
		if err != nil {
			t.Fatal(err)
		}
		field := FileField(ll)
		js, err := json.Marshal(field)
		if err != nil {
			t.Fatal(err)
		}
		var back modelfile.Local
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatal(err)
		}
		geo, err := GeometryOf(&back, rows, cols, ch)
		if err != nil {
			t.Fatal(err)
		}
		read, err := LayerOf(&back, geo, ll.Outputs())
		if err != nil {
			t.Fatal(err)
		}
		nt := Net{Maps: f.opt.Maps, Layer: ll, Rows: rows, Cols: cols, Chans: ch}
		payload := AppendPayload(ll, []byte("head"), beta)
		if len(payload) != 4+nt.Payload(m) {
			t.Fatalf("payload of %d bytes, Payload says %d", len(payload)-4, nt.Payload(m))
		}
		rb := Net{Maps: f.opt.Maps, Layer: read, Rows: rows, Cols: cols, Chans: ch}
		gotBeta := rb.DecodePayload(payload, m)
		if !reflect.DeepEqual(read, ll) || !slices.Equal(gotBeta, beta) {
			t.Fatalf("matrix %v: the layer read back differs", matrix)
		}
		if err := rb.Check(); err != nil {
			t.Fatal(err)
		}
		if _, err := LayerOf(&back, geo, ll.Outputs()+1); !errors.Is(err, modelfile.ErrFormat) {
			t.Fatalf("wrong node count: %v", err)
		}
	}
	bad := []func(f *modelfile.Local){
		func(f *modelfile.Local) { f.Pooling = "median" },
		func(f *modelfile.Local) { f.Banks = append(f.Banks, 1) },
		func(f *modelfile.Local) { f.Pool = 40 },
		func(f *modelfile.Local) {
			f.Second = &modelfile.Second{Filters: 1, Size: 1, Window: 1, Stride: 1, MidPooling: "?"}
		},
	}
	for i, edit := range bad {
		f := FileField(&Layer{Geometry: *Default(), Banks: []Bank{{Size: 5, Bias: make([]float32, 2)}}})
		edit(f)
		if _, err := GeometryOf(f, 12, 12, 1); !errors.Is(err, modelfile.ErrFormat) {
			t.Errorf("case %d: %v", i, err)
		}
	}
	f := FileField(&Layer{Geometry: *Default(), Banks: []Bank{{Size: 5, Bias: make([]float32, 2)}}})
	f.Banks[0] = 300
	if geo, err := GeometryOf(f, 12, 12, 1); err != nil {
		t.Fatal(err)
	} else if _, err := LayerOf(f, geo, 300*18); !errors.Is(err, modelfile.ErrFormat) {
		t.Fatalf("a bank of more filters than asked: %v", err)
	}
}

// TestCheckRefuses: Check refuses banks that disagree with the geometry
// or hold non-finite numbers, never panicking.
func TestCheckRefuses(t *testing.T) {
	const n, rows, cols, ch, m = 20, 8, 8, 1, 2
	x, tt := images(n, rows, cols, ch, m, 4)
	g := &Geometry{Sizes: []int{3}, Filters: 2, Stride: 1, Pad: PadSame, Pool: 2, Pooling: local.Avg, Standardize: true}
	f := fitOf(t, randomOpts(true), g, x, tt, n, rows, cols, ch, m)
	edits := map[string]func(ll *Layer){
		"banks of local nodes":    func(ll *Layer) { ll.Banks = nil },
		"the geometry says":       func(ll *Layer) { ll.Banks[0].Size = 5 },
		"parameters for":          func(ll *Layer) { ll.Banks[0].Params = ll.Banks[0].Params[1:] },
		"non-finite":              func(ll *Layer) { ll.Banks[0].Params[0] = float32(math.NaN()) },
		"whitening matrix":        func(ll *Layer) { ll.Banks[0].Whiten = []float32{1} },
		"standardisation of":      func(ll *Layer) { ll.Scale[0] = 0 },
		"standardisation present": func(ll *Layer) { ll.Mean, ll.Scale = nil, nil },
		"without its geometry":    func(ll *Layer) { ll.Second = &Bank{Size: 3} },
	}
	for want, edit := range edits {
		ll := f.Layer()
		cp := *ll
		cp.Banks = []Bank{ll.Banks[0]}
		cp.Banks[0].Params = slices.Clone(ll.Banks[0].Params)
		cp.Mean, cp.Scale = slices.Clone(ll.Mean), slices.Clone(ll.Scale)
		edit(&cp)
		err := Net{Maps: Maps{Matrix: true, Act: node.ReLU}, Layer: &cp, Rows: rows, Cols: cols, Chans: ch}.Check()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v", want, err)
		}
	}
}

// TestRidgeDualPrimal: the dual and the primal ridge choice score the
// same terms alike, choose the same term and give the same weights to
// rounding.
func TestRidgeDualPrimal(t *testing.T) {
	const n, rows, cols, ch, m = 60, 8, 8, 1, 3
	x, tt := images(n, rows, cols, ch, m, 5)
	g := &Geometry{Sizes: []int{3}, Filters: 4, Stride: 1, Pad: PadSame, Pool: 2, Pooling: local.Avg, TwoSided: true, Standardize: true}
	var held, train []int
	for i := 0; i < n; i++ {
		if i%5 == 0 {
			held = append(held, i)
		} else {
			train = append(train, i)
		}
	}
	ridges := []float64{1, 10, 0.1}
	fd := fitOf(t, randomOpts(false), g, x, tt, n, rows, cols, ch, m)
	bd, rd, cd, kd, err := DualRidge(context.Background(), fd.Solver(), tt, m, train, held, ridges, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, byCols := range []bool{false, true} {
		fp := fitOf(t, randomOpts(false), g, x, tt, n, rows, cols, ch, m)
		bp, rp, cp, kp, err := PrimalRidgeOf(context.Background(), fp.Solver(), tt, m, held, ridges, true, nil, byCols)
		if err != nil {
			t.Fatal(err)
		}
		if kd != kp || len(cd) != len(ridges) || len(cp) != len(ridges) || math.Abs(rd-rp) > 1e-8 {
			t.Fatalf("dual chose %d (RMSE %v), primal %d (%v)", kd, rd, kp, rp)
		}
		for i := range cd {
			if cd[i].Accuracy != cp[i].Accuracy || math.Abs(cd[i].RMSE-cp[i].RMSE) > 1e-8 {
				t.Fatalf("term %d: dual %+v, primal %+v", i, cd[i], cp[i])
			}
		}
		for i := range bd {
			if math.Abs(bd[i]-bp[i]) > 1e-7*(1+math.Abs(bd[i])) {
				t.Fatalf("beta %d: dual %v, primal %v", i, bd[i], bp[i])
			}
		}
	}
	// more stops the grid after the first term.
	_, _, c1, _, err := DualRidge(context.Background(), fd.Solver(), tt, m, train, held, ridges, true, func(int, float64, float64) bool { return false })
	if err != nil || len(c1) != 1 {
		t.Fatalf("%d terms scored, %v", len(c1), err)
	}
	if _, _, _, _, err := DualRidge(context.Background(), fd.Solver(), tt, m, train, nil, ridges, true, nil); err == nil {
		t.Fatal("no held-out image: no error")
	}
	if ChoiceWork(n, len(held), 10, m, 3) != min(RidgeWork(n, len(held), 10, m, 3), PrimalWork(len(held), 10, m, 3)) {
		t.Fatal("ChoiceWork is not the cheaper way's")
	}
}

// TestWhitenGather: the streamed gathering of the whitening's samples
// gives the whitening in memory, bit for bit, drawn or whole.
func TestWhitenGather(t *testing.T) {
	const n, rows, cols, ch = 30, 10, 10, 2
	x, _ := images(n, rows, cols, ch, 1, 6)
	g := &Geometry{Sizes: []int{3, 5}, Filters: 1, Stride: 1, Pad: PadSame, Pool: 1, Whiten: true, WhitenEps: 0.1}
	mean, sd := PlaneMoments(x, n, ch, rows*cols)
	for _, samples := range []int{WhitenSamples, 500} {
		old := WhitenSamples
		WhitenSamples = samples
		ga, err := NewGather(n, rows, cols, ch, g, mean, sd, 7)
		if err != nil {
			t.Fatal(err)
		}
		d := rows * cols * ch
		for lo := 0; lo < n; lo += 7 {
			r := min(7, n-lo)
			ga.Add(x[lo*d:(lo+r)*d], r)
		}
		ws, err := ga.Whitenings()
		if err != nil {
			t.Fatal(err)
		}
		for b, k := range g.Sizes {
			pw, err := WhitenPatches(x, n, rows, cols, ch, g, k, mean, sd, 7)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(pw, ws[b]) {
				t.Fatalf("size %d, %d samples: the gathered whitening differs", k, samples)
			}
		}
		WhitenSamples = old
	}
	if _, err := NewSample(1, 3, 3, 3, g, 3, mean, sd, 1); !errors.Is(err, cfgerr.ErrConfig) {
		t.Fatalf("too few patches: %v", err)
	}
}
