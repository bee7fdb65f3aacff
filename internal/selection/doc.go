// Package selection is model selection's machinery over plain data: what
// the root package's Config.Select, FitHeldOut, SelectStream and a
// Budget's selection run behind their public names.
//
// It owns:
//
//   - the Evaluator of a held-out part (eval.go): the held-out hidden
//     outputs of the nodes scored so far, the grid of prefix lengths, the
//     score of every (L, ridge) pair of a path's prefixes, the monitor
//     that stops a fit once Patience runs out, a Budget's checkpoints and
//     their further ridge terms, and the fields of the choice record; the
//     path is read through the Path interface (its nodes, the held-out
//     hidden outputs of a range of them, the output weights of its
//     prefixes), which the root package implements over *scn.Path;
//   - the scores of the prefixes with direct links (DirectScores,
//     direct.go) over internal/direct's systems.
//
// The scores' arithmetic is internal/holdout's; every float expression is
// kept as the root package had it (selected models are pinned by the
// golden tests).
//
// It may import the standard library, gonum, internal/direct,
// internal/holdout, internal/linalg, internal/lsq and internal/timing
// only; never the root package scn or any package above it.
package selection
