package experiment

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
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
		got := binomialTail(n, q, k)
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
			for _, m := range []int{m1, m2} {
				if !(math.Abs(c.Z[m]) <= 4) {
					t.Errorf("%v eps=%g p=%g M%d: sim %g exact %g, z = %.2f", dist, c.Eps, c.P, m+1, c.Sim[m], c.Exact[m], c.Z[m])
				}
			}
			if c.Sim[m3] < c.Sim[m1] {
				t.Errorf("%v eps=%g p=%g: M3 %g below M1 %g", dist, c.Eps, c.P, c.Sim[m3], c.Sim[m1])
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

// TestBinomialSurvivalCancels measures why binomialTail does not use
// gonum's distuv.Binomial.Survival: 1 - CDF loses every tail below 1e-16,
// while E6's exact values go far lower.
func TestBinomialSurvivalCancels(t *testing.T) {
	n, q, k := 784, 0.001, 63
	ours := binomialTail(n, q, k)
	surv := distuv.Binomial{N: float64(n), P: q}.Survival(float64(k - 1))
	if !(ours > 4.2e-96 && ours < 4.3e-96) {
		t.Errorf("tail = %g, want 4.21e-96", ours)
	}
	if surv < 1e-20 {
		t.Logf("distuv's Survival no longer cancels (%g): it could replace binomialTail", surv)
	}
	// Where the tail is large, both agree.
	q, k = 0.05605, 63
	if a, b := binomialTail(n, q, k), (distuv.Binomial{N: float64(n), P: q}).Survival(float64(k-1)); math.Abs(a-b) > 1e-12 {
		t.Errorf("tail %g, Survival %g", a, b)
	}
}

// TestStatOf checks statOf (gonum's stat.MeanStdDev) against the two-pass
// formula it replaced.
func TestStatOf(t *testing.T) {
	v := []float64{0.9412, 0.9387, 0.9425, 0.9401, 0.9398, 1e-3, 12.5}
	var s float64
	for _, x := range v {
		s += x
	}
	mean := s / float64(len(v))
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	std := math.Sqrt(ss / float64(len(v)-1))
	got := statOf(v)
	if math.Abs(got.Mean-mean) > 1e-15*mean || math.Abs(got.Std-std) > 1e-14*std {
		t.Errorf("statOf = %+v, two-pass %v ± %v", got, mean, std)
	}
	if one := statOf([]float64{3}); one.Mean != 3 || one.Std != 0 {
		t.Errorf("one value: %+v", one)
	}
	if none := statOf(nil); !math.IsNaN(none.Mean) || !math.IsNaN(none.Std) {
		t.Errorf("no value: %+v", none)
	}
}

// TestMedianIsTheBoxPlots measures why median does not use gonum's
// stat.Quantile: for an even count it gives the lower middle value.
func TestMedianIsTheBoxPlots(t *testing.T) {
	v := []float64{4, 1, 3, 2}
	if got := median(v); got != 2.5 {
		t.Errorf("median = %v, want 2.5", got)
	}
	sorted := []float64{1, 2, 3, 4}
	for _, k := range []stat.CumulantKind{stat.Empirical, stat.LinInterp} {
		if q := stat.Quantile(0.5, k, sorted, nil); q != 2 {
			t.Logf("stat.Quantile(0.5, %v) = %v: check whether it can replace median", k, q)
		}
	}
	if got := median([]float64{5, 1, 3}); got != 3 {
		t.Errorf("odd count: %v", got)
	}
	if !math.IsNaN(median(nil)) {
		t.Error("empty: not NaN")
	}
}
