// Package drive owns the mechanism of the fit drivers over plain data:
// the step and profile a fit reports (Step, Profile), the one-node
// builder's candidate batch (ScoreBatch: draws and scores, Correlations:
// the candidates' sums against the residual over fixed row chunks), the
// block builder's steps (Score, Standardize: the spread of standardised
// nodes, BlockCorrelations: the candidates' sums over the engine's row
// shards, ChooseBlock: the supervisory inequality's block), the block
// builder's state and steps (Block, NewBlock; OnePass for the one-pass
// loops), a deep network's layer loop (RunLayers), the one dispatch's
// rule (ModeOf), the one-pass fit's hidden outputs of drawn nodes
// (Hidden), and pair scoring of 2D candidates (PairDraw, DrawPairs,
// PairCandidates: the two passes of pair products over the row shards).
//
// It takes float32 image rows and their shape, internal/node's node maps
// and activations, internal/lsq's engines and row shards, and small
// values of the hyper-parameters each function needs; never the root
// package's Config, Problem, Model or Path (the root builds those from
// what it returns). It may import the standard library, gonum,
// internal/linalg, internal/lsq, internal/node and internal/par only.
package drive
