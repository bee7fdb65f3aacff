// Package predict is the prediction pass of the scn package's one-layer
// models of global nodes (scn.Predictor): the images go through in passes
// of Net.Batch, the nodes of each pass in chunks of Net.Chunk, whose
// outputs are added to the network's outputs (float64) before the next
// chunk is scored, then the direct links' outputs, if any.
//
// It owns Net (what the pass reads of a model), Scratch (the working
// memory a Predictor keeps between calls) and Net.Predict. The root
// package keeps Predictor, the checks of the images and the dispatch to
// deep (internal/deep) and local models. Every float expression is kept as
// the root package had it: predictions are pinned.
//
// It may import the standard library, internal/direct, internal/linalg,
// internal/lsq, internal/node and internal/par only; never the root
// package scn or any package above it.
package predict
