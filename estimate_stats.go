package scn

import (
	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/suffstats"
)

// EstimateStats returns the memory the statistics of a model of c over a
// training set of shape sh take beside the set and the model (scn train
// --stats-out: Model.Stats, then with factor Stats.Factorize, then
// Stats.Save), at their peak: G (L x L float64, L the hidden outputs the
// output layer reads, direct links' features included), H^T T and T^T T,
// a chunk of float64 hidden outputs (up to suffstats.Chunk images), and with factor
// the factorization's L x L copy and the packed factor it is copied into
// (lsq.PackedLen), held together at its end. The fit that comes before
// has freed its own buffers by then, so the peak of a fit with statistics
// is the larger of the two. L is the configuration's: its local outputs,
// or MaxNodes (a selection that grows past it has more). Deep
// configurations have no statistics: 0.
func (c Config) EstimateStats(sh Shape, factor bool) int64 {
	if len(c.Layers) > 0 {
		return 0
	}
	l := c.MaxNodes
	if c.Local != nil {
		l = c.Local.Outputs()
	}
	if c.DirectLink {
		ch := max(sh.Channels, 1)
		l += direct.Dim(ch, sh.Rows, sh.Cols, direct.Plan(sh.N, ch, sh.Rows, sh.Cols))
	}
	return suffstats.Bytes(l, sh.Outputs(), sh.N, factor)
}
