package scn

import (
	"bytes"
	"context"
	"testing"
)

// The golden cases of every fit path besides the paper's one-node QR path
// (goldenCases): the default and fast presets of the four learners, the
// block engine's options one at a time (pairs, difference nodes, receptive
// fields, float64, float32 and bfloat16 Gram products, with and without a
// ridge), streamed fits, deep networks, model selection (hold-out and
// folds, in memory and streamed), a budget's replay, statistics and their
// solve, updates (the iterative and the direct solve), growth on a
// residual and robust output weights, on grey and on colour images. Each is
// small (at most a few hundred images of 10 x 8 or 12 x 10 x 3 pixels, tens
// of nodes) so that the whole golden test takes a second or two, also under
// -short and emulated.
//
// The fast preset turns on bfloat16 Gram products for the random learners
// where the CPU has AVX512-BF16 (linalg.BF16Available), which no platform
// class names; its cases set BF16Gram explicitly (the fast ones without,
// the bf16 ones with: bfloat16 sums are the same bits with or without the
// instructions), so that together they pin what Fast returns on any CPU.

// goldenGrey is the grey problem of the path cases: n images of 10 x 8
// pixels in 3 classes.
func goldenGrey(t testing.TB, n int) Problem { return blobProblem(t, n) }

// goldenColour is the colour problem of the path cases: n images of
// 12 x 10 pixels in 3 channels, 2 classes told apart by hue only.
func goldenColour(t testing.TB, n int) Problem {
	c, _ := hueProblem(t, n, 31)
	return c
}

// goldenRegression is a regression problem of n grey images of 10 x 8
// with two outputs (the blob problem's one-hot targets, scaled and
// shifted).
func goldenRegression(t testing.TB, n int) Problem {
	g := blobProblem(t, n)
	y := make([]float64, n*2)
	for i := range n {
		y[2*i] = 2*g.T[i*g.M] - g.T[i*g.M+1]
		y[2*i+1] = 0.5 + g.T[i*g.M+2]
	}
	p, err := Regression(g.X, y, 2)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// small shrinks a preset to a size the golden test affords: L nodes in
// blocks of b, the fast preset's receptive fields scaled to the images
// (as scn train does).
func small(c Config, l, b int, p Problem) Config {
	c.MaxNodes, c.BlockSize = l, b
	return c.ForImages(p.X.Rows, p.X.Cols)
}

// fitBytes fits c on p and returns the model's file bytes.
func fitBytes(t *testing.T, c Config, p Problem) []byte {
	t.Helper()
	m, err := c.Fit(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return modelBytes(t, m)
}

// pathCases returns the golden cases of the paths beyond the paper's.
func pathCases() []goldenCase {
	var cs []goldenCase
	add := func(name string, f func(t *testing.T) []byte) {
		cs = append(cs, goldenCase{name: name, bytes: f})
	}
	fit := func(name string, prob func(testing.TB, int) Problem, n int, cfg func(p Problem) Config) {
		add(name, func(t *testing.T) []byte {
			p := prob(t, n)
			return fitBytes(t, cfg(p), p)
		})
	}
	problems := []struct {
		name string
		prob func(testing.TB, int) Problem
	}{{"", goldenGrey}, {"colour-", goldenColour}}

	// The default and fast presets of the four learners, grey and colour.
	for _, pr := range problems {
		for _, k := range Kinds() {
			fit("default-"+pr.name+k.String(), pr.prob, 150, func(p Problem) Config {
				c := small(Default(k), 40, 10, p)
				return c
			})
			for _, bf := range []bool{false, true} {
				name := "fast-" + pr.name + k.String()
				if bf {
					if k.Choice == Supervised {
						continue // Fast never sets BF16Gram for them
					}
					name += "-bf16"
				}
				fit(name, pr.prob, 150, func(p Problem) Config {
					c := small(Fast(k), 40, 10, p)
					c.BF16Gram = bf
					return c
				})
			}
		}
	}

	// The block engine's options one at a time on the paper's nodes.
	block := func(k Kind, l, b int, edit func(*Config)) func(Problem) Config {
		return func(p Problem) Config {
			c := Paper(k)
			c.MaxNodes, c.BlockSize = l, b
			if edit != nil {
				edit(&c)
			}
			return c
		}
	}
	for _, pr := range problems {
		for _, k := range Kinds() {
			// float64 Gram products without a ridge: the block path of
			// random learners (not one-pass) and the supervised one.
			fit("block-"+pr.name+k.String(), pr.prob, 120, block(k, 30, 8, nil))
			// with a ridge: random learners take the one-pass path.
			fit("block-ridge-"+pr.name+k.String(), pr.prob, 120, block(k, 30, 8, func(c *Config) { c.Ridge = 0.5 }))
		}
		fit("pairs-"+pr.name+"2dscn", pr.prob, 120, block(SCN2D, 30, 6, func(c *Config) { c.Pairs = true }))
		fit("pairs-standardize-"+pr.name+"2dscn", pr.prob, 120, block(SCN2D, 30, 6, func(c *Config) { c.Pairs, c.Standardize, c.Scales = true, true, []float64{2} }))
		fit("fields-"+pr.name+"2drvfl", pr.prob, 120, block(RVFL2D, 30, 10, func(c *Config) { c.FieldMin, c.FieldMax = 3, 6 }))
		fit("fields-"+pr.name+"scn", pr.prob, 120, block(SCN, 30, 6, func(c *Config) { c.FieldMin, c.FieldMax = 3, 6 }))
		fit("differences-"+pr.name+"rvfl", pr.prob, 120, block(RVFL, 30, 10, func(c *Config) { c.Standardize, c.Differences, c.Scales, c.Ridge = true, true, []float64{2}, 0.1 }))
		fit("differences-"+pr.name+"2dscn", pr.prob, 120, block(SCN2D, 30, 6, func(c *Config) { c.Standardize, c.Differences, c.Scales = true, true, []float64{2} }))
		fit("float32-"+pr.name+"2dscn", pr.prob, 120, block(SCN2D, 30, 6, func(c *Config) { c.Float32Gram = true }))
		fit("float32-"+pr.name+"rvfl", pr.prob, 120, block(RVFL, 30, 10, func(c *Config) { c.Float32Gram, c.Ridge = true, 0.5 }))
		fit("bf16-"+pr.name+"scn", pr.prob, 120, block(SCN, 30, 6, func(c *Config) { c.BF16Gram = true }))
		fit("bf16-"+pr.name+"2drvfl", pr.prob, 120, block(RVFL2D, 30, 10, func(c *Config) { c.BF16Gram, c.Ridge = true, 0.5 }))
		fit("robust-"+pr.name+"2dscn", pr.prob, 120, block(SCN2D, 20, 5, func(c *Config) { c.Robust, c.Ridge = true, 0.1 }))
		fit("robust-onenode-"+pr.name+"rvfl", pr.prob, 120, func(Problem) Config {
			c := Paper(RVFL)
			c.MaxNodes, c.Robust = 30, true
			return c
		})
	}
	fit("regression-2dscn", goldenRegression, 120, block(SCN2D, 30, 6, func(c *Config) { c.Ridge = 0.1 }))
	fit("regression-fast-rvfl", goldenRegression, 120, func(p Problem) Config {
		c := small(Fast(RVFL), 40, 10, p)
		c.BF16Gram = false
		return c
	})
	fit("regression-onenode-scn", goldenRegression, 120, func(Problem) Config { c := Paper(SCN); c.MaxNodes = 30; return c })

	// Deep networks (grey only: the first layer takes grey images).
	fit("deep-2dscn", goldenGrey, 150, block(SCN2D, 20, 5, func(c *Config) { c.Layers = []int{10, 6}; c.Ridge = 0.1 }))
	fit("deep-rvfl", goldenGrey, 150, block(RVFL, 20, 10, func(c *Config) { c.Layers = []int{8}; c.Ridge = 0.1 }))
	fit("deep-default-scn", goldenGrey, 150, func(p Problem) Config {
		c := small(Default(SCN), 20, 5, p)
		c.Layers = []int{10}
		return c
	})

	// Streamed fits (shards of uneven sizes).
	stream := func(name string, prob func(testing.TB, int) Problem, cfg func(Problem) Config) {
		add(name, func(t *testing.T) []byte {
			p := prob(t, 150)
			m, err := cfg(p).FitStream(context.Background(), ProblemSource(p, 40, 70), nil)
			if err != nil {
				t.Fatal(err)
			}
			return modelBytes(t, m)
		})
	}
	for _, pr := range problems {
		for _, k := range Kinds() {
			stream("stream-fast-"+pr.name+k.String(), pr.prob, func(p Problem) Config {
				c := small(Fast(k), 30, 10, p)
				c.BF16Gram = false
				return c
			})
		}
		stream("stream-default-"+pr.name+"2dscn", pr.prob, func(p Problem) Config { return small(Default(SCN2D), 30, 10, p) })
		stream("stream-block-"+pr.name+"scn", pr.prob, block(SCN, 24, 8, func(c *Config) { c.Ridge = 0.5 }))
	}

	// Model selection: hold-out and folds, in memory and streamed.
	sel := func(name string, prob func(testing.TB, int) Problem, cfg func(Problem) Config, s Selection, streamed bool) {
		add(name, func(t *testing.T) []byte {
			p := prob(t, 150)
			var m *Model
			var err error
			if streamed {
				m, err = cfg(p).SelectStream(context.Background(), ProblemSource(p, 60), s, nil)
			} else {
				m, err = cfg(p).Select(context.Background(), p, s, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			return modelBytes(t, m)
		})
	}
	ridges := []float64{0, 0.01, 1}
	for _, pr := range problems {
		sel("select-holdout-default-"+pr.name+"2dscn", pr.prob, func(p Problem) Config { return small(Default(SCN2D), 30, 10, p) },
			Selection{Validation: 0.25, Ridges: ridges, Points: 6}, false)
		sel("select-folds-default-"+pr.name+"rvfl", pr.prob, func(p Problem) Config { return small(Default(RVFL), 30, 10, p) },
			Selection{Folds: 3, Ridges: ridges, Points: 6}, false)
		sel("select-holdout-paper-"+pr.name+"scn", pr.prob, func(Problem) Config { c := Paper(SCN); c.MaxNodes = 25; return c },
			Selection{Validation: 0.3, Points: 5}, false)
		sel("select-folds-paper-"+pr.name+"2drvfl", pr.prob, func(Problem) Config { c := Paper(RVFL2D); c.MaxNodes = 25; return c },
			Selection{Folds: 2, Ridges: ridges, Points: 5}, false)
		sel("select-patience-"+pr.name+"2drvfl", pr.prob, func(p Problem) Config { return small(Default(RVFL2D), 60, 10, p) },
			Selection{Validation: 0.25, Ridges: ridges, Points: 8, Patience: 2}, false)
		sel("select-stream-"+pr.name+"scn", pr.prob, func(p Problem) Config { return small(Default(SCN), 30, 10, p) },
			Selection{Validation: 0.25, Ridges: []float64{0.01, 1}, Points: 6}, true)
		sel("select-robust-"+pr.name+"2dscn", pr.prob, func(p Problem) Config {
			c := small(Default(SCN2D), 20, 10, p)
			c.Robust = true
			return c
		}, Selection{Validation: 0.25, Ridges: []float64{0.01, 1}, Points: 4}, false)
	}

	// A budget's fit on a fake clock and its replay (the same bytes, which
	// TestBudgetReplaySameBytes checks; here the replay's are pinned).
	// A budget's fit on a fake clock and its replay (the same bytes, which
	// TestBudgetReplaySameBytes checks; both are pinned): on a small set
	// (the default 2DSCN, checkpoints, selection) and on a large one (the
	// fast RVFL fitted in stages, the fit's own weights at a checkpoint).
	for _, b := range []struct {
		name  string
		n, l  int
		short bool
	}{{"budget-replay", 600, 300, true}, {"budget-replay-large", budgetLargeSet, 1500, false}} {
		cs = append(cs, goldenCase{name: b.name, slow: !b.short, bytes: func(t *testing.T) []byte {
			p := noisyProblem(t, b.n)
			m, _ := budgetRun(t, p, budgetSeconds(p, b.l), 2)
			r, err := Replay(context.Background(), m.Budget, m, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			return append(modelBytes(t, m), modelBytes(t, r)...)
		}})
	}
	// The staged one-pass fit a budget runs, on its own.
	fit("staged-fast-rvfl", goldenGrey, 150, func(p Problem) Config {
		c := small(Fast(RVFL), 50, 10, p)
		c.BF16Gram = false
		c.stages = func(done int) int { return 15 } // 15 nodes a stage: 2 blocks, rounded up
		return c
	})

	// Statistics, their solve and updates; Model.Robust and Grow.
	for _, pr := range problems {
		base := func(t *testing.T, p Problem, k Kind, ridge float64) *Model {
			c := small(Default(k), 30, 10, p)
			c.Ridge = ridge
			m, err := c.Fit(context.Background(), p, nil)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		add("stats-"+pr.name+"2drvfl", func(t *testing.T) []byte {
			p := pr.prob(t, 150)
			s, err := base(t, p, RVFL2D, 0.5).Stats(p)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if _, err := s.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		})
		for _, ridge := range []float64{0.5, 0} {
			suffix := ""
			if ridge == 0 {
				suffix = "-noridge"
			}
			add("stats-solve-"+pr.name+"scn"+suffix, func(t *testing.T) []byte {
				p := pr.prob(t, 150)
				s, err := base(t, p, SCN, 0.5).Stats(p)
				if err != nil {
					t.Fatal(err)
				}
				m, err := s.Solve(ridge)
				if err != nil {
					t.Fatal(err)
				}
				return modelBytes(t, m)
			})
		}
		// Update: few new images take the iterative solve, as many as the
		// old ones (or no ridge) the direct one.
		for _, u := range []struct {
			name     string
			ridge    float64
			old, new int
			factor   bool
		}{{"iterative", 0.5, 120, 20, false}, {"iterative-factor", 0.5, 120, 20, true}, {"direct", 0, 80, 80, false}} {
			add("update-"+u.name+"-"+pr.name+"2dscn", func(t *testing.T) []byte {
				p := pr.prob(t, u.old+u.new)
				a, b := subsetProblem(p, 0, u.old), subsetProblem(p, u.old, u.old+u.new)
				m := base(t, a, SCN2D, u.ridge)
				s, err := m.Stats(a)
				if err != nil {
					t.Fatal(err)
				}
				if u.factor {
					if err := s.Factorize(u.ridge); err != nil {
						t.Fatal(err)
					}
				}
				nm, ns, err := m.Update(s, b, true)
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if _, err := ns.WriteTo(&buf); err != nil {
					t.Fatal(err)
				}
				return append(modelBytes(t, nm), buf.Bytes()...)
			})
		}
		add("model-robust-"+pr.name+"scn", func(t *testing.T) []byte {
			p := pr.prob(t, 150)
			m, _, err := base(t, p, SCN, 0.1).Robust(p)
			if err != nil {
				t.Fatal(err)
			}
			return modelBytes(t, m)
		})
		add("grow-"+pr.name+"2dscn", func(t *testing.T) []byte {
			p := pr.prob(t, 150)
			a, b := subsetProblem(p, 0, 100), subsetProblem(p, 100, 150)
			m := base(t, a, SCN2D, 0.5)
			y, err := m.Predict(b.X)
			if err != nil {
				t.Fatal(err)
			}
			r := make([]float64, len(y))
			for i := range r {
				r[i] = b.T[i] - y[i]
			}
			g, err := m.Grow(context.Background(), b.X, r, 10, 7)
			if err != nil {
				t.Fatal(err)
			}
			s, err := g.Stats(p)
			if err != nil {
				t.Fatal(err)
			}
			sm, err := s.Solve(0.5)
			if err != nil {
				t.Fatal(err)
			}
			return append(modelBytes(t, g), modelBytes(t, sm)...)
		})
	}
	// Path.Solve at another ridge on the block path.
	add("path-solve-default-2drvfl", func(t *testing.T) []byte {
		p := goldenGrey(t, 150)
		path, err := small(Default(RVFL2D), 40, 10, p).FitPath(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := path.Solve(25, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		return modelBytes(t, m)
	})
	return cs
}
