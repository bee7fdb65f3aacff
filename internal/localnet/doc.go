// Package localnet owns the fitted layers of local (convolutional) nodes
// above internal/local's kernels: their geometry (Geometry, Second: the
// root's scn.Local and scn.LocalSecond, their validation, shapes and
// hidden outputs), the fitted layer (Layer, Bank: scn.LocalLayer and
// scn.LocalBank), how a learner's filters read images (Maps), a layer
// applied to images of one shape (Net: the standardised pooled outputs,
// prediction, checks, memory), the ZCA whitening of the patches (Sample,
// Gather), the file's header field and payload sections (format.go), and
// the fit: its state (Fit: the filters' draws, the supervised choice of
// each block of filters, the pooled outputs' standardisation and the
// block engine's sums, fit.go; two layers, second_fit.go; the augmented
// copies' sums, augment.go) and the streamed fit of random filters over
// passes of the images (Stream, stream.go); the ridge choice of a
// budget's local fit on held-out images, dual or primal, and its cost
// (ridge.go).
//
// It takes plain data (float32 image rows, their shape, the learner's
// input map and activation) and never the root package's Config, Problem
// or Model. It may import the standard library, gonum, internal/augment
// (the augmented copies' draws), internal/cfgerr (the configuration error
// its validation wraps), internal/drive (the step, profile and stop
// reason a fit reports), internal/holdout (held-out scores),
// internal/linalg, internal/local, internal/lsq, internal/memest,
// internal/modelfile, internal/node, internal/par and internal/score only.
package localnet
