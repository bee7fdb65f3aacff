package scn

import (
	"math"
	"strings"
	"testing"
)

// TestFinite32: NaN and infinities are not finite; an empty slice is.
func TestFinite32(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(-1))
	for _, c := range []struct {
		v    []float32
		want bool
	}{{nil, true}, {[]float32{0, -1, 3e38}, true}, {[]float32{1, nan}, false}, {[]float32{inf}, false}} {
		if got := finite32(c.v); got != c.want {
			t.Errorf("finite32(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}

// TestNonFiniteParametersRefused: a NaN or an infinity in any float32
// parameter of a deep layer, a local filter bank (weights, biases,
// whitening) or a second local layer makes the model's check refuse it
// with the part named; the model as fitted passes.
func TestNonFiniteParametersRefused(t *testing.T) {
	hue, _ := hueProblem(t, 30, 5)
	deep := fitT(t, deepConfig(SCN2D, 20, 10), blobProblem(t, 120))
	lc := localConfig(RVFL2D)
	lc.Local.Whiten, lc.Local.WhitenEps = true, 0.1
	local := fitT(t, lc, hue)
	second := fitT(t, secondConfig(RVFL2D), hue)
	cases := []struct {
		m    *Model
		v    func(m *Model) []float32
		want string
	}{
		{deep, func(m *Model) []float32 { return m.Deep[0].Params }, "layer 2 has a non-finite weight"},
		{deep, func(m *Model) []float32 { return m.Deep[0].Bias }, "layer 2 has a non-finite bias"},
		{local, func(m *Model) []float32 { return m.Local.Banks[0].Params }, "local filter bank 0 has a non-finite parameter"},
		{local, func(m *Model) []float32 { return m.Local.Banks[0].Bias }, "local filter bank 0 has a non-finite parameter"},
		{local, func(m *Model) []float32 { return m.Local.Banks[0].Whiten }, "local filter bank 0 has a non-finite parameter"},
		{second, func(m *Model) []float32 { return m.Local.Second.Params }, "second layer of local filters has a non-finite parameter"},
		{second, func(m *Model) []float32 { return m.Local.Second.Bias }, "second layer of local filters has a non-finite bias"},
	}
	for _, c := range cases {
		if err := c.m.check(); err != nil {
			t.Fatalf("the fitted model: %v", err)
		}
		v := c.v(c.m)
		if len(v) == 0 {
			t.Fatalf("%s: no values to spoil", c.want)
		}
		for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1))} {
			old := v[len(v)-1]
			v[len(v)-1] = bad
			err := c.m.check()
			v[len(v)-1] = old
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v in the last value: %v, want %q", bad, err, c.want)
			}
		}
	}
}
