// Package scnbeam computes the sufficient statistics of a model's output
// layer (scn.Stats, the .scnstats file) on Apache Beam: a source of shards
// (image files matched by a glob), a ParDo that sums each shard with the
// library's own function (scn.Model.Stats), a combine that adds the
// shards' sums keyed by tiles of G = H^T H (so that no element is L x L),
// reducing in shard order so that the bytes do not depend on the number of
// workers or bundles, and a final step that writes the statistics file
// atomically and, if asked, solves it. See docs/beam.md.
//
// It is a module of its own (github.com/scn2d/scn/beam) so that the core
// module keeps its small dependency list; cmd/scn-beam is its command.
package scnbeam
