package scn

// ShrinkKeep names the settings Config.ShrinkToFit must leave as they are
// (those a user gave explicitly).
type ShrinkKeep struct {
	BlockSize  bool
	Candidates bool
}

// MinShrinkCandidates is the fewest candidates per node ShrinkToFit lowers
// a supervised block fit to: with two the supervisory inequality still
// chooses among candidates.
const MinShrinkCandidates = 2

// minShrinkBlock is the smallest block ShrinkToFit halves down to.
const minShrinkBlock = 8

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
// and whether it fits. When nothing fits it returns c and false.
func (c Config) ShrinkToFit(fits func(Config) bool, keep ShrinkKeep) (Config, bool) {
	if c.BlockSize <= 1 {
		return c, fits(c)
	}
	for cand := c; ; {
		for blk := cand; ; blk.BlockSize /= 2 {
			if fits(blk) {
				return blk, true
			}
			if keep.BlockSize || blk.BlockSize <= minShrinkBlock {
				break
			}
		}
		if keep.Candidates || cand.Kind.Choice != Supervised || cand.Candidates/2 < MinShrinkCandidates {
			return c, false
		}
		cand.Candidates /= 2
	}
}

// ShrinkSmallest returns c with the smallest block and fewest candidates
// per node ShrinkToFit tries (the last configuration it would try).
func (c Config) ShrinkSmallest(keep ShrinkKeep) Config {
	for !keep.BlockSize && c.BlockSize > minShrinkBlock {
		c.BlockSize /= 2
	}
	for !keep.Candidates && c.BlockSize > 1 && c.Kind.Choice == Supervised && c.Candidates/2 >= MinShrinkCandidates {
		c.Candidates /= 2
	}
	return c
}
