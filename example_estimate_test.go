package scn_test

import (
	"fmt"

	"github.com/scn2d/scn"
)

// A fit's memory, estimated from the data set's shape before the images
// are read (dataset's Peek functions give the shape from the files'
// headers; a Set or Stream gives its own), with model selection on top.
func ExampleConfig_Estimate() {
	cfg := scn.Paper(scn.SCN2D)
	cfg.MaxNodes = 500
	sh := scn.Shape{N: 60000, Rows: 28, Cols: 28, Channels: 1, Labels: true, Classes: 10}
	e := cfg.Estimate(sh, &scn.Selection{Validation: 0.1})
	fmt.Printf("images %d MiB, fit %d MiB (least squares %d MiB), selection %d MiB, in all %d MiB\n",
		e.Data>>20, e.FitBytes()>>20, e.Fit.Factor>>20, e.Selection>>20, e.Total()>>20)
	// Output: images 179 MiB, fit 253 MiB (least squares 249 MiB), selection 260 MiB, in all 693 MiB
}

// The statistics a fit's model writes with scn train --stats-out (for
// scn update and scn serve --learn), estimated before the fit: G of L =
// 5000 nodes is 191 MiB (269 with a chunk of 2048 images' hidden
// outputs), and forming the stored Cholesky factor adds its L x L copy
// and its panels (291 MiB).
func ExampleConfig_EstimateStats() {
	cfg := scn.Paper(scn.RVFL2D)
	cfg.MaxNodes = 5000
	sh := scn.Shape{N: 60000, Rows: 28, Cols: 28, Channels: 1, Labels: true, Classes: 10}
	fmt.Printf("statistics %d MiB, with the factor %d MiB\n", cfg.EstimateStats(sh, false)>>20, cfg.EstimateStats(sh, true)>>20)
	// Output: statistics 269 MiB, with the factor 560 MiB
}
