package scn_test

import (
	"context"
	"fmt"
	"math"

	"github.com/scn2d/scn"
)

// A 2DSCN learns to tell horizontal bars from vertical ones in 6 x 6 images.
func Example() {
	var pix []float32
	var labels []int
	for i := 0; i < 60; i++ {
		img := make([]float32, 36)
		line, vertical := i%6, (i/6)%2 == 1
		for k := 0; k < 6; k++ {
			if vertical {
				img[k*6+line] = 1
			} else {
				img[line*6+k] = 1
			}
		}
		pix = append(pix, img...)
		labels = append(labels, (i/6)%2)
	}
	x := scn.Images{Rows: 6, Cols: 6, Pix: pix}
	p, err := scn.Classification(x, labels, []string{"horizontal", "vertical"})
	if err != nil {
		panic(err)
	}
	cfg := scn.Paper(scn.SCN2D)
	cfg.MaxNodes = 20
	model, err := cfg.Fit(context.Background(), p, nil)
	if err != nil {
		panic(err)
	}
	acc, _ := model.Accuracy(x, labels)
	fmt.Printf("%s: %d nodes (%v), %d parameters, training accuracy %.2f\n",
		model.Kind.Title(), model.Nodes(), model.Summary.Stop, model.ParamCount(), acc)
	// There are only 12 distinct images, so after 12 nodes the residual is
	// orthogonal to every candidate and building stops by itself.
	// Output: 2DSCN: 12 nodes (no admissible candidate), 180 parameters, training accuracy 1.00
}

// The SCN paper's 1D regression toy, with the authors' demo settings.
func ExampleConfig_Fit() {
	const n = 1000
	x := make([]float32, n)
	y := make([]float64, n)
	for i := range x {
		v := float64(i) / (n - 1)
		x[i] = float32(v)
		y[i] = 0.2*math.Exp(-math.Pow(10*v-4, 2)) + 0.5*math.Exp(-math.Pow(80*v-40, 2)) + 0.3*math.Exp(-math.Pow(80*v-20, 2))
	}
	p, _ := scn.Regression(scn.Images{Rows: 1, Cols: 1, Pix: x}, y, 1)
	cfg := scn.Paper(scn.SCN)
	cfg.MaxNodes, cfg.Candidates, cfg.Tolerance = 150, 100, 0.001
	cfg.Scales = []float64{0.5, 1, 5, 10, 30, 50, 100, 150, 200, 250}
	cfg.Ratios = []float64{0.9, 0.99, 0.999, 0.9999, 0.99999, 0.999999}
	model, err := cfg.Fit(context.Background(), p, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("training RMSE below 0.005: %v\n", model.Summary.TrainRMSE < 0.005)
	// Output: training RMSE below 0.005: true
}

// The fast preset fits thousands of nodes by blocks; here a small version
// on the bars of Example, with receptive fields of 2 to 4 pixels a side.
func ExampleFast() {
	var pix []float32
	var labels []int
	for i := 0; i < 60; i++ {
		img := make([]float32, 36)
		line, vertical := i%6, (i/6)%2 == 1
		for k := 0; k < 6; k++ {
			if vertical {
				img[k*6+line] = 1
			} else {
				img[line*6+k] = 1
			}
		}
		pix = append(pix, img...)
		labels = append(labels, (i/6)%2)
	}
	x := scn.Images{Rows: 6, Cols: 6, Pix: pix}
	p, err := scn.Classification(x, labels, []string{"horizontal", "vertical"})
	if err != nil {
		panic(err)
	}
	cfg := scn.Fast(scn.SCN2D)
	cfg.MaxNodes, cfg.BlockSize, cfg.FieldMin, cfg.FieldMax = 40, 10, 2, 4
	model, err := cfg.Fit(context.Background(), p, nil)
	if err != nil {
		panic(err)
	}
	acc, _ := model.Accuracy(x, labels)
	fmt.Printf("%s (%s preset): %d nodes in blocks of %d, training accuracy %.2f\n",
		model.Kind.Title(), model.Config.Preset, model.Nodes(), cfg.BlockSize, acc)
	// Output: 2DSCN (fast preset): 40 nodes in blocks of 10, training accuracy 1.00
}
