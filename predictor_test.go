package scn

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/scn2d/scn/internal/linalg"
)

// TestPredictorMatchesPredict checks that a Predictor gives Model.Predict's
// outputs bit for bit, for the four kinds and the three activations, on
// batches of 1, of 3 and of more than one internal batch, and on every
// image alone (a server scores an image with whatever others came with it),
// and at GOMAXPROCS 1 as at 2.
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
				// The passes run in parallel: the same bits on one processor.
				procs := runtime.GOMAXPROCS(1)
				one, err := pr.Predict(x)
				runtime.GOMAXPROCS(procs)
				if err != nil || !slices.Equal(one, want) {
					t.Fatalf("Predictor at GOMAXPROCS 1 differs (err %v)", err)
				}
				d := x.Dim()
				for _, span := range [][2]int{{0, 1}, {5, 8}, {699, 700}} {
					sub := Images{Rows: x.Rows, Cols: x.Cols, Pix: x.Pix[span[0]*d : span[1]*d]}
					got, err := pr.Predict(sub)
					if err != nil {
						t.Fatal(err)
					}
					// An image's outputs do not depend on its batch, bit for
					// bit, where the output product is the project's or
					// gonum's; OpenBLAS picks dgemm kernels by the matrix's
					// shape too (with its Haswell and Zen kernels a batch of
					// one rounds the last bit otherwise), so there the
					// outputs agree to rounding.
					part := want[span[0]*m.M : span[1]*m.M]
					if linalg.Backend() == "openblas" {
						if d := relDiff(got, part); d > 1e-13 {
							t.Fatalf("images %d..%d alone differ from the full batch by %.3g relative (%s)", span[0], span[1], d, linalg.Class())
						}
					} else if !slices.Equal(got, part) {
						t.Fatalf("images %d..%d alone: %v, in the full batch: %v", span[0], span[1], got, part)
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

// TestMatrixPredictionByChunks: a 2D model whose L is not a multiple of the
// prediction's node chunk predicts, in its u^T X v form, what the fit's
// expanded weights vec(u v^T) give (scoring all L nodes at once, the
// outputs in one product) to float32 rounding: 1e-5 of the outputs' scale.
func TestMatrixPredictionByChunks(t *testing.T) {
	x, y, names := blobs(300, 10, 8, 3, 5)
	p, err := Classification(x, y, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, act := range []Activation{Sigmoid, Tanh, ReLU} {
		c := Paper(RVFL2D)
		c.Activation = act
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
		want := make([]float64, m.M*n) // Y^T = beta^T H^T
		linalg.Dgemm(true, false, m.M, n, l, 1, m.Beta, m.M, h, n, 0, want, n)
		got, err := NewPredictor(m).Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		var scale float64
		for _, v := range want {
			scale = max(scale, math.Abs(v))
		}
		for i := 0; i < n; i++ {
			for q := 0; q < m.M; q++ {
				if math.Abs(got[i*m.M+q]-want[q*n+i]) > 1e-5*scale {
					t.Fatalf("%v: image %d output %d: %v in u^T X v form, %v expanded", act, i, q, got[i*m.M+q], want[q*n+i])
				}
			}
		}
	}
}
