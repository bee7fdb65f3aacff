package local

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// refMaps computes the pooled first-layer maps of a stack by direct loops
// in float64: every position of every filter, activated, then every
// window by its definition.
func refMaps(s *Stack, x []float32, n int) []float64 {
	l := s.First
	sp, in := l.Spec, l.In
	_, w := sp.MapSize(in)
	ch := in.Chans
	p := s.Planes()
	np := p.Chans * p.Rows * p.Cols
	out := make([]float64, n*np)
	for i := 0; i < n; i++ {
		img := x[i*ch*in.Rows*in.Cols:]
		for f := 0; f < l.Filters(); f++ {
			maps := refFilterMaps(l, img, f)
			for side := 0; side < sp.Sides(); side++ {
				plane := out[i*np+(f*sp.Sides()+side)*p.Rows*p.Cols:]
				for r := 0; r < p.Rows; r++ {
					for c := 0; c < p.Cols; c++ {
						sum, mx := 0.0, math.Inf(-1)
						for a := 0; a < s.Mid.Window; a++ {
							for b := 0; b < s.Mid.Window; b++ {
								v := maps[side][(r*s.Mid.Stride+a)*w+c*s.Mid.Stride+b]
								sum += v
								mx = math.Max(mx, v)
							}
						}
						if s.Mid.Pooling == Max {
							plane[r*p.Cols+c] = mx
						} else {
							plane[r*p.Cols+c] = sum / float64(s.Mid.Window*s.Mid.Window)
						}
					}
				}
			}
		}
	}
	return out
}

type stackGeometry struct {
	name   string
	in     Shape
	first  Spec
	mid    Mid
	second Spec
}

var stackGeometries = []stackGeometry{
	{"grey odd, max 2", Shape{9, 11, 1}, Spec{Size: 3, Stride: 1, Pad: 1, Pool: 1}, Mid{2, 2, Max},
		Spec{Size: 3, Stride: 1, Pad: 1, Pool: 2, Pooling: Avg, TwoSided: true}},
	{"colour two-sided, avg 3 stride 2", Shape{13, 12, 3}, Spec{Size: 5, Stride: 1, Pad: 2, Pool: 1, TwoSided: true}, Mid{3, 2, Avg},
		Spec{Size: 3, Stride: 1, Pad: 1, Pool: 3, Pooling: AvgMax, TwoSided: true}},
	{"strides and borders", Shape{14, 15, 2}, Spec{Size: 4, Stride: 2, Pad: 0, Pool: 1, TwoSided: true}, Mid{2, 1, Max},
		Spec{Size: 2, Stride: 2, Pad: 1, Pool: 2, Pooling: Max}},
	{"1x1 mid window", Shape{7, 7, 1}, Spec{Size: 3, Stride: 1, Pad: 0, Pool: 1}, Mid{1, 1, Avg},
		Spec{Size: 5, Stride: 1, Pad: 0, Pool: 1, Pooling: Avg}},
}

func newStack(rng *rand.Rand, g stackGeometry, f1, f2 int, act Activation, relu bool) *Stack {
	l1 := &Layer{Spec: g.first, In: g.in, W: randVals(rng, f1*g.first.Weights(g.in)), Bias: randVals(rng, f1), Act: act, ReLU: relu}
	s := &Stack{First: l1, Mid: g.mid}
	p := s.Planes()
	s.Second = &Layer{Spec: g.second, In: p, W: randVals(rng, f2*g.second.Weights(p)), Bias: randVals(rng, f2), Act: act, ReLU: relu}
	return s
}

// TestStackMatchesReference checks the two layers' outputs against direct
// loops: the first layer's maps and their pooling by refMaps, the second
// layer's by reference (odd sizes, strides, padding, avg and max between
// the layers, one- and two-sided).
func TestStackMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, g := range stackGeometries {
		for ai, act := range []Activation{relu, tanhAct} {
			n, f1, f2 := 3, 4, 5
			s := newStack(rng, g, f1, f2, act, ai == 0)
			if err := s.Check(); err != nil {
				t.Fatalf("%s: %v", g.name, err)
			}
			x := randVals(rng, n*g.in.Chans*g.in.Rows*g.in.Cols)
			p := s.Planes()
			np := p.Chans * p.Rows * p.Cols
			maps := make([]float32, n*np)
			if err := s.Maps(x, n, maps); err != nil {
				t.Fatal(err)
			}
			wantMaps := refMaps(s, x, n)
			for i, v := range maps {
				if d := math.Abs(float64(v) - wantMaps[i]); d > 1e-4*(1+math.Abs(wantMaps[i])) {
					t.Fatalf("%s: map value %d = %v, reference %v", g.name, i, v, wantMaps[i])
				}
			}
			m32 := make([]float32, len(wantMaps))
			for i, v := range wantMaps {
				m32[i] = float32(v)
			}
			want := reference(s.Second, m32, n)
			lo := s.Second.Outputs()
			out := make([]float32, n*(lo+2))
			if err := s.Apply(x, n, out, lo+2, 1); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				if out[i*(lo+2)] != 0 || out[i*(lo+2)+lo+1] != 0 {
					t.Fatalf("%s: Apply wrote outside its columns", g.name)
				}
				for j := 0; j < lo; j++ {
					v, r := float64(out[i*(lo+2)+1+j]), want[i*lo+j]
					if d := math.Abs(v - r); d > 2e-4*(1+math.Abs(r)) {
						t.Fatalf("%s: image %d output %d = %v, reference %v", g.name, i, j, v, r)
					}
				}
			}
		}
	}
}

// TestStackDeterministic checks the same bits whatever GOMAXPROCS and
// whatever images share the call.
func TestStackDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	g := stackGeometries[1]
	s := newStack(rng, g, 6, 7, relu, true)
	n := 21
	d := g.in.Chans * g.in.Rows * g.in.Cols
	x := randVals(rng, n*d)
	lo := s.Second.Outputs()
	run := func(procs int) []float32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		out := make([]float32, n*lo)
		if err := s.Apply(x, n, out, lo, 0); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := run(1), run(4)
	if !slices.Equal(a, b) {
		t.Fatal("outputs differ between GOMAXPROCS 1 and 4")
	}
	one := make([]float32, lo)
	if err := s.Apply(x[5*d:6*d], 1, one, lo, 0); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one, a[5*lo:6*lo]) {
		t.Fatal("an image's outputs depend on the other images of the call")
	}
}

// TestStackErrors checks clear errors for stacks that cannot be applied.
func TestStackErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	g := stackGeometries[0]
	cases := map[string]func(s *Stack){
		"window 0":       func(s *Stack) { s.Mid.Window = 0 },
		"stride 0":       func(s *Stack) { s.Mid.Stride = 0 },
		"window too big": func(s *Stack) { s.Mid.Window = 10 },
		"avg+max mid":    func(s *Stack) { s.Mid.Pooling = AvgMax },
		"wrong planes":   func(s *Stack) { s.Second.In.Chans++ },
		"second too big": func(s *Stack) {
			s.Second.Spec.Size = 9
			s.Second.W = make([]float32, s.Second.Filters()*s.Second.Spec.Weights(s.Second.In))
		},
		"no second": func(s *Stack) { s.Second = nil },
	}
	for name, f := range cases {
		s := newStack(rng, g, 2, 3, relu, true)
		f(s)
		out := make([]float32, 100)
		err := s.Apply(make([]float32, 99), 1, out, 10, 0)
		if !errors.Is(err, ErrSpec) {
			t.Errorf("%s: got %v, want ErrSpec", name, err)
		}
	}
}

// TestStackSeparable checks the separable second layer (planes mixed by w,
// then v along rows and u along columns) against the product over patches
// of the same filters' full weights, on every stack geometry, and its
// determinism across GOMAXPROCS.
func TestStackSeparable(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, g := range stackGeometries {
		n, f1, f2 := 3, 4, 5
		s := newStack(rng, g, f1, f2, relu, true)
		p := s.Planes()
		k := g.second.Size
		sep := &SepFilters{U: randVals(rng, f2*k), V: randVals(rng, f2*k), W: randVals(rng, f2*p.Chans)}
		kk := g.second.Weights(p)
		for j := 0; j < f2; j++ {
			FullWeights(sep.U[j*k:(j+1)*k], sep.V[j*k:(j+1)*k], sep.W[j*p.Chans:(j+1)*p.Chans], s.Second.W[j*kk:(j+1)*kk])
		}
		x := randVals(rng, n*g.in.Chans*g.in.Rows*g.in.Cols)
		lo := s.Second.Outputs()
		full := make([]float32, n*lo)
		if err := s.Apply(x, n, full, lo, 0); err != nil {
			t.Fatal(err)
		}
		s.Sep = sep
		run := func(procs int) []float32 {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			out := make([]float32, n*lo)
			if err := s.Apply(x, n, out, lo, 0); err != nil {
				t.Fatal(err)
			}
			return out
		}
		a := run(1)
		if !slices.Equal(a, run(3)) {
			t.Fatalf("%s: separable outputs differ between GOMAXPROCS 1 and 3", g.name)
		}
		for i := range a {
			if d := math.Abs(float64(a[i] - full[i])); d > 1e-4*(1+math.Abs(float64(full[i]))) {
				t.Fatalf("%s: output %d separable %v, full %v", g.name, i, a[i], full[i])
			}
		}
		s.Sep.W = s.Sep.W[1:]
		if err := s.Apply(x, n, a, lo, 0); !errors.Is(err, ErrSpec) {
			t.Fatalf("%s: plane weights of the wrong length: %v", g.name, err)
		}
	}
}

// TestSepOf: a bank's parameters (u, v, w filter by filter; no w for one
// plane) split into U, V and W in filter order; a filter not held in full
// is left out.
func TestSepOf(t *testing.T) {
	const k = 2
	// Three planes: each filter u0 u1 v0 v1 w0 w1 w2.
	params := []float32{1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 14, 15, 16, 17}
	s := SepOf(params, k, 2, 3)
	if !slices.Equal(s.U, []float32{1, 2, 11, 12}) || !slices.Equal(s.V, []float32{3, 4, 13, 14}) || !slices.Equal(s.W, []float32{5, 6, 7, 15, 16, 17}) {
		t.Errorf("three planes: U %v, V %v, W %v", s.U, s.V, s.W)
	}
	// One plane: no plane weights.
	s = SepOf(params[:8], k, 2, 1)
	if !slices.Equal(s.U, []float32{1, 2, 5, 6}) || !slices.Equal(s.V, []float32{3, 4, 7, 11}) || s.W != nil {
		t.Errorf("one plane: U %v, V %v, W %v", s.U, s.V, s.W)
	}
	// A second filter cut short is left out.
	s = SepOf(params[:10], k, 2, 3)
	if !slices.Equal(s.U, []float32{1, 2}) || !slices.Equal(s.W, []float32{5, 6, 7}) {
		t.Errorf("cut: U %v, W %v", s.U, s.W)
	}
}
