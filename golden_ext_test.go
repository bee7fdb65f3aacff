package scn

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// The golden cases of this round's extensions (extensionCases): local
// (convolutional) nodes for the four learners, grey and colour, with
// several filter sizes, average and max pooling, patch whitening and the
// photo preset; two layers; a photo budget and a budget's probe on grey
// images; augmented copies; local statistics and their solve;
// streamed local fits; model selection over local nodes; direct links;
// class weights; calibrated probabilities and conformal intervals. Like
// pathCases they are small (150 images of 10 x 8 or 12 x 10 x 3, a few
// filters), so that they run under -short and emulated.

// extensionCases returns the golden cases of local nodes, augmentation,
// direct links, class weights, calibration and intervals.
func extensionCases() []goldenCase {
	var cs []goldenCase
	add := func(name string, f func(t *testing.T) []byte) {
		cs = append(cs, goldenCase{name: name, bytes: f})
	}
	problems := []struct {
		name string
		prob func(testing.TB, int) Problem
	}{{"", goldenGrey}, {"colour-", goldenColour}}
	fit := func(name string, prob func(testing.TB, int) Problem, cfg func() Config) {
		add(name, func(t *testing.T) []byte {
			p := prob(t, 150)
			return fitBytes(t, cfg(), p)
		})
	}
	selected := func(name string, prob func(testing.TB, int) Problem, cfg func() Config, s Selection) {
		add(name, func(t *testing.T) []byte {
			p := prob(t, 150)
			m, err := cfg().Select(context.Background(), p, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			return modelBytes(t, m)
		})
	}
	edited := func(k Kind, edit func(*Config)) func() Config {
		return func() Config {
			c := localConfig(k)
			edit(&c)
			return c
		}
	}

	for _, pr := range problems {
		// Local nodes of every learner: two filter sizes, average pooling
		// (localConfig), random and chosen on the residual.
		for _, k := range Kinds() {
			fit("local-"+pr.name+k.String(), pr.prob, func() Config { return localConfig(k) })
		}
		// Two layers of local nodes: random, and the second layer chosen
		// on the residual; both layers' outputs, or the second's only.
		fit("local2-"+pr.name+"2drvfl", pr.prob, func() Config { return secondConfig(RVFL2D) })
		fit("local2-"+pr.name+"scn", pr.prob, func() Config { return secondConfig(SCN) })
		fit("local2-second-only-"+pr.name+"2dscn", pr.prob, func() Config {
			c := secondConfig(SCN2D)
			c.Local.Second.Concat, c.Local.Second.MidPooling = false, PoolAvg
			return c
		})
		// Max and average-plus-max pooling, strides, no padding.
		fit("local-avgmax-"+pr.name+"2dscn", pr.prob, edited(SCN2D, func(c *Config) {
			c.Local.Pooling, c.Local.Sizes = PoolAvgMax, []int{3}
		}))
		fit("local-max-stride-"+pr.name+"rvfl", pr.prob, edited(RVFL, func(c *Config) {
			c.Local.Pooling, c.Local.Stride, c.Local.Pad, c.Local.Sizes = PoolMax, 2, 0, []int{3}
		}))
		// Patch whitening folded into the filters.
		fit("local-whiten-"+pr.name+"2drvfl", pr.prob, edited(RVFL2D, func(c *Config) {
			c.Local.Whiten, c.Local.WhitenEps = true, 0.1
		}))
		fit("local-whiten-"+pr.name+"2dscn", pr.prob, edited(SCN2D, func(c *Config) {
			c.Local.Whiten, c.Local.WhitenEps = true, 0.1
		}))
		// Augmented copies (flips and shifts) in the Gram sums.
		fit("local-augment-"+pr.name+"2drvfl", pr.prob, edited(RVFL2D, func(c *Config) {
			c.Ridge, c.Augment = 0.5, &Augment{Flip: true, Shift: 2, Copies: 2}
		}))
		fit("local-augment-"+pr.name+"2dscn", pr.prob, edited(SCN2D, func(c *Config) {
			c.Ridge, c.Augment = 0.5, &Augment{Flip: true, Shift: 1, Copies: 1}
		}))
		// Local statistics and their solve at another ridge term.
		add("local-stats-solve-"+pr.name+"2drvfl", func(t *testing.T) []byte {
			p := pr.prob(t, 150)
			c := localConfig(RVFL2D)
			c.Ridge = 0.5
			s, err := fitT(t, c, p).Stats(p)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if _, err := s.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			m, err := s.Solve(2)
			if err != nil {
				t.Fatal(err)
			}
			return append(buf.Bytes(), modelBytes(t, m)...)
		})
		// A streamed local fit (shards of uneven sizes).
		add("local-stream-"+pr.name+"2drvfl", func(t *testing.T) []byte {
			p := pr.prob(t, 150)
			m, err := localConfig(RVFL2D).FitStream(context.Background(), ProblemSource(p, 40, 70), nil)
			if err != nil {
				t.Fatal(err)
			}
			return modelBytes(t, m)
		})
		// Model selection over local nodes (the ridge and the filters'
		// prefix on a hold-out), calibrated.
		selected("local-select-"+pr.name+"2drvfl", pr.prob, func() Config { return localConfig(RVFL2D) },
			Selection{Validation: 0.25, Ridges: []float64{0.01, 1}, Points: 4})
		// The presets' photo choice (on the colour images only: the grey
		// ones are not photos), bfloat16 off as in the fast cases.
		if pr.name != "" {
			for _, preset := range []struct {
				name string
				cfg  Config
			}{{"default", Default(SCN2D)}, {"fast", Fast(RVFL)}} {
				add("photo-"+preset.name+"-"+pr.name+"preset", func(t *testing.T) []byte {
					p := pr.prob(t, 150)
					c, ok := preset.cfg.ForPhotos(p.X.Len(), p.X.Rows, p.X.Cols, p.X.Chans())
					if !ok {
						t.Fatal("the colour problem is not a photo to ForPhotos")
					}
					c.BF16Gram = false
					c.Local.Filters = 12
					c.MaxNodes = c.Local.Outputs()
					return fitBytes(t, c, p)
				})
			}
		}

		// Direct links (the input's pooled pixels beside the hidden
		// outputs), fitted and selected.
		selected("direct-select-"+pr.name+"2dscn", pr.prob, func() Config {
			c := Default(SCN2D)
			c.MaxNodes, c.BlockSize, c.DirectLink = 30, 10, true
			return c
		}, Selection{Validation: 0.25, Ridges: []float64{0.01, 1}, Points: 5})
		selected("direct-select-"+pr.name+"rvfl", pr.prob, func() Config {
			c := Paper(RVFL)
			c.MaxNodes, c.DirectLink = 25, true
			return c
		}, Selection{Folds: 3, Ridges: []float64{0.1, 1}, Points: 5, TryDirect: true})

		// Class weights (the first class weighs 3 times the others),
		// calibrated or not.
		for _, cal := range []bool{false, true} {
			name := "classweights-" + pr.name + "2drvfl"
			if !cal {
				name += "-uncalibrated"
			}
			selected(name, pr.prob, func() Config {
				c := Default(RVFL2D)
				c.MaxNodes, c.BlockSize = 30, 10
				return c
			}, Selection{Validation: 0.25, Ridges: []float64{0.1}, Points: 4, Uncalibrated: !cal, ClassWeights: classWeightsFor(pr.name)})
		}
	}

	// A budget on photos (fake clock, fixed rates): local nodes, the ridge
	// term chosen on held-out images; and its replay.
	add("budget-photos-replay", func(t *testing.T) []byte {
		p := goldenColour(t, 60)
		clk := newFakeClock()
		b := Budget{Duration: 3 * time.Second, Now: clk.now, Rates: &Rates{Score: 1e-8, Chol: 1e-8}, Seed: 3}
		m, err := b.Fit(context.Background(), p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.Local == nil || m.Selection == nil {
			t.Fatalf("the photo budget fitted no local nodes or chose no ridge (local %v, selection %v)", m.Local != nil, m.Selection != nil)
		}
		r, err := Replay(context.Background(), m.Budget, m, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		return append(modelBytes(t, m), modelBytes(t, r)...)
	})

	// A budget's probe of local against global nodes on grey images (fake
	// clock): local nodes win on shifted patterns, global ones on classes
	// linear in the pixels; each with its replay.
	for _, g := range []struct {
		name string
		prob func(testing.TB, int, int) Problem
	}{{"local", shiftedProblem}, {"global", linearProblem}} {
		add("budget-grey-probe-"+g.name, func(t *testing.T) []byte {
			p := g.prob(t, 600, 20)
			m := greyBudget(t, p, 500, 2)
			r, err := Replay(context.Background(), m.Budget, m, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			return append(modelBytes(t, m), modelBytes(t, r)...)
		})
	}

	// Conformal intervals on a regression, at two coverages.
	for _, cov := range []struct {
		name string
		c    float64
	}{{"90", 0.9}, {"50", 0.5}} {
		selected("interval-"+cov.name+"-2dscn", goldenRegression, func() Config {
			c := Default(SCN2D)
			c.MaxNodes, c.BlockSize = 30, 10
			return c
		}, Selection{Validation: 0.3, Ridges: []float64{0.1}, Points: 4, Coverage: cov.c})
	}
	return cs
}

// classWeightsFor returns the class weights of the class-weight cases: 3
// for the first class, 1 for the others (3 classes grey, 2 colour).
func classWeightsFor(problem string) []float64 {
	if problem == "" {
		return []float64{3, 1, 1}
	}
	return []float64{3, 1}
}
