// Package node is the input half of the scn fits: how a hidden node's
// parameters are laid out, drawn and act on an image, and how 2D
// candidates are scored in pairs. It knows nothing of a configuration, a
// problem or a model: the root package passes what a draw needs (Spec,
// the images' pixels and classes).
//
// It owns:
//
//   - the node maps (Map): Vector, a weight over the flattened image
//     (w^T vec(X) + b); Matrix, the 2D node u^T X v + b with channel
//     weights for images of several planes; Field, the vector map with the
//     image's shape that receptive fields need. Every map is used through
//     its weight over the flattened image (Map.Weight), so that scoring and
//     prediction are one matrix product for both; a colour 2D node's inputs
//     are also scored plane by plane, unexpanded (Matrix.Score, score3d.go);
//   - the draws (Draw): uniform, standardised, on receptive fields, or
//     difference nodes from two training images (DiffSource), set by a
//     small Spec rather than the root package's Config;
//   - standardised draws' sums (standardize.go): the images' mean image
//     (MeanImage) and a node's scale to a spread (Spread);
//   - the draws' pieces: Uniform, FieldInterval (a receptive field's side),
//     RankOne and RankOne3 (the rank-one approximation of a difference of
//     images, power iteration), Normalise, Norm32;
//   - pair scoring of 2D candidates (ScorePairs, PairShard, ExpandChannels,
//     PairSide): all T_u x T_v pairs of drawn row and column vectors scored
//     in two products;
//   - the activations (Activation, activation.go): g applied row by row
//     to hidden outputs (the AVX2 sigmoid kernel where there is one), and
//     the slopes the generalization indicator needs;
//   - the supervised choice (choose.go): a candidate's correlations with
//     the residual (CorrelateRows) and the supervisory inequality
//     (Admissible), which the drivers' one-node and block steps share; for
//     a local filter, whose pooled outputs are several columns, the same
//     inequality on their span (GroupXi, Projections, AdmissibleGroups,
//     choose_local.go).
//
// The model files the root package pins (testdata/golden.json) depend on
// the order of every draw from the random stream and on every expression
// here: a change that reorders them changes the pinned bytes.
//
// It may import the standard library, gonum, internal/linalg (the
// products), internal/lsq (row shards, transposes, Grow) and internal/par
// (the goroutine pool); never the root package scn or any package above
// it.
package node
