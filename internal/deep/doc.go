// Package deep is the arithmetic of the scn package's deep models
// (Config.Layers, after Wang and Li's DeepSCN): a first layer of nodes on
// the image, then further layers of vector nodes, layer k reading the
// outputs of layer k-1, and an output layer reading every layer's nodes.
//
// The deep networks follow Wang and Li's deep stochastic configuration
// networks (DeepSCN, "Deep stochastic configuration networks with
// universal approximation property", IJCNN 2018), the 2DSCN paper's future
// work: a first layer of nodes on the image (the configuration's learner,
// 2DSCN or 2DRVFL by default), then further layers of supervised vector
// nodes, layer k's input being the hidden outputs h of layer k-1 (node j of
// layer k: g(w_j^T h + b_j), w_j of the previous layer's width). The output
// layer reads every layer's nodes (the concatenation of all hidden
// outputs), and least squares is at the output only:
//
//	f(X) = sum over layers k and their nodes j of beta_kj h_kj(X)
//
// A further layer's nodes are chosen as the block path chooses supervised
// nodes (internal/drive's Block and RunLayers, driven by the root's
// deep.go): the best of Candidates x BlockSize candidates by the
// supervisory inequality against the residual of all the nodes so far
// (every layer's), at the first r of the list where a block fills. One
// Gram/Cholesky engine holds every layer's columns, so the output weights
// are the least squares over all of them. A further layer's candidates are
// drawn as the first layer's would be on a 1 x L_{k-1} "image"
// (standardised, difference nodes if the configuration has them, receptive
// fields and pairs off), and take the previous layer's columns as the fit
// computed them (the engine's, Input).
//
// Nodes are numbered through the layers: the first layer's, then the
// second's, and so on; the trace, the output weights (Beta, L x M with L
// every layer's nodes) and a prefix (scn's Path.Prefix) follow that order,
// a prefix ending inside layer k dropping the layers after it.
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
