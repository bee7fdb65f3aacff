// Package modelrec owns the mapping between a fitted model as plain data
// (Model: the fields of scn.Model whose types are the root package's
// replaced by the internal packages' own) and its model file: the header
// it fills (Header) and checks (FromHeader, Extensions), the format
// version it decides (Version: 3 with an extension of that version, else
// 1 for grey models and 2 for colour ones), the payload's sections in
// order (the first layer's parameters, biases and output weights, the
// further layers', the local nodes', the direct links'), what Info reads
// of a header (LayerSizes, FileBytes, SecondFilters) and the checks of a
// model's slices against its shapes (Check). The bytes of the container
// are internal/modelfile's, whose doc describes the format.
//
// A model is also the recipe of sufficient statistics: the sums of its
// hidden outputs over images (Sums, fed to internal/suffstats' chunked
// products), an augmented local model's copies of each image (ForCopies,
// CheckCopies: copies.go says how local models' statistics are formed),
// two recipes compared (SameRecipe). Save writes a model or statistics
// atomically (internal/atomicfile), and Wrap is the "scn: what: err" of
// their errors.
//
// Package scn keeps the public API (Model.WriteTo, Read, Load, ReadInfo,
// Stats.Merge): a short adapter fills a Model from an scn.Model and back,
// and maps what only the root package knows (the fit's Config, the
// activation's and kind's names, the preprocessing record, the selection
// and budget records) to and from the header's fields.
//
// It imports internal/modelfile, internal/kind, internal/node,
// internal/deep, internal/localnet, internal/direct, internal/calib,
// internal/classweight, internal/augment, internal/drive, internal/lsq,
// internal/statsfile, internal/suffstats and internal/atomicfile, never
// package scn (the compiler refuses the cycle).
package modelrec
