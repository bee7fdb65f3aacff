package local

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

func relu(z []float32, b float32) {
	for i, v := range z {
		z[i] = max(v+b, 0)
	}
}

func tanhAct(z []float32, b float32) {
	for i, v := range z {
		z[i] = float32(math.Tanh(float64(v + b)))
	}
}

func randVals(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// refFilterMaps returns filter f's activated maps of the image img under
// layer l by direct loops in float64, at every position: the map of z and,
// for a two-sided layer's second side, of -z.
func refFilterMaps(l *Layer, img []float32, f int) [2][]float64 {
	s, in := l.Spec, l.In
	h, w := s.MapSize(in)
	k, ch := s.Size, in.Chans
	act := func(z float64) float64 {
		v := []float32{float32(z)}
		l.Act(v, 0)
		return float64(v[0])
	}
	maps := [2][]float64{make([]float64, h*w), make([]float64, h*w)}
	for pr := 0; pr < h; pr++ {
		for pc := 0; pc < w; pc++ {
			var z float64
			for c := 0; c < ch; c++ {
				for a := 0; a < k; a++ {
					for b := 0; b < k; b++ {
						r, cc := pr*s.Stride-s.Pad+a, pc*s.Stride-s.Pad+b
						if r < 0 || r >= in.Rows || cc < 0 || cc >= in.Cols {
							continue
						}
						z += float64(l.W[f*ch*k*k+c*k*k+a*k+b]) * float64(img[c*in.Rows*in.Cols+r*in.Cols+cc])
					}
				}
			}
			z += float64(l.Bias[f])
			maps[0][pr*w+pc] = act(z)
			maps[1][pr*w+pc] = act(-z)
		}
	}
	return maps
}

// reference computes the pooled outputs by direct loops in float64: every
// position, every region, every filter.
func reference(l *Layer, x []float32, n int) []float64 {
	s, in := l.Spec, l.In
	h, w := s.MapSize(in)
	ch := in.Chans
	per := s.PerFilter()
	out := make([]float64, n*l.Outputs())
	for i := 0; i < n; i++ {
		img := x[i*ch*in.Rows*in.Cols:]
		for f := 0; f < l.Filters(); f++ {
			maps := refFilterMaps(l, img, f)
			p := s.Pool
			for side := 0; side < s.Sides(); side++ {
				for gi := 0; gi < p; gi++ {
					for gj := 0; gj < p; gj++ {
						// regions by their definition: floor(i h / p) to ceil((i+1) h / p)
						r0 := int(math.Floor(float64(gi*h) / float64(p)))
						r1 := int(math.Ceil(float64((gi+1)*h) / float64(p)))
						c0 := int(math.Floor(float64(gj*w) / float64(p)))
						c1 := int(math.Ceil(float64((gj+1)*w) / float64(p)))
						sum, mx := 0.0, math.Inf(-1)
						for r := r0; r < r1; r++ {
							for c := c0; c < c1; c++ {
								v := maps[side][r*w+c]
								sum += v
								mx = math.Max(mx, v)
							}
						}
						avg := sum / float64((r1-r0)*(c1-c0))
						base := i*l.Outputs() + f*per + side*s.Pooling.kinds()*p*p + gi*p + gj
						switch s.Pooling {
						case Avg:
							out[base] = avg
						case Max:
							out[base] = mx
						default:
							out[base] = avg
							out[base+p*p] = mx
						}
					}
				}
			}
		}
	}
	return out
}

type geometry struct {
	name string
	in   Shape
	spec Spec
}

var geometries = []geometry{
	{"grey odd", Shape{7, 9, 1}, Spec{Size: 3, Stride: 1, Pool: 2, Pooling: Avg}},
	{"grey stride pad max", Shape{11, 8, 1}, Spec{Size: 4, Stride: 2, Pad: 2, Pool: 3, Pooling: Max, TwoSided: true}},
	{"colour both", Shape{9, 10, 3}, Spec{Size: 5, Stride: 1, Pad: 2, Pool: 3, Pooling: AvgMax, TwoSided: true}},
	{"colour stride 3", Shape{13, 12, 3}, Spec{Size: 3, Stride: 3, Pad: 1, Pool: 2, Pooling: Avg}},
	{"whole image", Shape{6, 5, 2}, Spec{Size: 5, Stride: 1, Pool: 1, Pooling: Avg}},
	{"1x1", Shape{4, 4, 2}, Spec{Size: 1, Stride: 1, Pool: 4, Pooling: Max}},
}

// TestApplyMatchesReference checks the pooled outputs against direct loops
// over every position and region, grey and colour, odd sizes, strides,
// padding, every pooling, one- and two-sided.
func TestApplyMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, g := range geometries {
		for _, act := range []Activation{relu, tanhAct} {
			f, n := 5, 3
			l := &Layer{Spec: g.spec, In: g.in, W: randVals(rng, f*g.spec.Weights(g.in)), Bias: randVals(rng, f), Act: act}
			x := randVals(rng, n*g.in.Chans*g.in.Rows*g.in.Cols)
			out := make([]float32, n*l.Outputs())
			if err := l.Apply(x, n, out, l.Outputs(), 0); err != nil {
				t.Fatalf("%s: %v", g.name, err)
			}
			want := reference(l, x, n)
			for i, v := range out {
				if d := math.Abs(float64(v) - want[i]); d > 1e-4*(1+math.Abs(want[i])) {
					t.Fatalf("%s: output %d = %v, reference %v", g.name, i, v, want[i])
				}
			}
		}
	}
}

// TestFusedReLU checks that the one-pass ReLU pooling gives the bits of
// the activation followed by PoolMap.
func TestFusedReLU(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, g := range geometries {
		f, n := 3, 2
		l := &Layer{Spec: g.spec, In: g.in, W: randVals(rng, f*g.spec.Weights(g.in)), Bias: randVals(rng, f), Act: relu}
		x := randVals(rng, n*g.in.Chans*g.in.Rows*g.in.Cols)
		a := make([]float32, n*l.Outputs())
		b := make([]float32, n*l.Outputs())
		if err := l.Apply(x, n, a, l.Outputs(), 0); err != nil {
			t.Fatal(err)
		}
		l.ReLU = true
		if err := l.Apply(x, n, b, l.Outputs(), 0); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a, b) {
			t.Fatalf("%s: fused ReLU pooling differs from ReLU then PoolMap", g.name)
		}
	}
}

// TestSeparableMatchesFull checks the direct separable kernels against the
// product over patches of the same filters expanded to full weights.
func TestSeparableMatchesFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, g := range geometries {
		f, n, k := 4, 3, g.spec.Size
		s := &Separable{Spec: g.spec, In: g.in, U: randVals(rng, f*k), V: randVals(rng, f*k), Bias: randVals(rng, f), Act: relu}
		if g.in.Chans > 1 {
			s.C = randVals(rng, f*g.in.Chans)
		}
		x := randVals(rng, n*g.in.Chans*g.in.Rows*g.in.Cols)
		a := make([]float32, n*f*g.spec.PerFilter())
		b := make([]float32, len(a))
		if err := s.Apply(x, n, a, f*g.spec.PerFilter(), 0); err != nil {
			t.Fatal(err)
		}
		full := s.Full()
		if err := full.Apply(x, n, b, full.Outputs(), 0); err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if d := math.Abs(float64(a[i] - b[i])); d > 1e-4*(1+math.Abs(float64(b[i]))) {
				t.Fatalf("%s: output %d separable %v, full %v", g.name, i, a[i], b[i])
			}
		}
	}
}

// TestApplyDeterministic checks the same bits whatever GOMAXPROCS, and
// that an image's outputs do not depend on the other images of its call.
func TestApplyDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	g := geometries[2]
	f, n := 7, 40
	l := &Layer{Spec: g.spec, In: g.in, W: randVals(rng, f*g.spec.Weights(g.in)), Bias: randVals(rng, f), Act: relu}
	x := randVals(rng, n*g.in.Chans*g.in.Rows*g.in.Cols)
	run := func(procs int) []float32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		out := make([]float32, n*l.Outputs())
		if err := l.Apply(x, n, out, l.Outputs(), 0); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := run(1), run(4)
	if !slices.Equal(a, b) {
		t.Fatal("outputs differ between GOMAXPROCS 1 and 4")
	}
	d := g.in.Chans * g.in.Rows * g.in.Cols
	one := make([]float32, l.Outputs())
	if err := l.Apply(x[5*d:6*d], 1, one, l.Outputs(), 0); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one, a[5*l.Outputs():6*l.Outputs()]) {
		t.Fatal("image 5 alone differs from image 5 among 40")
	}
}

// TestValidate checks the clear errors on impossible geometries.
func TestValidate(t *testing.T) {
	in := Shape{8, 8, 3}
	for _, c := range []struct {
		spec Spec
		in   Shape
		want string
	}{
		{Spec{Size: 9, Stride: 1, Pool: 1}, in, "larger than the images"},
		{Spec{Size: 3, Stride: 0, Pool: 1}, in, "stride 0"},
		{Spec{Size: 3, Stride: 1, Pool: 7}, in, "pool grid 7 x 7 is larger than the map of 6 x 6"},
		{Spec{Size: 3, Stride: 1, Pool: 0}, in, "pool grid 0"},
		{Spec{Size: 0, Stride: 1, Pool: 1}, in, "filter size 0"},
		{Spec{Size: 3, Stride: 1, Pad: 3, Pool: 1}, in, "padding 3"},
		{Spec{Size: 3, Stride: 1, Pool: 1, Pooling: 7}, in, "unknown pooling"},
	} {
		err := c.spec.Validate(c.in)
		if !errors.Is(err, ErrSpec) || !contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.spec, err, c.want)
		}
	}
	if err := (Spec{Size: 9, Stride: 1, Pad: 1, Pool: 2}).Validate(in); err != nil {
		t.Errorf("a 9 x 9 filter on 8 x 8 images padded by 1: %v", err)
	}
	l := &Layer{Spec: Spec{Size: 3, Stride: 1, Pool: 2}, In: in, W: make([]float32, 5), Bias: make([]float32, 1), Act: relu}
	if err := l.Apply(make([]float32, 192), 1, make([]float32, 4), 4, 0); err == nil {
		t.Error("a layer with the wrong number of weights applied")
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestParsePooling(t *testing.T) {
	for _, p := range []Pooling{Avg, Max, AvgMax} {
		q, err := ParsePooling(p.String())
		if err != nil || q != p {
			t.Errorf("ParsePooling(%q) = %v, %v", p.String(), q, err)
		}
	}
	if _, err := ParsePooling("median"); err == nil {
		t.Error("ParsePooling(median) gave no error")
	}
}

// BenchmarkApply compares the product over patches (im2col, the project's
// scoring kernel) with the direct separable kernels on natural-images'
// shape: 3 x 30 x 30, 5 x 5 filters with padding 2, 3 x 3 average pooling,
// two-sided, 64 filters, 64 images.
func BenchmarkApply(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	in := Shape{30, 30, 3}
	spec := Spec{Size: 5, Stride: 1, Pad: 2, Pool: 3, Pooling: Avg, TwoSided: true}
	f, n, k := 64, 64, 5
	s := &Separable{Spec: spec, In: in, U: randVals(rng, f*k), V: randVals(rng, f*k), C: randVals(rng, f*3), Bias: randVals(rng, f), Act: relu}
	x := randVals(rng, n*3*30*30)
	out := make([]float32, n*f*spec.PerFilter())
	full := s.Full()
	full.ReLU = true
	b.Run("im2col", func(b *testing.B) {
		for b.Loop() {
			if err := full.Apply(x, n, out, f*spec.PerFilter(), 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("separable", func(b *testing.B) {
		for b.Loop() {
			if err := s.Apply(x, n, out, f*spec.PerFilter(), 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
