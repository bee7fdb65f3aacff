package scn

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGrowthPastMaxNodes: on the SCN paper's 1D toy, whose held-out error
// keeps falling far past 40 random nodes of scale 80 (0.076 at 40, 0.035
// at 160, 1000 held-out points), growth chooses more than L_max and
// records its fits; without Grow the choice stays within L_max.
func TestGrowthPastMaxNodes(t *testing.T) {
	p := toyProblem(t, 4000)
	c := Paper(RVFL)
	c.MaxNodes, c.Scales, c.BlockSize, c.Ridge = 40, []float64{80}, 20, 1e-8
	sel := Selection{Validation: 0.25, Points: 16, Ridges: []float64{1e-8, 1e-6, 1e-3}}
	plain, err := c.Select(context.Background(), p, sel, nil)
	if err != nil {
		t.Fatal(err)
	}
	sel.Grow, sel.GrowLimit = true, 160
	m, err := c.Select(context.Background(), p, sel, nil)
	if err != nil {
		t.Fatal(err)
	}
	ch := m.Selection
	t.Logf("without growth L = %d (RMSE %.4g); with growth L = %d (RMSE %.4g): %s", plain.Nodes(), plain.Selection.RMSE, m.Nodes(), ch.RMSE, ch.Growth)
	if plain.Nodes() > 40 || m.Nodes() <= 40 || ch.Nodes != m.Nodes() || ch.RMSE >= plain.Selection.RMSE {
		t.Errorf("growth chose L = %d (held-out RMSE %.4g), without it %d (%.4g)", m.Nodes(), ch.RMSE, plain.Nodes(), plain.Selection.RMSE)
	}
	if !strings.HasPrefix(ch.Growth, "fits of 40, 80") || ch.FitNodes <= 40 {
		t.Errorf("growth record %q, fit %d nodes", ch.Growth, ch.FitNodes)
	}
	_, back := roundTrip(t, m)
	if back.Selection.Growth != ch.Growth {
		t.Errorf("growth record lost in the file: %q", back.Selection.Growth)
	}
	// The limit stops it.
	sel.GrowLimit = 80
	m, err = c.Select(context.Background(), p, sel, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Selection.Growth, "growth limit") || m.Selection.FitNodes != 80 {
		t.Errorf("limit 80: %q, fit %d nodes", m.Selection.Growth, m.Selection.FitNodes)
	}
	// So does Afford, with its reason.
	sel.GrowLimit = 0
	sel.Afford = func(n Config) error {
		if n.MaxNodes > 160 {
			return ErrConfig
		}
		return nil
	}
	m, err = c.Select(context.Background(), p, sel, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Selection.Growth, "memory limit") || m.Selection.FitNodes != 160 {
		t.Errorf("afford 160: %q, fit %d nodes", m.Selection.Growth, m.Selection.FitNodes)
	}
}

// TestGrowthStopsWhenWorse: on targets that are noise, the held-out error
// rises with L: no growth, and the reason is recorded, for a hold-out and
// k folds, classification and regression.
func TestGrowthStopsWhenWorse(t *testing.T) {
	p := blobProblem(t, 120)
	rng := rand.New(rand.NewPCG(4, 4))
	noise := make([]float64, p.X.Len())
	for i := range noise {
		noise[i] = rng.NormFloat64()
	}
	reg, err := Regression(p.X, noise, 1)
	if err != nil {
		t.Fatal(err)
	}
	shuffled := p
	shuffled.T = append([]float64(nil), p.T...)
	for i := p.X.Len() - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		for q := 0; q < p.M; q++ {
			shuffled.T[i*p.M+q], shuffled.T[j*p.M+q] = shuffled.T[j*p.M+q], shuffled.T[i*p.M+q]
		}
	}
	// Every prefix past a few nodes classifies the clean blobs perfectly:
	// the RMSE still falls with L, which is no reason to grow.
	for _, k := range []Kind{RVFL, SCN2D} {
		for name, prob := range map[string]Problem{"regression": reg, "classification": shuffled, "saturated": p} {
			for _, folds := range []int{0, 3} {
				c := Default(k)
				c.MaxNodes, c.BlockSize = 40, 10
				m, err := c.Select(context.Background(), prob, Selection{Validation: 0.25, Folds: folds, Points: 8, Grow: true}, nil)
				if err != nil {
					t.Fatal(err)
				}
				ch := m.Selection
				if ch.FitNodes > 40 || !strings.Contains(ch.Growth, "stopped") {
					t.Errorf("%v %s folds %d: fit %d nodes, growth %q", k, name, folds, ch.FitNodes, ch.Growth)
				}
			}
		}
	}
}

// TestGrowthStreamed: a streamed selection grows as the in-memory one
// does: the same fits, the same choice.
func TestGrowthStreamed(t *testing.T) {
	p := toyProblem(t, 4000)
	c := Paper(RVFL)
	c.MaxNodes, c.Scales, c.BlockSize, c.Ridge = 40, []float64{80}, 10, 1e-6
	sel := Selection{Validation: 0.25, Points: 16, Ridges: []float64{1e-6, 1e-3}, Grow: true, GrowLimit: 160}
	want, err := c.Select(context.Background(), p, sel, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.SelectStream(context.Background(), ProblemSource(p, 333, 667), sel, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Selection.Growth != want.Selection.Growth || got.Nodes() != want.Nodes() || got.Config.Ridge != want.Config.Ridge {
		t.Errorf("streamed growth %q chose %d nodes (ridge %g); in memory %q, %d (ridge %g)",
			got.Selection.Growth, got.Nodes(), got.Config.Ridge, want.Selection.Growth, want.Nodes(), want.Config.Ridge)
	}
	if want.Nodes() <= 40 {
		t.Errorf("no growth: %q", want.Selection.Growth)
	}
}
