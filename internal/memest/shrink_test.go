package memest

import "testing"

// TestShrink: the policy's order on plain settings (the block halved down
// to 8, then the candidates halved with the largest block again), the
// settings kept, and the smallest settings it tries.
func TestShrink(t *testing.T) {
	under := func(limit int) func(Shrink) bool {
		return func(s Shrink) bool { return s.Block*s.Candidates <= limit }
	}
	sup := Shrink{Block: 512, Candidates: 64, Supervised: true}
	for _, c := range []struct {
		limit int
		keep  ShrinkKeep
		want  Shrink
		ok    bool
	}{
		{512 * 64, ShrinkKeep{}, sup, true},
		{256 * 64, ShrinkKeep{}, Shrink{256, 64, true}, true},
		{300, ShrinkKeep{}, Shrink{8, 32, true}, true},
		{300, ShrinkKeep{Candidates: true}, sup, false},
		{512 * 32, ShrinkKeep{BlockSize: true}, Shrink{512, 32, true}, true},
		{15, ShrinkKeep{}, sup, false},
	} {
		if got, ok := sup.Fit(under(c.limit), c.keep); got != c.want || ok != c.ok {
			t.Errorf("limit %d, keep %+v: %+v %v, want %+v %v", c.limit, c.keep, got, ok, c.want, c.ok)
		}
	}
	rnd := Shrink{Block: 512, Candidates: 1}
	if got, ok := rnd.Fit(under(64), ShrinkKeep{}); got != (Shrink{64, 1, false}) || !ok {
		t.Errorf("random: %+v %v", got, ok)
	}
	if got, ok := (Shrink{Block: 1, Candidates: 8, Supervised: true}).Fit(under(0), ShrinkKeep{}); ok || got.Block != 1 || got.Candidates != 8 {
		t.Errorf("no blocks: %+v %v", got, ok)
	}
	if s := sup.Smallest(ShrinkKeep{}); s != (Shrink{8, MinShrinkCandidates, true}) {
		t.Errorf("smallest %+v", s)
	}
	if s := sup.Smallest(ShrinkKeep{BlockSize: true}); s != (Shrink{512, MinShrinkCandidates, true}) {
		t.Errorf("smallest with the block kept %+v", s)
	}
}
