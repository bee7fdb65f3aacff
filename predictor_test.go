package scn

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/scn2d/scn/internal/linalg"
)

// TestPredictorMatchesPredict checks that a Predictor gives Model.Predict's
// outputs bit for bit, for the four kinds and the three activations, on
// batches of 1, of 3 and of more than one internal batch, and on every
// image alone (a server scores an image with whatever others came with it).
func TestPredictorMatchesPredict(t *testing.T) {
	x, y, names := blobs(700, 10, 8, 3, 5)
	p, err := Classification(x, y, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range Kinds() {
		for _, act := range []Activation{Sigmoid, Tanh, ReLU} {
			t.Run(fmt.Sprintf("%v/%v", kind, act), func(t *testing.T) {
				c := Paper(kind)
				c.MaxNodes = 40
				c.Activation = act
				m, err := c.Fit(context.Background(), p, nil)
				if err != nil {
					t.Fatal(err)
				}
				pr := NewPredictor(m)
				if pr.Model() != m {
					t.Fatal("Model() is not the model given")
				}
				want, err := m.Predict(x)
				if err != nil {
					t.Fatal(err)
				}
				got, err := pr.Predict(x)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatal("Predictor on 700 images differs from Model.Predict")
				}
				d := x.Dim()
				for _, span := range [][2]int{{0, 1}, {5, 8}, {699, 700}} {
					sub := Images{Rows: x.Rows, Cols: x.Cols, Pix: x.Pix[span[0]*d : span[1]*d]}
					got, err := pr.Predict(sub)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want[span[0]*m.M:span[1]*m.M]) {
						t.Fatalf("images %d..%d alone: %v, in the full batch: %v", span[0], span[1], got, want[span[0]*m.M:span[1]*m.M])
					}
				}
				if _, err := pr.Predict(Images{Rows: 3, Cols: 3, Pix: make([]float32, 9)}); err == nil {
					t.Fatal("3 x 3 image accepted by a 10 x 8 model")
				}
			})
		}
	}
}

func TestTopK(t *testing.T) {
	y := []float64{0.1, 0.7, 0.1, 0.9, -1}
	for _, c := range []struct {
		k    int
		want []int
	}{{0, []int{}}, {-2, []int{}}, {1, []int{3}}, {3, []int{3, 1, 0}}, {9, []int{3, 1, 0, 2, 4}}} {
		if got := TopK(y, c.k); !slices.Equal(got, c.want) {
			t.Errorf("TopK(%v, %d) = %v, want %v", y, c.k, got, c.want)
		}
	}
}

// TestMatrixPredictionByChunks: a 2D model too large to keep its expanded
// weights (expandLimit lowered here) is predicted by expanding them chunk
// by chunk of nodes, with the bits of scoring all L nodes at once with the
// fully expanded weights vec(u v^T) (the fit's way), with L not a multiple
// of the chunk.
func TestMatrixPredictionByChunks(t *testing.T) {
	defer func(v int) { expandLimit = v }(expandLimit)
	expandLimit = 1000
	x, y, names := blobs(300, 10, 8, 3, 5)
	p, err := Classification(x, y, names)
	if err != nil {
		t.Fatal(err)
	}
	c := Paper(RVFL2D)
	c.MaxNodes = 2*predictNodeChunk + 37
	m := fitT(t, c, p)
	n, d, l := x.Len(), x.Dim(), m.Nodes()
	if l != c.MaxNodes {
		t.Fatalf("fit has %d nodes, want %d", l, c.MaxNodes)
	}
	z := make([]float32, l*n)
	linalg.ScoreNT(l, n, d, m.weights(), x.Pix, z, n)
	h := make([]float64, l*n)
	for j := 0; j < l; j++ {
		m.Activation.applyRow(z[j*n:(j+1)*n], m.Bias[j])
		for i, v := range z[j*n : (j+1)*n] {
			h[j*n+i] = float64(v)
		}
	}
	want := make([]float64, m.M*n) // Y^T = beta^T H^T, as Predict forms it
	linalg.Dgemm(true, false, m.M, n, l, 1, m.Beta, m.M, h, n, 0, want, n)
	pr := NewPredictor(m)
	if pr.w != nil {
		t.Fatal("the predictor kept the expanded weights above expandLimit")
	}
	got, err := pr.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		for q := 0; q < m.M; q++ {
			if got[i*m.M+q] != want[q*n+i] {
				t.Fatalf("image %d output %d: %v by chunks, %v expanded at once", i, q, got[i*m.M+q], want[q*n+i])
			}
		}
	}
}
