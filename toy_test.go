package scn

import (
	"context"
	"math"
	"testing"

	"github.com/scn2d/scn/internal/fixtures"
	"github.com/scn2d/scn/internal/linalg/kernel"
	"github.com/scn2d/scn/internal/reference"
	"gonum.org/v1/gonum/mat"
)

// toyProblem is the 1D regression target of the SCN paper.
func toyProblem(t testing.TB, n int) Problem {
	x, y := fixtures.Toy(n)
	p, err := Regression(Images{Rows: 1, Cols: 1, Pix: x}, y, 1)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func toyConfig() Config {
	c := Paper(SCN)
	c.MaxNodes = 150
	c.Tolerance = 0.001
	c.Candidates = 100
	c.Scales = []float64{0.5, 1, 5, 10, 30, 50, 100, 150, 200, 250}
	c.Ratios = []float64{0.9, 0.99, 0.999, 0.9999, 0.99999, 0.999999}
	return c
}

// TestSCNToy runs the SCN paper's 1D toy with the settings of the authors'
// demo: training RMSE 0.001 within 150 nodes (the authors' code needs about
// 70). With seed 1 it stops at tolerance after 64 nodes. Over seeds 1..8 it
// reaches the tolerance with 64 to 76 nodes for six of them; for the other
// two (7 and 8) no candidate is admissible any more once the RMSE is near
// 0.0012 and 0.0019, so the test asks for six of eight as well as for seed 1.
func TestSCNToy(t *testing.T) {
	p := toyProblem(t, 1000)
	reached := 0
	for seed := uint64(1); seed <= 8; seed++ {
		c := toyConfig()
		c.Seed = seed
		m, err := c.Fit(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		rmse, err := m.RMSE(p.X, p.T)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: %d nodes, stop %v, train RMSE (fit) %.6f, (predict) %.6f", seed, m.Nodes(), m.Summary.Stop, m.Summary.TrainRMSE, rmse)
		ok := m.Nodes() <= 150 && rmse <= 0.001
		if ok {
			reached++
		}
		// Seed 1's path is the documented one with the amd64 kernels; with
		// the Go fallback's rounding (purego, arm64) it takes other
		// candidates and may stall (77 nodes at RMSE 0.003): the six of
		// eight below holds there too.
		if seed == 1 && !ok && kernel.Available {
			t.Errorf("seed 1: %d nodes, training RMSE %.5f: want <= 0.001 within 150 nodes", m.Nodes(), rmse)
		}
		if math.Abs(rmse-m.Summary.TrainRMSE) > 1e-6 {
			t.Errorf("seed %d: predicted training RMSE %.7f differs from the fit's residual %.7f", seed, rmse, m.Summary.TrainRMSE)
		}
	}
	if reached < 6 {
		t.Errorf("%d of 8 seeds reached RMSE 0.001 within 150 nodes, want at least 6", reached)
	}
}

// TestReferenceToyNeedsPinvTruncation shows, with the plain reference
// implementation (pseudo-inverse per node), how much the authors' MATLAB
// pinv tolerance matters on the toy: with it the reference reaches RMSE
// 0.001; with a (nearly) exact pseudo-inverse and the same seed it stalls
// above 0.0015 (no admissible candidate), as the fast builder does for some
// seeds (see TestSCNToy).
func TestReferenceToyNeedsPinvTruncation(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the reference recomputes a pseudo-inverse per node")
	}
	p := toyProblem(t, 1000)
	x := make([][]float64, len(p.X.Pix))
	for i, v := range p.X.Pix {
		x[i] = []float64{float64(v)}
	}
	tt := mat.NewDense(len(x), 1, p.T)
	c := toyConfig()
	s := reference.Settings{MaxNodes: c.MaxNodes, Tolerance: c.Tolerance, Candidates: c.Candidates,
		Scales: c.Scales, Ratios: c.Ratios, Seed: 3, PinvScale: 1}
	matlab, _ := reference.Fit(s, x, tt)
	s.PinvScale = 1e-6
	exact, _ := reference.Fit(s, x, tt)
	lm, le := matlab[len(matlab)-1], exact[len(exact)-1]
	t.Logf("MATLAB pinv: %d nodes, RMSE %.5f; exact: %d nodes, RMSE %.5f", len(matlab), lm, len(exact), le)
	if lm > 0.001 || len(matlab) > 150 {
		t.Errorf("MATLAB-tolerance reference: RMSE %.5f after %d nodes, want 0.001 within 150", lm, len(matlab))
	}
	if le < 0.0015 {
		t.Errorf("exact reference reached RMSE %.5f; the stall this test documents is gone", le)
	}
}
