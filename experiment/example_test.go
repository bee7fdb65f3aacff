package experiment_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/scn2d/scn/experiment"
)

// The small-weights statistics of E6 for one cell: the share of 784-entry
// weight vectors with at least 8% of their entries within 0.01 of zero,
// simulated beside the exact binomial value (M1, M2) for entries uniform
// on [-1, 1]. Only 2D weights (M3) have such vectors often.
func ExampleSimulateSmallWeights() {
	cells, err := experiment.SimulateSmallWeights(context.Background(), experiment.SmallWeightsConfig{
		D1: 28, D2: 28, Eps: []float64{0.01}, P: []float64{0.08}, Draws: 2000, Seed: 1, Dist: experiment.Uniform,
	})
	if err != nil {
		panic(err)
	}
	c := cells[0]
	fmt.Printf("M1 i.i.d.:    simulated %.4f, exact %.2g\n", c.Sim[0], c.Exact[0])
	fmt.Printf("M2 z1 o z2:   simulated %.4f, exact %.4f\n", c.Sim[1], c.Exact[1])
	fmt.Printf("M3 vec(uv^T): simulated %.2f\n", c.Sim[2])
	// Output:
	// M1 i.i.d.:    simulated 0.0000, exact 6.9e-36
	// M2 z1 o z2:   simulated 0.0020, exact 0.0031
	// M3 vec(uv^T): simulated 0.22
}

// Run runs one of the paper's experiments and writes its result, tables,
// figures and HTML report under OutDir/<name>.
func ExampleRun() {
	dir, err := os.MkdirTemp("", "scn-experiment-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	r, err := experiment.Run(context.Background(), "smallweights", experiment.Options{OutDir: dir, Quick: true, Trials: 2, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d draws per model, %d tables\n", r.Name, r.Trials, len(r.Tables))
	for _, f := range []string{"result.json", "report.html"} {
		_, err := os.Stat(filepath.Join(dir, "smallweights", f))
		fmt.Printf("%s written: %v\n", f, err == nil)
	}
	// Output:
	// smallweights: 2000 draws per model, 4 tables
	// result.json written: true
	// report.html written: true
}
