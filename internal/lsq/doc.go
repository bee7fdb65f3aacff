// Package lsq is the least-squares layer of the scn fits: everything that
// turns hidden outputs H and targets T into output weights beta, and
// nothing that knows what a node, a configuration or a model is.
//
// It owns:
//
//   - the engines (Engine): QR, the tiled CGS2 QR factorisation that grows
//     one column at a time (the paper's path, qr.go), and Gram, the
//     Gram/Cholesky engine that grows by whole blocks over row shards of
//     ShardRows images (gram.go), with its one-pass accumulation for fits
//     that know their nodes before the data (onepass.go) and every
//     prefix's weights at another ridge term from one factor
//     (RidgePrefixes, gram_ridge.go) and a fold's out-of-fold outputs
//     from the sums of every image (HeldRows, HeldOutputs, gram_held.go);
//   - the dense solves: Cholesky (blocked, the engine's own factor) and
//     SolveFlat (a flat system solved in place on it),
//     RidgeSolve (gonum's Cholesky) and CholeskySolve (the blocked factor,
//     falling back to RidgeSolve), StackedRidge (two parts' normal
//     equations added, stacked.go), and the engines' triangular solves;
//   - the iterative solves of statistics: an update's two-sided
//     preconditioned conjugate gradients (Near, near.go) and an online
//     learner's, warm started and preconditioned with a stale factor
//     (RidgeCG, ridge_pcg.go), with the sums' panel helpers
//     (ScaleLowerPanels, SymmetrizeTiled), and the residual sum of squares
//     from sums alone (SumsRSS, SolvedRSS, sums_rss.go); the sums
//     themselves, formed chunk by chunk (ChunkSums, chunk_sums.go);
//   - the small vector helpers the layers above share: Grow, Transpose and
//     Transposed, Dot, RowDots, ColDots, AddVec, SumChunks, Reduce and
//     Reduce32 (engine.go, vec.go).
//
// Every sum that reads training data is formed over fixed chunks or row
// shards and reduced in order, so its bits do not depend on GOMAXPROCS;
// the model files the root package pins (testdata/golden.json) depend on
// these bits, and so on every expression here: a change that reorders a
// sum changes them.
//
// It may import the standard library, gonum and the project's
// internal/linalg (with its kernels), internal/par and internal/bigmem;
// never the root package scn or any package above it (dataset, serve,
// cmd, ...).
package lsq
