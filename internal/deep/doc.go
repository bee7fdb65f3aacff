// Package deep is the arithmetic of the scn package's deep models
// (Config.Layers, after Wang and Li's DeepSCN): a first layer of nodes on
// the image, then further layers of vector nodes, layer k reading the
// outputs of layer k-1, and an output layer reading every layer's nodes.
//
// It owns:
//
//   - Layer, one further layer's weights and biases, and what follows from
//     a model's layers: their sizes, node and parameter counts, the checks
//     a model file's layers get, the checks of a configuration's layer
//     sizes (CheckSizes) and the layers of a prefix (layer.go);
//   - Forward, the further layers' outputs from the first layer's, and
//     Predict, a deep model's outputs on a batch of images (predict.go);
//   - Input, the previous layer's outputs on the training images as the
//     next layer's input images (predict.go);
//   - the further layers in a model file's payload (Append, Read,
//     FileBytes) and the parameter count of a header's layer sizes
//     (ParamCountOf, file.go).
//
// The root package scn drives the fit (its block builder chooses each
// layer's nodes), keeps the public names (Layer is an alias of this
// package's) and checks inputs before it calls here. Every float
// expression is kept as the root package had it: predictions are pinned.
//
// It may import internal/linalg, internal/lsq, internal/modelfile,
// internal/node and internal/par besides the standard library; never the root package scn or
// any package above it.
package deep
