package scn

import (
	"github.com/scn2d/scn/internal/suffstats"
	"testing"

	"github.com/scn2d/scn/internal/lsq"
)

// TestEstimateStatsCounts: EstimateStats counts the statistics that
// Model.Stats and Stats.Factorize make for a fitted model, part by part:
// G, H^T T and T^T T of the model's hidden outputs (global nodes, local
// nodes, direct links' features included), a chunk of its hidden outputs,
// and with the factor its L x L copy and the packed factor; deep
// configurations have none.
func TestEstimateStatsCounts(t *testing.T) {
	p := blobProblem(t, 120)
	global := Default(RVFL2D)
	global.MaxNodes, global.BlockSize = 30, 10
	direct := global
	direct.DirectLink = true
	deep := Default(SCN)
	deep.MaxNodes, deep.Layers = 10, []int{10}
	for name, c := range map[string]Config{"global": global, "direct": direct, "local": localConfig(RVFL2D), "deep": deep} {
		sh := Shape{N: p.X.Len(), Rows: p.X.Rows, Cols: p.X.Cols, Channels: 1, Labels: true, Classes: p.M}
		if len(c.Layers) > 0 {
			if got := c.EstimateStats(sh, true); got != 0 {
				t.Errorf("%s: %d bytes for a deep configuration's statistics, want 0", name, got)
			}
			continue
		}
		m := fitT(t, c, p)
		st, err := m.Stats(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Factorize(1); err != nil {
			t.Fatal(err)
		}
		l, mm, n := int64(st.Nodes()), int64(st.M), int64(p.X.Len())
		sums := 8 * (int64(len(st.G)) + int64(len(st.HT)) + int64(len(st.TT)) + l*n)
		if got := c.EstimateStats(sh, false); got != sums || l*l != int64(len(st.G)) || mm != int64(p.M) {
			t.Errorf("%s: %d bytes estimated without the factor, want %d (L = %d)", name, got, sums, l)
		}
		factor := sums + 8*l*l + 8*int64(lsq.PackedLen(int(l)))
		if got := c.EstimateStats(sh, true); got != factor || int64(len(suffstats.Values(st.Factor))) != int64(lsq.PackedLen(int(l))) {
			t.Errorf("%s: %d bytes estimated with the factor, want %d (L = %d)", name, got, factor, l)
		}
	}
}
