// Package kind owns the vocabulary of the project's learners: the 2 x 2
// grid of an input map (Vector, Matrix) times a node choice (Random,
// Supervised), the four learners' names, and their parsing. Package scn
// re-exports every name (scn.Kind, scn.SCN2D, scn.ParseKind, ...); the
// internal packages that record a learner (internal/budget) use it
// without importing scn. It imports the standard library only.
package kind

import (
	"fmt"
	"strings"
)

// InputMap says how a hidden node reads an image: as a flat vector
// (w^T vec(X) + b) or as a matrix (u^T X v + b).
type InputMap int

const (
	// Vector flattens the image: a node has a weight vector w of length d1*d2.
	Vector InputMap = iota
	// Matrix keeps the image's shape: a node has u (d1) and v (d2), and its
	// weight over the flattened image is the rank-one vec(u v^T).
	Matrix
)

// NodeChoice says how hidden nodes are chosen.
type NodeChoice int

const (
	// Random draws every node at the first scale of Config.Scales, as RVFL does.
	Random NodeChoice = iota
	// Supervised adds nodes one at a time, each chosen among random
	// candidates by the supervisory inequality of stochastic configuration.
	Supervised
)

// Kind is one cell of the 2 x 2 grid of learners: {Vector, Matrix} input map
// times {Random, Supervised} node choice.
type Kind struct {
	Input  InputMap
	Choice NodeChoice
}

// The four learners of the project.
var (
	SCN2D  = Kind{Matrix, Supervised} // 2DSCN: matrix input, supervised nodes
	SCN    = Kind{Vector, Supervised} // SCN: vector input, supervised nodes
	RVFL2D = Kind{Matrix, Random}     // 2DRVFL: matrix input, random nodes
	RVFL   = Kind{Vector, Random}     // RVFL: vector input, random nodes
)

// Kinds returns the four learners in the order reports show them (a new
// slice each call, so that no caller can change another's list).
func Kinds() []Kind { return []Kind{SCN2D, SCN, RVFL2D, RVFL} }

// String returns the learner's short name: "2dscn", "scn", "2drvfl" or "rvfl".
func (k Kind) String() string {
	s := "rvfl"
	if k.Choice == Supervised {
		s = "scn"
	}
	if k.Input == Matrix {
		s = "2d" + s
	}
	return s
}

// Title returns the learner's name as the paper writes it, e.g. "2DSCN".
func (k Kind) Title() string { return strings.ToUpper(k.String()) }

// Valid reports whether k is one of the four cells.
func (k Kind) Valid() bool {
	return (k.Input == Vector || k.Input == Matrix) && (k.Choice == Random || k.Choice == Supervised)
}

// Parse reads a learner's name ("2dscn", "scn", "2drvfl", "rvfl"; case
// is ignored).
func Parse(s string) (Kind, error) {
	for _, k := range Kinds() {
		if strings.EqualFold(s, k.String()) {
			return k, nil
		}
	}
	return Kind{}, fmt.Errorf("scn: unknown model kind %q (want 2dscn, scn, 2drvfl or rvfl)", s)
}
