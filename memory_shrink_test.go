package scn

import "testing"

// TestShrinkToFit: the order of the shrink policy (the block halved down
// to 8, then the candidates halved, each with the largest block that
// fits), the settings kept, and the answer when nothing fits, against a
// cost that grows with block x candidates.
func TestShrinkToFit(t *testing.T) {
	cost := func(c Config) int { return c.BlockSize * c.Candidates }
	under := func(limit int) func(Config) bool {
		return func(c Config) bool { return cost(c) <= limit }
	}
	sup := Default(SCN2D)
	sup.BlockSize, sup.Candidates = 512, 64
	rnd := Default(RVFL2D)
	rnd.BlockSize, rnd.Candidates = 512, 1
	type want struct {
		block, cands int
		ok           bool
	}
	cases := []struct {
		name  string
		c     Config
		limit int
		keep  ShrinkKeep
		want  want
	}{
		{"fits as it is", sup, 512 * 64, ShrinkKeep{}, want{512, 64, true}},
		{"half the block", sup, 256 * 64, ShrinkKeep{}, want{256, 64, true}},
		{"smallest block", sup, 8 * 64, ShrinkKeep{}, want{8, 64, true}},
		// 8 x 64 = 512 > 300: fewer candidates, the largest block again.
		{"fewer candidates", sup, 300, ShrinkKeep{}, want{8, 32, true}},
		{"largest block with fewer candidates", sup, 512 * 32, ShrinkKeep{BlockSize: true}, want{512, 32, true}},
		{"block kept, nothing fits", sup, 512*32 - 1, ShrinkKeep{BlockSize: true, Candidates: true}, want{512, 64, false}},
		{"candidates kept", sup, 300, ShrinkKeep{Candidates: true}, want{512, 64, false}},
		{"smallest of all", sup, 8 * 2, ShrinkKeep{}, want{8, 2, true}},
		{"below the smallest", sup, 15, ShrinkKeep{}, want{512, 64, false}},
		{"random: block only", rnd, 64, ShrinkKeep{}, want{64, 1, true}},
		{"random: nothing fits", rnd, 7, ShrinkKeep{}, want{512, 1, false}},
	}
	for _, c := range cases {
		got, ok := c.c.ShrinkToFit(under(c.limit), c.keep)
		if g := (want{got.BlockSize, got.Candidates, ok}); g != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, g, c.want)
		}
		if ok && cost(got) > c.limit {
			t.Errorf("%s: a configuration over the limit accepted", c.name)
		}
	}
	// Without blocks there is nothing to shrink.
	one := Default(SCN)
	one.BlockSize = 1
	if got, ok := one.ShrinkToFit(func(Config) bool { return false }, ShrinkKeep{}); ok || got.BlockSize != 1 || got.Candidates != one.Candidates {
		t.Errorf("no blocks: %d %d %v", got.BlockSize, got.Candidates, ok)
	}
	// ShrinkSmallest is the last configuration ShrinkToFit tries.
	if s := sup.ShrinkSmallest(ShrinkKeep{}); s.BlockSize != 8 || s.Candidates != MinShrinkCandidates {
		t.Errorf("smallest %d x %d", s.BlockSize, s.Candidates)
	}
	if s := sup.ShrinkSmallest(ShrinkKeep{BlockSize: true}); s.BlockSize != 512 || s.Candidates != MinShrinkCandidates {
		t.Errorf("smallest, block kept: %d x %d", s.BlockSize, s.Candidates)
	}
	if s := rnd.ShrinkSmallest(ShrinkKeep{}); s.BlockSize != 8 || s.Candidates != 1 {
		t.Errorf("smallest random: %d x %d", s.BlockSize, s.Candidates)
	}
}
