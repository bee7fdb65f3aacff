package scn

import (
	"context"
	"math"
	"testing"
)

// toyProblem is the 1D regression target of the SCN paper.
func toyProblem(t testing.TB, n int) Problem {
	x := make([]float32, n)
	y := make([]float64, n)
	for i := range x {
		v := float64(i) / float64(n-1)
		x[i] = float32(v)
		y[i] = 0.2*math.Exp(-math.Pow(10*v-4, 2)) + 0.5*math.Exp(-math.Pow(80*v-40, 2)) + 0.3*math.Exp(-math.Pow(80*v-20, 2))
	}
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

func TestSCNToyReachesTolerance(t *testing.T) {
	p := toyProblem(t, 1000)
	m, err := toyConfig().Fit(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	rmse, err := m.RMSE(p.X, p.T)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("nodes %d, stop %v, train RMSE (fit) %.6f, (predict) %.6f", m.Nodes(), m.Summary.Stop, m.Summary.TrainRMSE, rmse)
	if m.Summary.Stop != ReachedTolerance || m.Nodes() > 150 {
		t.Errorf("stopped with %v after %d nodes, want tolerance 0.001 within 150", m.Summary.Stop, m.Nodes())
	}
	if rmse > 0.0011 {
		t.Errorf("predicted training RMSE %.6f, want <= 0.001 (as the fit's residual says)", rmse)
	}
}
