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

	"github.com/scn2d/scn/internal/augment"
	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
	"gonum.org/v1/gonum/mat"
)

// augmentedReference returns the ridge least-squares output weights of the
// model's pooled outputs on the images idx of p and their copies (made
// whole by internal/augment's Image, which its own test checks against a
// scatter reference, from the fit's moves), solved by gonum's Cholesky.
func augmentedReference(t *testing.T, m *Model, p Problem, idx []int, alpha float64) []float64 {
	t.Helper()
	a := m.Config.Augment
	x := p.X
	d, n := x.Dim(), x.Len()
	mv := a.moves(n, m.Config.Seed)
	e := a.Extra()
	var pix []float32
	var tt []float64
	for _, i := range idx {
		img := x.Pix[i*d : (i+1)*d]
		pix = append(pix, img...)
		tt = append(tt, p.T[i*p.M:(i+1)*p.M]...)
		for c := 0; c < e; c++ {
			cp := make([]float32, d)
			augment.Image(cp, img, x.Rows, x.Cols, x.Chans(), mv[i*e+c])
			pix = append(pix, cp...)
			tt = append(tt, p.T[i*p.M:(i+1)*p.M]...)
		}
	}
	big := Images{Rows: x.Rows, Cols: x.Cols, Channels: x.Channels, Pix: pix}
	rows, l := big.Len(), m.Nodes()
	h32 := make([]float32, rows*l)
	if err := m.localFeatures(m.localLayers(), pix, rows, h32); err != nil {
		t.Fatal(err)
	}
	h := mat.NewDense(rows, l, nil)
	for i := 0; i < rows; i++ {
		for j := 0; j < l; j++ {
			v := h32[i*l+j]
			if m.Config.BF16Gram {
				v = linalg.BF16Float(linalg.RoundBF16(v)) // the values the engine's products read
			}
			h.Set(i, j, float64(v))
		}
	}
	g := mat.NewSymDense(l, nil)
	g.SymOuterK(1, h.T())
	for i := 0; i < l; i++ {
		g.SetSym(i, i, g.At(i, i)+alpha)
	}
	ht := mat.NewDense(l, p.M, nil)
	ht.Mul(h.T(), mat.NewDense(rows, p.M, tt))
	return solveRef(t, g, ht)
}

func solveRef(t *testing.T, g *mat.SymDense, ht *mat.Dense) []float64 {
	t.Helper()
	var ch mat.Cholesky
	if !ch.Factorize(g) {
		t.Fatal("reference: not positive definite")
	}
	var beta mat.Dense
	if err := ch.SolveTo(&beta, ht); err != nil {
		t.Fatal(err)
	}
	return beta.RawMatrix().Data
}

func augRelDiff(a, b []float64) float64 {
	var num, den float64
	for i := range a {
		num += (a[i] - b[i]) * (a[i] - b[i])
		den += b[i] * b[i]
	}
	return math.Sqrt(num / den)
}

// TestAugmentEqualsExplicit: an augmented fit's output weights are the
// ridge least squares on the explicitly augmented set (originals plus the
// test's own copies), grey and colour, random and supervised filters,
// several row shards, float64 Gram products.
func TestAugmentEqualsExplicit(t *testing.T) {
	old := lsq.ShardRows
	lsq.ShardRows = 16
	defer func() { lsq.ShardRows = old }()
	colour, grey := hueProblem(t, 45, 31)
	for _, tc := range []struct {
		k   Kind
		p   Problem
		aug Augment
	}{
		{RVFL2D, colour, Augment{Flip: true, Shift: 2, Copies: 2}},
		{RVFL2D, grey, Augment{Shift: 3, Copies: 1}},
		{RVFL, colour, Augment{Flip: true}},
		{SCN2D, grey, Augment{Flip: true, Shift: 1, Copies: 1}},
	} {
		c := localConfig(tc.k)
		c.Ridge = 0.5
		c.Augment = &tc.aug
		m := fitT(t, c, tc.p)
		if m.Config.Augment == nil || *m.Config.Augment != tc.aug {
			t.Fatalf("%v: model's augmentation %+v", tc.k, m.Config.Augment)
		}
		idx := make([]int, tc.p.X.Len())
		for i := range idx {
			idx[i] = i
		}
		want := augmentedReference(t, m, tc.p, idx, c.Ridge)
		if d := augRelDiff(m.Beta, want); !(d <= 1e-9) {
			t.Errorf("%v %s: output weights differ from the explicit least squares by %.3g (relative)", tc.k, tc.aug.String(), d)
		}
		// The filters are those of the fit without augmentation.
		c.Augment = nil
		plain := fitT(t, c, tc.p)
		for b := range plain.Local.Banks {
			if !slices.Equal(plain.Local.Banks[b].Params, m.Local.Banks[b].Params) {
				t.Fatalf("%v: augmentation changed the filters", tc.k)
			}
		}
		if slices.Equal(plain.Beta, m.Beta) {
			t.Fatalf("%v: augmentation left the output weights as they were", tc.k)
		}
	}
}

// TestAugmentGramPrecision: with float32 and bfloat16 Gram products
// (the presets' on photos) the augmented sums round as the engine's own:
// the output weights are within 1e-4 of the explicit least squares (of
// the outputs rounded to bfloat16 with bfloat16 products, the values the
// products read), and the bits do not depend on GOMAXPROCS.
func TestAugmentGramPrecision(t *testing.T) {
	old := lsq.ShardRows
	lsq.ShardRows = 16
	defer func() { lsq.ShardRows = old }()
	p, _ := hueProblem(t, 40, 35)
	for _, tc := range []struct {
		f32, bf16 bool
		tol       float64
	}{{true, false, 1e-4}, {true, true, 1e-4}} {
		c := localConfig(RVFL2D)
		c.Ridge = 0.5
		c.Float32Gram, c.BF16Gram = tc.f32, tc.bf16
		c.Augment = &Augment{Flip: true, Shift: 2, Copies: 1}
		var files [][]byte
		var m *Model
		for _, procs := range []int{1, 3} {
			prev := runtime.GOMAXPROCS(procs)
			m = fitT(t, c, p)
			runtime.GOMAXPROCS(prev)
			file, _ := roundTrip(t, m)
			files = append(files, file)
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("f32 %v bf16 %v: bytes differ between GOMAXPROCS 1 and 3", tc.f32, tc.bf16)
		}
		idx := make([]int, p.X.Len())
		for i := range idx {
			idx[i] = i
		}
		d := augRelDiff(m.Beta, augmentedReference(t, m, p, idx, c.Ridge))
		if !(d <= tc.tol) {
			t.Errorf("f32 %v bf16 %v: output weights %.3g from the explicit least squares", tc.f32, tc.bf16, d)
		}
	}
}

// TestAugmentSelection: selection scores each ridge on the held-out
// images as they are, with the output weights of the other images and
// their copies only (checked against the explicit least squares), and
// refits on every image and copy.
func TestAugmentSelection(t *testing.T) {
	p, _ := hueProblem(t, 60, 32)
	c := localConfig(RVFL2D)
	c.Ridge = 1
	c.Augment = &Augment{Flip: true, Shift: 2, Copies: 1}
	s := Selection{Validation: 0.25, Ridges: []float64{0.1, 10}}
	m, err := c.Select(context.Background(), p, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	train, held, err := splitHoldout(p, 0.25, c.Seed)
	if err != nil {
		t.Fatal(err)
	}
	hx := Images{Rows: p.X.Rows, Cols: p.X.Cols, Channels: p.X.Channels}
	var ht []float64
	d := p.X.Dim()
	for _, i := range held {
		hx.Pix = append(hx.Pix, p.X.Pix[i*d:(i+1)*d]...)
		ht = append(ht, p.T[i*p.M:(i+1)*p.M]...)
	}
	for _, sc := range m.Selection.Curve {
		beta := augmentedReference(t, m, p, train, sc.Ridge)
		mm := *m
		mm.Beta = beta
		y, err := mm.Predict(hx)
		if err != nil {
			t.Fatal(err)
		}
		if r := RMSE(y, ht); math.Abs(r-sc.RMSE) > 1e-9*r {
			t.Errorf("ridge %v: held-out RMSE %v, explicit %v", sc.Ridge, sc.RMSE, r)
		}
	}
	all := make([]int, p.X.Len())
	for i := range all {
		all[i] = i
	}
	if d := augRelDiff(m.Beta, augmentedReference(t, m, p, all, m.Config.Ridge)); !(d <= 1e-9) {
		t.Errorf("refit differs from the explicit least squares by %.3g", d)
	}
}

// TestAugmentDeterministicSaveLoad: the same bytes whatever GOMAXPROCS,
// and a save/load round trip keeps the augmentation, the bytes and the
// predictions; a model without augmentation has no trace of it.
func TestAugmentDeterministicSaveLoad(t *testing.T) {
	p, _ := hueProblem(t, 50, 33)
	c := localConfig(RVFL2D)
	c.Augment = &Augment{Flip: true, Shift: 2, Copies: 2}
	var files [][]byte
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		m := fitT(t, c, p)
		runtime.GOMAXPROCS(old)
		file, back := roundTrip(t, m)
		files = append(files, file)
		if back.Config.Augment == nil || *back.Config.Augment != *c.Augment {
			t.Fatalf("read augmentation %+v", back.Config.Augment)
		}
		file2, _ := roundTrip(t, back)
		if !bytes.Equal(file, file2) {
			t.Fatal("a read model writes other bytes")
		}
		y, _ := m.Predict(p.X)
		yb, _ := back.Predict(p.X)
		if !slices.Equal(y, yb) {
			t.Fatal("predictions of the read model differ")
		}
		if !bytes.Contains(file, []byte(`"augment":{"flip":true,"shift":2,"copies":2}`)) {
			t.Fatal("the header does not record the augmentation")
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("augmented fit differs between GOMAXPROCS 1 and 3")
	}
	c.Augment = nil
	file, _ := roundTrip(t, fitT(t, c, p))
	if bytes.Contains(file, []byte("augment")) {
		t.Error("a model without augmentation mentions it")
	}
}

// TestAugmentRefusals: bad settings are clear errors wrapping ErrConfig
// (ErrFormat in a file), never a panic.
func TestAugmentRefusals(t *testing.T) {
	for _, s := range []string{"", "flip,", "bogus", "flip=1", "shift", "shift=x", "shift=-1", "shift=4,copies=0",
		"copies=2", "flip,flip", "shift=2,copies=65", "shift=0"} {
		if a, err := ParseAugment(s); !errors.Is(err, ErrConfig) {
			t.Errorf("ParseAugment(%q) = %+v, %v", s, a, err)
		}
	}
	for s, want := range map[string]Augment{"flip": {Flip: true}, "shift=4": {Shift: 4, Copies: DefaultAugmentCopies},
		"FLIP, shift=2,copies=3": {Flip: true, Shift: 2, Copies: 3}} {
		a, err := ParseAugment(s)
		if err != nil || *a != want {
			t.Errorf("ParseAugment(%q) = %+v, %v", s, a, err)
			continue
		}
		if b, err := ParseAugment(a.String()); err != nil || *b != *a {
			t.Errorf("%q does not read back", a.String())
		}
	}
	p, _ := hueProblem(t, 30, 34)
	// Global nodes.
	g := Fast(RVFL2D)
	g.Augment = &Augment{Flip: true}
	if _, err := g.Fit(context.Background(), p, nil); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "local") {
		t.Errorf("global nodes with augmentation: %v", err)
	}
	// A shift as large as the image's side (12 x 10).
	c := localConfig(RVFL2D)
	c.Augment = &Augment{Shift: 10, Copies: 1}
	if _, err := c.Fit(context.Background(), p, nil); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "side") {
		t.Errorf("shift 10 on 12 x 10 images: %v", err)
	}
	c.Augment = &Augment{Shift: 2}
	if err := c.Validate(); !errors.Is(err, ErrConfig) {
		t.Errorf("shift without copies: %v", err)
	}
	// A file whose header claims an impossible augmentation.
	c.Augment = &Augment{Shift: 2, Copies: 1}
	file, _ := roundTrip(t, fitT(t, c, p))
	bad := bytes.Replace(file, []byte(`"shift":2`), []byte(`"shift":0`), 1)
	fixCRC(bad)
	if _, err := Read(bytes.NewReader(bad)); !errors.Is(err, ErrFormat) {
		t.Errorf("copies without a shift in a file: %v", err)
	}
}

// TestAugmentMemory: the estimate adds the second engine's G and one
// shard's outputs, and does not grow with the copies beyond their draws
// (the copies' outputs are never held).
func TestAugmentMemory(t *testing.T) {
	c := localConfig(RVFL2D)
	n, l := 5000, int64(c.Local.Outputs())
	base := c.EstimateBytesC(n, 30, 30, 3, 8)
	c.Augment = &Augment{Flip: true, Shift: 4, Copies: 1}
	one := c.EstimateBytesC(n, 30, 30, 3, 8)
	c.Augment.Copies = 8
	eight := c.EstimateBytesC(n, 30, 30, 3, 8)
	if one-base < 8*l*l || one-base > 8*l*l+64*l*int64(lsq.ShardRows)+1<<20 {
		t.Errorf("augmentation adds %d bytes for L = %d", one-base, l)
	}
	if eight-one > 24*int64(n)*7+1024 {
		t.Errorf("7 more copies add %d bytes", eight-one)
	}
}

// FuzzParseAugment: any text is read or refused with ErrConfig, never a
// panic; what is read is valid and reads back from its String.
func FuzzParseAugment(f *testing.F) {
	for _, s := range []string{"flip", "shift=4", "flip,shift=2,copies=3", "copies=1", "shift=-1", "flip,,", "shift=99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAugment(s)
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("%q: %v does not wrap ErrConfig", s, err)
			}
			return
		}
		if a.validate() != nil || a.Extra() < 1 {
			t.Fatalf("%q read as invalid %+v", s, a)
		}
		b, err := ParseAugment(a.String())
		if err != nil || *b != *a {
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", s, a, a.String(), b, err)
		}
	})
}
