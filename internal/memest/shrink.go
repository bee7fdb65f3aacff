package memest

// ShrinkKeep names the settings Shrink.Fit must leave as they are (those a
// user gave explicitly).
type ShrinkKeep struct {
	BlockSize  bool
	Candidates bool
}

// MinShrinkCandidates is the fewest candidates per node Shrink.Fit lowers
// a supervised block fit to: with two the supervisory inequality still
// chooses among candidates.
const MinShrinkCandidates = 2

// minShrinkBlock is the smallest block Shrink.Fit halves down to.
const minShrinkBlock = 8

// Shrink is what the memory limit's shrink policy may change in a block
// fit's configuration: its block size and its candidates per node (of a
// supervised learner).
type Shrink struct {
	Block, Candidates int
	Supervised        bool
}

// Fit is the policy for fitting a block fit into a memory limit: it
// returns the first settings, in the order below, that fits accepts, and
// whether one does. s itself comes first; then s with a smaller block
// (halving while over 8: a supervised block's candidates' outputs grow
// with the block); then, for a supervised learner, with fewer candidates
// per node (halving, down to MinShrinkCandidates), each with the largest
// block that fits. Settings in keep are left alone. Without blocks (Block
// <= 1) there is nothing to shrink: s, and whether it fits. When nothing
// fits it returns s and false.
func (s Shrink) Fit(fits func(Shrink) bool, keep ShrinkKeep) (Shrink, bool) {
	if s.Block <= 1 {
		return s, fits(s)
	}
	for cand := s; ; {
		for blk := cand; ; blk.Block /= 2 {
			if fits(blk) {
				return blk, true
			}
			if keep.BlockSize || blk.Block <= minShrinkBlock {
				break
			}
		}
		if keep.Candidates || !cand.Supervised || cand.Candidates/2 < MinShrinkCandidates {
			return s, false
		}
		cand.Candidates /= 2
	}
}

// Smallest returns s with the smallest block and fewest candidates per
// node Fit tries (the last settings it would try).
func (s Shrink) Smallest(keep ShrinkKeep) Shrink {
	for !keep.BlockSize && s.Block > minShrinkBlock {
		s.Block /= 2
	}
	for !keep.Candidates && s.Block > 1 && s.Supervised && s.Candidates/2 >= MinShrinkCandidates {
		s.Candidates /= 2
	}
	return s
}
