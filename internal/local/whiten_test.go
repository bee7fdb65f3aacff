package local

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestWhiten checks the whitening against its definition: with eps tiny,
// W Cov W = I for the covariance summed here directly; W is symmetric,
// M = S^-1 W row by row, C = W (S^-1 m + mu), FoldBias subtracts f^T C;
// the bits do not depend on GOMAXPROCS; non-finite patches are refused.
func TestWhiten(t *testing.T) {
	const k, ch, s = 2, 2, 500
	kk := ch * k * k
	rng := rand.New(rand.NewPCG(5, 6))
	p := make([]float64, s*kk)
	for i := 0; i < s; i++ {
		base := rng.NormFloat64()
		for j := 0; j < kk; j++ {
			p[i*kk+j] = base*float64(j+1)/4 + rng.NormFloat64()*0.3 + 1 // correlated, off centre
		}
	}
	cmean, csd := []float64{0.2, -0.1}, []float64{2, 0.5}
	pw, err := Whiten(slices.Clone(p), s, kk, k, cmean, csd, 1e-12)
	if err != nil {
		t.Fatal(err)
	}
	// The covariance, directly.
	mu := make([]float64, kk)
	for i := 0; i < s; i++ {
		for j := 0; j < kk; j++ {
			mu[j] += p[i*kk+j] / s
		}
	}
	cov := make([]float64, kk*kk)
	for i := 0; i < s; i++ {
		for a := 0; a < kk; a++ {
			for b := 0; b < kk; b++ {
				cov[a*kk+b] += (p[i*kk+a] - mu[a]) * (p[i*kk+b] - mu[b]) / s
			}
		}
	}
	wc := make([]float64, kk*kk)
	for a := 0; a < kk; a++ {
		for b := 0; b < kk; b++ {
			for c := 0; c < kk; c++ {
				wc[a*kk+b] += pw.W[a*kk+c] * cov[c*kk+b]
			}
		}
	}
	for a := 0; a < kk; a++ {
		if math.Abs(pw.Mu[a]-mu[a]) > 1e-12 {
			t.Fatalf("mean %d: %v, want %v", a, pw.Mu[a], mu[a])
		}
		for b := 0; b < kk; b++ {
			var v float64
			for c := 0; c < kk; c++ {
				v += wc[a*kk+c] * pw.W[c*kk+b]
			}
			want := 0.0
			if a == b {
				want = 1
			}
			if math.Abs(v-want) > 1e-6 || pw.W[a*kk+b] != pw.W[b*kk+a] {
				t.Fatalf("(W Cov W)[%d][%d] = %v, want %v", a, b, v, want)
			}
			if m := pw.W[a*kk+b] / csd[a/(k*k)]; pw.M[a*kk+b] != m {
				t.Fatalf("M[%d][%d] = %v, want %v", a, b, pw.M[a*kk+b], m)
			}
		}
		var c float64
		for b := 0; b < kk; b++ {
			c += pw.W[a*kk+b] * (cmean[b/(k*k)]/csd[b/(k*k)] + pw.Mu[b])
		}
		if math.Abs(pw.C[a]-c) > 1e-12*(1+math.Abs(c)) {
			t.Fatalf("C[%d] = %v, want %v", a, pw.C[a], c)
		}
	}
	f := make([]float32, kk)
	want := 3.0
	for i := range f {
		f[i] = float32(i) - 2
		want -= float64(f[i]) * pw.C[i]
	}
	if got := pw.FoldBias(f, 3); math.Abs(got-want) > 1e-12 {
		t.Errorf("FoldBias: %v, want %v", got, want)
	}
	if m32 := pw.Matrix32(); len(m32) != kk*kk || m32[1] != float32(pw.M[1]) {
		t.Errorf("Matrix32: %v", m32[:2])
	}
	old := runtime.GOMAXPROCS(1)
	one, err := Whiten(slices.Clone(p), s, kk, k, cmean, csd, 1e-12)
	runtime.GOMAXPROCS(old)
	if err != nil || !slices.Equal(one.W, pw.W) || !slices.Equal(one.C, pw.C) {
		t.Errorf("GOMAXPROCS 1 gives other bits (%v)", err)
	}
	p[7] = math.NaN()
	if _, err := Whiten(p, s, kk, k, cmean, csd, 0.1); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("NaN patch: %v", err)
	}
}
