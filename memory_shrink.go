package scn

import "github.com/scn2d/scn/internal/memest"

// ShrinkKeep names the settings Config.ShrinkToFit must leave as they are
// (those a user gave explicitly).
type ShrinkKeep = memest.ShrinkKeep

// MinShrinkCandidates is the fewest candidates per node ShrinkToFit lowers
// a supervised block fit to: with two the supervisory inequality still
// chooses among candidates.
const MinShrinkCandidates = memest.MinShrinkCandidates

// ShrinkToFit is the policy for fitting a block fit into a memory limit:
// it returns the first configuration, in the order below, that fits
// accepts (fits says whether a configuration's estimate is within the
// limit; the caller counts what it holds beside the fit), and whether one
// does. c itself comes first; then c with a smaller block (halving while
// over 8: a supervised block's candidates' outputs grow with the block);
// then, for a supervised learner, with fewer candidates per node (halving,
// down to MinShrinkCandidates), each with the largest block that fits.
// Settings in keep are left alone. Only the block size and the candidates
// change, and they change neither what a node is nor the model's file
// format. Without blocks (BlockSize <= 1) there is nothing to shrink: c,
// and whether it fits. When nothing fits it returns c and false
// (internal/memest's Shrink.Fit).
func (c Config) ShrinkToFit(fits func(Config) bool, keep ShrinkKeep) (Config, bool) {
	s, ok := c.shrink().Fit(func(s memest.Shrink) bool { return fits(c.shrunk(s)) }, keep)
	return c.shrunk(s), ok
}

// ShrinkSmallest returns c with the smallest block and fewest candidates
// per node ShrinkToFit tries (the last configuration it would try).
func (c Config) ShrinkSmallest(keep ShrinkKeep) Config {
	return c.shrunk(c.shrink().Smallest(keep))
}

// shrink returns what the shrink policy may change in c.
func (c Config) shrink() memest.Shrink {
	return memest.Shrink{Block: c.BlockSize, Candidates: c.Candidates, Supervised: c.Kind.Choice == Supervised}
}

// shrunk returns c with the block and candidates of s.
func (c Config) shrunk(s memest.Shrink) Config {
	c.BlockSize, c.Candidates = s.Block, s.Candidates
	return c
}
