package scn

// runOpts are how the drivers run a fit, as opposed to what they fit (the
// Config): set by the library's own callers (a Budget, a deep network's
// layers, model selection), passed down to the drivers by value and kept
// in the builders, never in a Config or a Model. A fitted model's Config
// holds hyper-parameters only (TestConfigHoldsNoRunOptions).
type runOpts struct {
	// blockByBlock keeps a random learner's block fit off the one-pass
	// path (a Budget needs every block's prefix while it fits; a deep
	// network's first layer, the hidden outputs for the next); the models
	// are the same bytes either way.
	blockByBlock bool
	// stages, when set (a Budget's), makes a one-pass fit go in stages:
	// given the nodes fitted so far, it returns how many the next stage
	// adds (0: stop the fit). See runStaged.
	stages func(done int) int
	// check, if set, is asked after every node (one-node path) or block
	// whether to stop: model selection's Patience and a Budget's clock.
	check func(*Path) bool
}

// onePassWith reports whether a fit of c run with o takes the one-pass
// path (onePass, unless o keeps it block by block).
func (c Config) onePassWith(o runOpts) bool { return !o.blockByBlock && c.onePass() }
