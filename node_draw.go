package scn

import (
	"math/rand/v2"

	"github.com/scn2d/scn/internal/node"
)

// newRand returns the fit's random stream for a seed (the one-node path
// seeds its stream the same way).
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x2d5c4e)) }

// nodeSpec is what a node draw needs of the configuration c.
func nodeSpec(c Config) node.Spec {
	return node.Spec{FieldMin: c.FieldMin, FieldMax: c.FieldMax, Standardize: c.Standardize}
}

// drawNode draws one candidate's hidden parameters p for the configuration
// c at scale lambda (node.Draw: uniform, standardised, receptive fields,
// difference nodes from src).
func drawNode(rng *rand.Rand, nm nodeMap, c Config, lambda float64, p []float32, src *diffSource) {
	node.Draw(rng, nm, nodeSpec(c), lambda, p, src)
}

// diffSource draws difference nodes (Config.Differences) from the
// training images (node.DiffSource).
type diffSource = node.DiffSource

// newDiffSource returns the source of difference nodes for problem p.
func newDiffSource(p Problem) *diffSource {
	var class []int
	if p.Classes != nil {
		class = node.Classes(p.T, p.X.Len(), p.M)
	}
	return node.NewDiffSource(p.X.Pix, p.X.Len(), p.X.Rows, p.X.Cols, p.X.Chans(), class)
}
