package scn

import "github.com/scn2d/scn/internal/kind"

// The learners' vocabulary lives in internal/kind (so that the internal
// packages recording a learner need not import scn); these are its names.

// InputMap says how a hidden node reads an image: as a flat vector
// (w^T vec(X) + b) or as a matrix (u^T X v + b).
type InputMap = kind.InputMap

const (
	// Vector flattens the image: a node has a weight vector w of length d1*d2.
	Vector = kind.Vector
	// Matrix keeps the image's shape: a node has u (d1) and v (d2), and its
	// weight over the flattened image is the rank-one vec(u v^T).
	Matrix = kind.Matrix
)

// NodeChoice says how hidden nodes are chosen.
type NodeChoice = kind.NodeChoice

const (
	// Random draws every node at the first scale of Config.Scales, as RVFL does.
	Random = kind.Random
	// Supervised adds nodes one at a time, each chosen among random
	// candidates by the supervisory inequality of stochastic configuration.
	Supervised = kind.Supervised
)

// Kind is one cell of the 2 x 2 grid of learners: {Vector, Matrix} input map
// times {Random, Supervised} node choice. Its String method returns the
// short name ("2dscn", "scn", "2drvfl" or "rvfl"), Title the paper's
// ("2DSCN").
type Kind = kind.Kind

// The four learners of the project.
var (
	SCN2D  = kind.SCN2D  // 2DSCN: matrix input, supervised nodes
	SCN    = kind.SCN    // SCN: vector input, supervised nodes
	RVFL2D = kind.RVFL2D // 2DRVFL: matrix input, random nodes
	RVFL   = kind.RVFL   // RVFL: vector input, random nodes
)

// Kinds returns the four learners in the order reports show them (a new
// slice each call, so that no caller can change another's list).
func Kinds() []Kind { return kind.Kinds() }

// ParseKind reads a learner's name ("2dscn", "scn", "2drvfl", "rvfl"; case
// is ignored).
func ParseKind(s string) (Kind, error) { return kind.Parse(s) }
