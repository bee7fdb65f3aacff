package scn

import "github.com/scn2d/scn/internal/node"

// The node maps live in internal/node (the input half of the grid: how a
// node's parameters are drawn and act on an image); the root package
// names them by these aliases.
type (
	nodeMap     = node.Map
	vectorMap   = node.Vector
	matrixMap   = node.Matrix
	fieldVector = node.Field
)

// newNodeMap returns the map of a kind for images of chans planes of
// rows x cols (chans 0 or 1: grey).
func newNodeMap(in InputMap, rows, cols, chans int) nodeMap {
	if in == Matrix {
		return matrixMap{Rows: rows, Cols: cols, Ch: max(chans, 1)}
	}
	return vectorMap{D: max(chans, 1) * rows * cols}
}
