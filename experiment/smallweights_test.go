package experiment

import (
	"context"
	"math"
	"testing"
)

func TestBinomialTailDirect(t *testing.T) {
	// Against a direct sum of the pmf built by recurrence.
	n, q := 784, 0.0563
	pmf := make([]float64, n+1)
	pmf[0] = math.Pow(1-q, float64(n))
	for k := 1; k <= n; k++ {
		pmf[k] = pmf[k-1] * float64(n-k+1) / float64(k) * q / (1 - q)
	}
	for _, k := range []int{0, 30, 44, 63, 79, 118, 784} {
		var want float64
		for j := k; j <= n; j++ {
			want += pmf[j]
		}
		got := BinomialTail(n, q, k)
		if math.Abs(got-want) > 1e-12*math.Max(1, want) && math.Abs(got-want) > 1e-300 {
			if math.Abs(got-want)/want > 1e-9 {
				t.Errorf("tail(%d) = %g, want %g", k, got, want)
			}
		}
	}
}

func TestEntryProbabilities(t *testing.T) {
	// Uniform product: direct integral of min(1, eps/x) over [0,1].
	eps := 0.005
	var s float64
	const steps = 2000000
	for i := 0; i < steps; i++ {
		x := (float64(i) + 0.5) / steps
		s += math.Min(1, eps/x) / steps
	}
	if got := smallProbM2(Uniform, eps); math.Abs(got-s) > 1e-5 {
		t.Errorf("uniform product: %g, direct %g", got, s)
	}
	// Normal product: density K0(|z|)/pi; for small eps the integral of K0
	// over [0, eps] is eps(1 - ln(eps/2) - gamma) + O(eps^3 ln eps).
	const gamma = 0.5772156649015329
	for _, eps := range []float64{0.001, 0.005, 0.01} {
		want := 2 / math.Pi * eps * (1 - math.Log(eps/2) - gamma)
		// next series term: (eps^3/12)(1 - ... ) small; allow 1e-6 relative.
		got := NormalProductSmallProb(eps)
		if math.Abs(got-want)/want > 1e-4 {
			t.Errorf("normal product eps=%g: %.10g, series %.10g", eps, got, want)
		}
	}
	if got, want := smallProbM1(Normal, 0.01), 0.00797871; math.Abs(got-want) > 1e-7 {
		t.Errorf("normal: %g want %g", got, want)
	}
	if minCount(0.08, 784) != 63 || minCount(0.10, 784) != 79 || minCount(0.15, 784) != 118 || minCount(0.5, 4) != 2 {
		t.Error("minCount")
	}
}

func TestSmallWeightsAgreement(t *testing.T) {
	draws := 20000
	if testing.Short() {
		draws = 5000
	}
	for _, dist := range []Distribution{Uniform, Normal} {
		cfg := SmallWeightsConfig{D1: 28, D2: 28, Eps: smallEps, P: smallP, Draws: draws, Seed: 3, Dist: dist}
		cells, err := SimulateSmallWeights(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cells {
			for _, m := range []int{M1, M2} {
				if !(math.Abs(c.Z[m]) <= 4) {
					t.Errorf("%v eps=%g p=%g M%d: sim %g exact %g, z = %.2f", dist, c.Eps, c.P, m+1, c.Sim[m], c.Exact[m], c.Z[m])
				}
			}
			if c.Sim[M3] < c.Sim[M1] {
				t.Errorf("%v eps=%g p=%g: M3 %g below M1 %g", dist, c.Eps, c.P, c.Sim[M3], c.Sim[M1])
			}
		}
		// Same result whatever the number of goroutines.
		cfg.Draws = 2000
		cfg.Parallel = 1
		a, _ := SimulateSmallWeights(context.Background(), cfg)
		cfg.Parallel = 5
		b, _ := SimulateSmallWeights(context.Background(), cfg)
		for i := range a {
			if a[i].Sim != b[i].Sim {
				t.Fatalf("results depend on parallelism: %v vs %v", a[i].Sim, b[i].Sim)
			}
		}
	}
}
