package scn

import (
	"bytes"
	"math"
	"testing"

	"github.com/scn2d/scn/internal/linalg/kernel"
	"github.com/scn2d/scn/internal/lsq"
)

// TestRobustWithUnitWeightsIsPlain: the weighted solve with every weight 1
// is the plain solve, bit for bit, and agrees with the fit's own output
// weights.
func TestRobustWithUnitWeightsIsPlain(t *testing.T) {
	p := blobProblem(t, 300)
	for _, ridge := range []float64{0, 0.5} {
		c := Paper(RVFL)
		c.MaxNodes, c.Ridge = 60, ridge
		m := fitT(t, c, p)
		h := hiddenDense(m, p.X)
		ones := make([]float64, p.X.Len())
		for i := range ones {
			ones[i] = 1
		}
		w, err := lsq.WeightedSolve(h, p.T, p.M, ridge, ones)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := lsq.MinNorm(h, p.T, p.M, ridge)
		if err != nil {
			t.Fatal(err)
		}
		for i := range w {
			if w[i] != plain[i] {
				t.Fatalf("ridge %g: weight %d = %v with unit weights, %v plain", ridge, i, w[i], plain[i])
			}
		}
		// H here is prediction's: the fit's own with the amd64 kernels, in
		// another summation order with the Go fallback (see
		// TestRVFLOutputWeightsAreClosedForm).
		tol := 1e-8
		if !kernel.Available {
			tol = 1e-6
		}
		if d := relDiff(w, m.Beta); d > tol {
			t.Errorf("ridge %g: unit-weight solve differs from the fit's beta by %.3g (tolerance %g)", ridge, d, tol)
		}
	}
}

// TestRobustFitRoundTrip: Config.Robust changes the output weights of the
// returned model (not its nodes), is recorded in the file, and the loaded
// model predicts the same; without it the model is the plain one.
func TestRobustFitRoundTrip(t *testing.T) {
	p := blobProblem(t, 300)
	// A few training labels flipped: outliers for the output weights.
	for i := 0; i < 15; i++ {
		row := p.T[i*p.M : (i+1)*p.M]
		row[0], row[1] = row[1], row[0]
	}
	c := Paper(RVFL2D)
	c.MaxNodes, c.Ridge = 80, 0.1
	plain := fitT(t, c, p)
	c.Robust = true
	rob := fitT(t, c, p)
	if !bytes.Equal(f32bytes(plain.Params), f32bytes(rob.Params)) {
		t.Fatal("the robust fit changed the hidden nodes")
	}
	if relDiff(plain.Beta, rob.Beta) < 1e-6 {
		t.Error("the robust fit left the output weights as they were")
	}
	_, back := roundTrip(t, rob)
	if !back.Config.Robust {
		t.Error("Robust lost in the file")
	}
	a, _ := rob.Predict(p.X)
	b, _ := back.Predict(p.X)
	if relDiff(a, b) != 0 {
		t.Error("the loaded robust model predicts differently")
	}
	_, pb := roundTrip(t, plain)
	if pb.Config.Robust {
		t.Error("a plain model reads back as robust")
	}
}

func TestRobustBadInput(t *testing.T) {
	p := blobProblem(t, 100)
	m := fitT(t, Paper(RVFL), p)
	q := blobProblem(t, 100)
	q.M, q.T = 1, make([]float64, 100)
	if _, _, err := m.Robust(q); err == nil {
		t.Error("a problem with another number of outputs accepted")
	}
	x, y, names := blobs(50, 5, 5, 3, 1)
	other, _ := Classification(x, y, names)
	if _, _, err := m.Robust(other); err == nil {
		t.Error("images of another shape accepted")
	}
}

func f32bytes(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		u := math.Float32bits(x)
		b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	}
	return b
}
