// Package modelfile owns the bytes of the project's model files: the
// container (magic, format version, header length, the JSON header, the
// payload sections, the checksum), the header's record types of every
// extension, as plain structs, and the checks that need nothing but the
// bytes (sizes before allocation, the fields' agreement with the version),
// and Open, which opens a model file for reading (a folder refused).
// It knows nothing of a fitted model: package scn maps its Model to a
// Header and a payload and back (format.go and format_*.go at the root),
// and checks what the header's fields claim about a model. It imports the
// standard library only, never package scn (the compiler refuses the
// cycle) nor any other package of the module.
//
// Model files (format versions 1 and 2) are little-endian:
//
//	offset  size  content
//	0       8     magic "2DSCNMDL"
//	8       4     format version (uint32), 1 or 2
//	12      4     header length H (uint32), at most 1 MiB
//	16      H     header: UTF-8 JSON (Header): kind, activation, shapes,
//	              channels (version 2), nodes, outputs, class names,
//	              configuration (preset, seed, lists), training summary,
//	              preprocessing, metadata
//	16+H    ...   Params: L x P float32 (P = C*d1*d2 for vector learners,
//	              d1+d2 for matrix ones: u then v, d1+d2+C with C > 1
//	              channels: u, v, then w)
//	        ...   Bias: L float32
//	        ...   Beta: L x M float64
//	        ...   deep models only (header "deep": [L_2, ...], the further
//	              layers' node counts; L above is the first layer's), per
//	              further layer k: its weights L_k x L_{k-1} float32, its
//	              biases L_k float32, its rows of the output weights
//	              L_k x M float64
//	end-4   4     CRC-32 (Castagnoli) of every byte before it (uint32)
//
// A reader refuses a file whose magic, version, header, sizes or checksum are
// wrong, before allocating anything the file cannot hold. The header's
// preprocessing field is absent when the images were used as read; files
// written before it existed kept the record as JSON text under the metadata
// key "preprocess", which scn.Read and scn.ReadInfo move to
// Model.Preprocessing.
//
// Version 2 is version 1 with the header field "channels" (C >= 2): a model
// of colour (or any multi-plane) input. A grey model is written as version
// 1 without the field, the bytes it had before channels existed; a version
// 1 file with the field, or a version 2 file without it, is refused.
//
// Version 3 is written for a model that uses an extension of this round,
// and only then: local nodes (below; with whitened patches, the
// header's "local" has "whiten" and "whiten_eps" and each bank's
// whitening matrix follows the local sections), the calibration map,
// conformal interval and class weights (below), direct links
// (the header field "direct" and, after the local nodes'
// sections, the direct-link weights D x M float64; such a model may have
// zero hidden nodes) and a selection record with direct-link curve rows or
// a growth record. Its header may or may not have channels. An extension is an optional header field plus, when
// it needs large arrays, sections after all of the above, before the CRC. A
// model that uses none is written as version 1 or 2, as before.
//
// # Local nodes
//
// The local nodes' extension (format version 3). The header's field
// "local" (Local) records the geometry (filter
// sizes, filters asked per size, stride, padding, pool grid, pooling,
// sides, standardisation), the filters each bank holds and the fit's data
// augmentation, if any (Augment: the field "augment" of "local", absent
// for models fitted without augmentation, whose bytes are unchanged); the header's
// "nodes" is the number of pooled outputs, and the sections of global
// nodes (Params, Bias) are empty. After every other section comes, per
// bank, its parameters (filters x ParamsPerFilter float32: u, v, then w
// for the matrix learners, C x k x k for the vector ones) and biases
// (filters float32); then, when standardised, the pooled outputs' means
// and scales (L float32 each); then the output weights, L x M float64;
// then, with whitening (the header's "whiten": true and "whiten_eps", both
// absent without), per bank its whitening matrix, C k^2 x C k^2 float32
// row-major (LocalBank.Whiten: the raw-patch weights of a filter are the
// matrix times its whitened-space weights; internal/localnet's whiten.go).
//
// The second layer of local nodes (inside the header's "local" field): the
// field "second" (Second) records LocalSecond (filters asked, size, the
// pooling between the layers and whether the first layer's outputs are
// kept) and the filters the second layer holds; it is absent for models of
// one layer, whose bytes are unchanged. After every other local section
// comes the second layer's parameters (filters x ParamsPerFilter of its
// planes, float32: u, v, then one weight per plane for the matrix
// learners, planes x k2 x k2 for the vector ones) and biases (filters
// float32). The header's "nodes" counts both layers' pooled outputs the
// output weights read.
//
// # Direct links
//
// The header field "direct" (Direct: the pool and the features D, checked
// against the shapes and the pool) and the weights D x M float64 after
// every other section.
//
// # Calibration
//
// Three optional header fields, no payload section:
//
//	"calibration":   {"method": "temperature"|"logistic", "temperature": T,
//	                  "a": [M*M] (logistic only, M <= 100), "b": [M] (logistic only),
//	                  "held_out": n, "temperature_log_loss", "logistic_log_loss",
//	                  "raw_log_loss"}
//	"interval":      {"coverage": c, "radius": [M], "held_out": n}
//	"class_weights": [M]
//
// A temperature map has no matrix (its logits are s / T). Numbers are
// written by encoding/json, whose float64 text reads back to the same
// bits.
package modelfile
