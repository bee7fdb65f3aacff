package scn

import "github.com/scn2d/scn/internal/drive"

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

// fitMode is the driver a fit takes (drive.Mode): the one dispatch of the
// package. Fit, FitPath, FitStream, Select, the memory estimates and a
// Budget ask Config.mode which it is, and nothing else decides it.
type fitMode = drive.Mode

const (
	modeOneNode = drive.ModeOneNode // the paper's path (drive.OneNode)
	modeBlock   = drive.ModeBlock   // the block engine, block by block (drive_block.go)
	modeOnePass = drive.ModeOnePass // the block engine in one pass (drive_onepass.go)
	modeDeep    = drive.ModeDeep    // layers of nodes (deep.go)
	modeLocal   = drive.ModeLocal   // local (convolutional) nodes (fit_local.go)
)

// mode returns the driver a fit of c run with o takes: local nodes, layers,
// the one-node path unless an option needs the block engine (blockMode),
// then one pass for random learners with a ridge (onePass) unless o keeps
// the fit block by block.
func (c Config) mode(o runOpts) fitMode {
	return drive.ModeOf(c.Local != nil, len(c.Layers) > 0, c.blockMode(), c.onePassWith(o))
}
