// Package fitcfg holds the checks of the scn package's fit configuration
// (scn.Config.Validate): the ranges of every hyper-parameter, what the
// options need of each other, and what further layers (Config.Layers),
// local nodes (Config.Local) and augmentation (Config.Augment) cannot be
// combined with. The root fills a Spec, plain data, from its Config and
// returns Validate's error as it is: every message is the one users see.
//
// It also owns the limits that keep a mistyped flag from asking for
// terabytes (MaxNodes, MaxCandidates), the block-engine test (BlockMode)
// and the error of what deep models do not support (ErrDeep, scn.ErrDeep).
//
// It may import internal/cfgerr (the configuration error), internal/kind
// (the learners), internal/node (the activations), internal/deep (the
// layer sizes' check), internal/localnet (the local geometry's check) and
// internal/augment (the augmentation's check); never the root package.
package fitcfg
