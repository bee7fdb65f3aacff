package robust

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/scn2d/scn/internal/lsq"
	"gonum.org/v1/gonum/mat"
)

// TestRobustMovesTowardCleanSolution: targets with a few gross outliers
// pull the plain least-squares weights away from the true ones; the robust
// solve weighs the outliers down and lands much nearer the truth.
func TestRobustMovesTowardCleanSolution(t *testing.T) {
	const n, l, m = 400, 12, 2
	rng := rand.New(rand.NewPCG(3, 4))
	h := mat.NewDense(n, l, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < l; j++ {
			h.Set(i, j, rng.Float64())
		}
	}
	truth := make([]float64, l*m)
	for i := range truth {
		truth[i] = rng.NormFloat64()
	}
	var y mat.Dense
	y.Mul(h, mat.NewDense(l, m, truth))
	tt := make([]float64, n*m)
	outliers := map[int]bool{}
	for len(outliers) < n/20 {
		outliers[rng.IntN(n)] = true
	}
	for i := 0; i < n; i++ {
		for q := 0; q < m; q++ {
			tt[i*m+q] = y.At(i, q) + 0.01*rng.NormFloat64()
			if outliers[i] {
				tt[i*m+q] += (10 + 20*rng.Float64()) * float64(1-2*rng.IntN(2))
			}
		}
	}
	plain, err := lsq.MinNorm(h, tt, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	robust, theta, rep, err := Beta(h, tt, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	ep, er := relDiff(plain, truth), relDiff(robust, truth)
	t.Logf("error plain %.3g, robust %.3g; %d reweightings, converged %v, %d samples below 1/2", ep, er, rep.Iterations, rep.Converged, rep.Downweight)
	if !(er < ep/10) {
		t.Errorf("robust weights %.3g from the truth, plain %.3g: want a tenth or less", er, ep)
	}
	for i := range theta {
		if outliers[i] && theta[i] > 0.1 {
			t.Errorf("outlier %d keeps weight %.3g", i, theta[i])
		}
		if !(theta[i] >= 0 && theta[i] <= 1) {
			t.Fatalf("weight %d = %v outside [0, 1]", i, theta[i])
		}
	}
}

// TestKDEWeightsUniform: equal residuals give every sample weight 1.
func TestKDEWeightsUniform(t *testing.T) {
	r := []float64{2, 2, 2, 2}
	theta := make([]float64, 4)
	KDEWeights(r, theta)
	for i, w := range theta {
		if w != 1 {
			t.Errorf("weight %d = %v for equal residuals", i, w)
		}
	}
}

// relDiff returns ||a - b|| / ||b||.
func relDiff(a, b []float64) float64 {
	var d, s float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
		s += b[i] * b[i]
	}
	return math.Sqrt(d / s)
}
