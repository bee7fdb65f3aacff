// Package selection is model selection's machinery over plain data: what
// the root package's Config.Select, FitHeldOut, SelectStream and a
// Budget's selection run behind their public names.
//
// It owns:
//
//   - the Evaluator of a held-out part (eval.go): the held-out hidden
//     outputs of the nodes scored so far, the grid of prefix lengths, the
//     score of every (L, ridge) pair of a path's prefixes, the monitor
//     that stops a fit once Patience runs out and the check a hold-out
//     fit runs after every block (Check: the monitor, a Budget's
//     checkpoints and its watch), the checkpoints, their further ridge
//     terms and their choice (CheckpointChoice), and the fields of the
//     choice record; the path is read through the Path interface (its
//     nodes, the held-out hidden outputs of a range of them, the output
//     weights of its prefixes), which the root package implements over
//     *scn.Path with the held-out images;
//   - a fit's candidates with direct links (Candidates, DirectScores over
//     internal/direct's systems), a hold-out's choice among them (Choose)
//     and the direct-link refit's algebra (DirectSys.Refit; direct.go);
//   - k-fold selection (folds.go): the fold loop and the pooling of the
//     folds' scores (PoolFolds), the choice and the last fit's solve with
//     its fallback to larger ridge terms (KFold, SolveFallback);
//   - growth past L_max (Grow, grow.go: the fits one after another,
//     internal/holdout's Growth deciding);
//   - the prefix solves of the grid from one factor per ridge term
//     (PrefixSolves, normal.go) and the refits on the training and
//     held-out parts together (Refit, StackedLS; refit.go);
//   - the streamed selection's held-out pass and refit (ScoreHeld,
//     HeldSums, and Mask, the part of a stream a pass reads; stream.go);
//   - local nodes' ridge choice from the one fit's Gram sums and their
//     out-of-fold outputs (LocalSettings, LocalRidges, LocalFinal,
//     LocalFolds, OutOfFold; local.go);
//   - the selection's extras (extras.go): the problem's check
//     (CheckExtrasProblem) and the calibration map, intervals and class
//     weights fitted on held-out or out-of-fold outputs (Extras, over the
//     root package's models and problems).
//
// The root package keeps the public names (Selection, Choice, Score,
// Config.Select, FitCalibration, FitInterval, ...), the fits and the
// models, and gives this package plain data, small interfaces and
// callbacks. The scores' arithmetic is internal/holdout's; every float
// expression is kept as the root package had it (selected models are
// pinned by the golden tests).
//
// It may import the standard library, gonum, internal/direct,
// internal/holdout, internal/linalg, internal/lsq and internal/timing
// only; never the root package scn or any package above it.
package selection
