package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/augment"
	"github.com/scn2d/scn/internal/cfgerr"
	"github.com/scn2d/scn/internal/fitcfg"
	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/node"
)

// Activation is the hidden nodes' activation function g.
type Activation int

const (
	// Sigmoid is g(t) = 1/(1+e^-t), the method's default.
	Sigmoid Activation = iota
	// Tanh is g(t) = tanh(t).
	Tanh
	// ReLU is g(t) = max(0, t).
	ReLU
)

// String returns the activation's name (node.Activation's String).
func (a Activation) String() string { return node.Activation(a).String() }

// ParseActivation reads an activation's name ("sigmoid", "tanh", "relu").
func ParseActivation(s string) (Activation, error) {
	a, err := node.ParseActivation(s)
	return Activation(a), err
}

// Config holds a fit's hyper-parameters. Nothing fitted is ever stored in it.
// Start from Paper (the published settings) or Fast and change fields.
type Config struct {
	// Kind is the learner: SCN2D, SCN, RVFL2D or RVFL.
	Kind Kind
	// MaxNodes is L_max, the number of hidden nodes at most (>= 1).
	MaxNodes int
	// Tolerance stops a supervised build once the training RMSE,
	// ||e||_F / sqrt(N*m), is at or below it. 0 never stops early.
	// Random learners always add MaxNodes nodes.
	Tolerance float64
	// Candidates is T_max, the candidates drawn per scale (>= 1).
	Candidates int
	// Redraw draws new T_max candidates for every (lambda, r) pair, as the
	// paper's Algorithm 1 states the search (SPEC.md section 2); false (the
	// presets) draws them once per lambda and reuses them for every r, as
	// the authors' SCN code does. On the paper's own E1 data the paper's
	// 2DSCN figures are those of Redraw (docs/e1-gap.md). One-node
	// supervised fits only.
	Redraw bool
	// Scales is the list Upsilon of scales lambda, tried in order; weights
	// and biases are uniform on [-lambda, lambda]. Random learners use
	// Scales[0] only.
	Scales []float64
	// Ratios is the increasing list R of contraction factors r in (0, 1).
	// Random learners ignore it.
	Ratios []float64
	// Activation is g; Sigmoid by default.
	Activation Activation
	// Seed fixes every random draw: the same seed gives the same model, bit
	// for bit, whatever the number of goroutines.
	Seed uint64
	// Ridge adds Ridge*||beta||^2 to the final least-squares problem for the
	// output weights. 0 (the default) gives the minimum-norm least-squares
	// solution pinv(H) T. The node search always uses plain least squares.
	Ridge float64
	// BlockSize is the number of nodes added per step. 0 or 1 adds one node
	// at a time with the exact QR least squares of the paper; above 1 a step
	// adds a block of up to BlockSize nodes (block increments: a supervised
	// step keeps the BlockSize admissible candidates of Candidates x
	// BlockSize with the largest sum of xi) and the least squares is the
	// Gram/Cholesky block engine, whose residual is the regularised one,
	// T - H beta_Ridge. FieldMin, Standardize and Float32Gram also select
	// the block engine (with blocks of BlockSize, at least 1).
	BlockSize int
	// FieldMin and FieldMax turn on receptive fields: each node sees a
	// random rectangle of the image whose sides have lengths uniform on
	// [FieldMin, FieldMax] (clipped to the image); its weights are zero
	// elsewhere (u and v on random intervals of rows and columns for matrix
	// nodes). 0 and 0: nodes see the whole image.
	FieldMin, FieldMax int
	// Standardize draws node weights standard normal and then scales each
	// node so that its input w^T x is centred and has spread lambda (the
	// scale) over the training images, before its bias uniform on
	// [-lambda, lambda]; the pixel covariance is estimated on the first
	// 10000 training images.
	Standardize bool
	// Differences draws each node's weights from the data instead of at
	// random ("constrained" weights: Zhu, Miao, Qing, Huang, "Constrained
	// extreme learning machines", IJCNN 2014; with receptive fields,
	// McDonnell et al., PLoS ONE 10(8) e0134254, 2015): the difference
	// x_a - x_b of two random training images of different classes (any two
	// images for regression), restricted to the node's receptive field. A
	// vector node takes it as w; a matrix node takes its best rank-1
	// approximation (u and v from the leading singular pair of the patch,
	// so the node stays u^T X v). Such nodes point along directions that
	// separate classes: on MNIST they gain about 1.5 points over random
	// nodes at L = 2000 (see the README). Needs Standardize, which then
	// sets each node's scale from the data.
	Differences bool
	// Float32Gram forms the block engine's Gram products H^T H in float32
	// within row shards of 2048 images (the hidden outputs are float32
	// already), summed over shards in float64; false forms them in float64.
	Float32Gram bool
	// BF16Gram forms the block engine's Gram products H^T H and H^T T from
	// the hidden outputs rounded to bfloat16 (8 significant bits), summed
	// in float32 within row shards of 2048 images and in float64 over them
	// (so it implies Float32Gram's sums); prediction uses the outputs
	// unrounded. On CPUs with AVX512-BF16 (AMD Zen 4, Intel Cooper Lake,
	// Sapphire Rapids and later; linalg.BF16Available) the products run
	// at about twice the float32 rate, and Fast turns it on there for the
	// random learners: on Fashion-MNIST at L = 10000 the test accuracy was
	// 89.22% against 89.24% in float32 (see the README). A supervised
	// learner judges candidates against the residual of the rounded
	// outputs, and the rounding changes which pass: 2DSCN fast on MNIST
	// lost 0.1 point at equal L (for 20% less time), and on Fashion-MNIST
	// stopped for want of admissible candidates before 1500 nodes, so Fast
	// keeps float32 for them. Elsewhere a Go loop forms the same sums, with
	// the same bits, far more slowly.
	BF16Gram bool
	// Pairs draws a 2DSCN block step's candidates as all T_u x T_v pairs
	// of T_u row vectors u and T_v column vectors v (T_u = T_v = the
	// ceiling of sqrt(Candidates x BlockSize)), scored with one product
	// X v per column vector: many more candidates for the same time. Only
	// for the supervised matrix learner (2DSCN).
	Pairs bool
	// StopAtRank makes a supervised learner stop ("no admissible
	// candidate") once every admissible candidate is (nearly) dependent on
	// the chosen nodes, as when L reaches N. By default it goes on as the
	// authors' SCN code does: such a node is kept, the output weights become
	// the minimum-norm solution pinv(H) T (MATLAB's tolerance), and later
	// candidates are judged on the residual that solution leaves.
	StopAtRank bool
	// Robust solves the output weights of the model Fit and Select return
	// by iteratively reweighted least squares, each training sample
	// weighted by the kernel density of its residual (the robust SCN of
	// Wang and Li, Information Sciences 2017; see Model.Robust): samples
	// with outlying residuals, such as corrupted images, weigh little. The
	// hidden nodes are chosen as without it.
	Robust bool
	// Layers makes the network deep (deep 2DSCN, after Wang and Li's
	// DeepSCN; see deep.go): after the first layer of MaxNodes nodes (the
	// configuration's learner), one further layer per entry with that many
	// supervised vector nodes, each reading the previous layer's outputs
	// and chosen by the supervisory inequality against the residual of all
	// nodes so far; the output weights read every layer's nodes. Needs the
	// block path. nil: the paper's one-layer network.
	Layers []int
	// Local makes the nodes local (convolutional): filters applied at every
	// position and pooled (see Local, config_local.go). nil: global nodes.
	Local *Local
	// Augment adds mirrored and shifted copies of the training images as
	// extra rows of the output weights' least squares (local nodes only;
	// see internal/localnet's augment.go). nil: none.
	Augment *Augment
	// DirectLink gives the output layer direct links from the input: it
	// reads the hidden outputs and the preprocessed pixels (pooled on
	// large sets) together, as Pao's RVFL does (see direct.go). The nodes
	// are chosen as without them; the output weights are the ridge least
	// squares over both. Not with Layers or Robust.
	DirectLink bool
	// Preset names the preset the configuration came from ("paper",
	// "custom", ...). It is recorded in saved models.
	Preset string
}

// PaperScales returns the scale list Upsilon of the paper's experiments
// (a new slice each call: the caller may change it).
func PaperScales() []float64 { return []float64{1, 5, 15, 30, 50, 100, 150, 200, 250} }

// PaperRatios returns the list R = {1 - 10^-j : j = 2..7} of the paper's
// experiments (a new slice each call).
func PaperRatios() []float64 {
	return []float64{1 - 1e-2, 1 - 1e-3, 1 - 1e-4, 1 - 1e-5, 1 - 1e-6, 1 - 1e-7}
}

// FastRatios returns the r list of the fast and default presets' supervised
// learners: the paper's list R continued to 1 - 10^-10 (a new slice each
// call). Past a few thousand nodes few candidates meet the supervisory
// inequality at the paper's last r = 1 - 10^-7 for every output at once
// (on MNIST, 2DSCN's candidates explain a median 2e-9 of the worst-served
// class's residual at L = 2900): a block then took a whole pass over the
// images for a handful of nodes, and the fit stopped for want of an
// admissible candidate at 2943 nodes after 42 s. Continuing the schedule
// fills each block at the first r where enough candidates pass: 3700 nodes
// in 14 s, the same 97.9% test accuracy (see docs/budget.md).
func FastRatios() []float64 {
	return append(PaperRatios(), 1-1e-8, 1-1e-9, 1-1e-10)
}

// Paper returns the settings of the paper's experiments for a learner:
// T_max = 5, Upsilon = PaperScales(), R = PaperRatios(), sigmoid, no ridge,
// L_max = 1000, tolerance 0, seed 1. Random learners get lambda = 1.
func Paper(k Kind) Config {
	c := Config{
		Kind:       k,
		MaxNodes:   1000,
		Candidates: 5,
		Scales:     PaperScales(),
		Ratios:     PaperRatios(),
		Activation: Sigmoid,
		Seed:       1,
		Preset:     "paper",
	}
	if k.Choice == Random {
		c.Scales = []float64{1}
	}
	return c
}

// ErrConfig is wrapped by every error about impossible hyper-parameters.
var ErrConfig = cfgerr.ErrConfig

// Validate reports the first impossible hyper-parameter, if any
// (internal/fitcfg's Spec.Validate).
func (c Config) Validate() error {
	s := c.spec()
	return s.Validate()
}

// spec is what internal/fitcfg's checks read of c.
func (c Config) spec() fitcfg.Spec {
	s := fitcfg.Spec{
		Kind: c.Kind, MaxNodes: c.MaxNodes, Candidates: c.Candidates, BlockSize: c.BlockSize,
		FieldMin: c.FieldMin, FieldMax: c.FieldMax, Tolerance: c.Tolerance, Ridge: c.Ridge,
		Scales: c.Scales, Ratios: c.Ratios, Activation: node.Activation(c.Activation),
		Redraw: c.Redraw, Pairs: c.Pairs, Standardize: c.Standardize, Differences: c.Differences,
		Float32Gram: c.Float32Gram, BF16Gram: c.BF16Gram, Robust: c.Robust, DirectLink: c.DirectLink,
		Layers: c.Layers, Local: c.Local, Augment: (*augment.Spec)(c.Augment),
	}
	if len(c.Layers) > 0 {
		s.LayerRatios = c.layerConfig().Ratios
	}
	return s
}

// ForImages returns the configuration with the receptive fields of the
// fast preset scaled to images of rows x cols: the preset's sides of 5 to 27
// pixels were chosen on 28 x 28 digits, and a node that sees a fifth to all
// of the image there should see as much of a 112 x 92 face (sides of 16 to
// 89: on ORL, one split, RVFL fast L = 1000 gains one point, 94.5% ->
// 95.5%, and 2DSCN fast L = 500 94.0% -> 95.0%). The sides are scaled by
// min(rows, cols) / 28, at least 2, at most the image: 28 x 28 images keep
// 5 to 27 exactly. Configurations without fields, or whose fields were not
// the fast preset's, are returned as they are.
func (c Config) ForImages(rows, cols int) Config {
	c.FieldMin, c.FieldMax, _ = fitcfg.FieldsForImages(c.FieldMin, c.FieldMax, rows, cols)
	return c
}

// The fast preset's receptive-field sides for 28 x 28 images (fitcfg's).
const (
	fastFieldMin = fitcfg.FastFieldMin
	fastFieldMax = fitcfg.FastFieldMax
)

// Limits that keep a mistyped flag from asking for terabytes (fitcfg's).
const (
	maxNodes      = fitcfg.MaxNodes
	maxCandidates = fitcfg.MaxCandidates
)

// Default returns the settings of scn train's default preset, the nodes
// meant to be used with model selection (Config.Select) on data of any
// size: the fast preset's difference nodes (Differences, Standardize),
// seeing the whole image (no receptive fields, whose sizes would depend on
// the image's), in blocks of 100 on the Gram/Cholesky engine, ridge 1 for
// the supervised residual (selection then chooses the ridge of the final
// weights), L_max = 500 (scn train's default). On ORL faces (5 + 5 images
// per subject) these nodes with selection reach 96-98% where the paper's
// nodes with selection reach 87-93% (see the README); Paper(k) stays the
// paper's protocol exactly.
func Default(k Kind) Config {
	c := Fast(k)
	c.MaxNodes, c.BlockSize = 500, 100
	c.FieldMin, c.FieldMax = 0, 0
	c.Preset = "default"
	return c
}

// Fast returns the settings that gave the best accuracy per second measured
// on MNIST (see the README): blocks of 500 nodes on the Gram/Cholesky
// engine with float32 Gram products, receptive fields with sides of 5 to
// 27 pixels, difference nodes (Differences: each node's weights are the
// difference of two training images of different classes on its field,
// rank-1 for matrix nodes), standardised sigmoid nodes of spread 2 (the
// sigmoid is computed by the project's vector kernel; sigmoid(2t) is
// (1 + tanh t)/2), ridge 1, and L_max = 5000 for the random learners. The
// supervised learners keep the best 500 candidates of each block by the
// supervisory inequality: 2DSCN among 45 x 45 pairs of row and column
// vectors (Pairs), SCN among 1000; their L_max is 3000, past which fewer
// and fewer candidates are admissible (the r list goes on to 1 - 1e-10,
// FastRatios, so that blocks stay full).
// On MNIST the RVFL of this preset is the most accurate per second of the
// four (98.56% at L = 5000 in about 25 s on two cores, against 97.36% for
// a float32 numpy ELM with 7000 nodes in 36 s on the same machine). On
// Fashion-MNIST difference nodes cost 0.2-0.7 points against random ones
// at the same L: set Differences to false there.
func Fast(k Kind) Config {
	c := Config{
		Kind:        k,
		MaxNodes:    5000,
		Candidates:  2,
		Scales:      []float64{2},
		Ratios:      PaperRatios(),
		Activation:  Sigmoid,
		Seed:        1,
		Ridge:       1,
		BlockSize:   500,
		FieldMin:    fastFieldMin,
		FieldMax:    fastFieldMax,
		Standardize: true,
		Differences: true,
		Float32Gram: true,
		Preset:      "fast",
	}
	if k.Choice == Supervised {
		c.MaxNodes = 3000
		c.Ratios = FastRatios()
	}
	switch {
	case k == SCN2D:
		c.Candidates, c.Pairs = 4, true
	case k.Choice == Random:
		c.Candidates = 1
		// bfloat16 Gram products only for random nodes: they cost no
		// accuracy there, where a supervised learner's rounded residual
		// changes which candidates pass (see BF16Gram).
		c.BF16Gram = linalg.BF16Available
	}
	return c
}

// PresetConfig returns the configuration of the named preset ("default",
// "paper" or "fast") for learner k, or an error naming the presets for any
// other name.
func PresetConfig(name string, k Kind) (Config, error) {
	switch name {
	case "default":
		return Default(k), nil
	case "paper":
		return Paper(k), nil
	case "fast":
		return Fast(k), nil
	}
	return Config{}, fmt.Errorf("unknown preset %q (want default, paper or fast)", name)
}

// blockMode reports whether a configuration fits by the block engine
// (fitcfg's Spec.BlockMode).
func (c Config) blockMode() bool {
	s := fitcfg.Spec{BlockSize: c.BlockSize, FieldMin: c.FieldMin, Standardize: c.Standardize, Differences: c.Differences,
		Float32Gram: c.Float32Gram, BF16Gram: c.BF16Gram, Pairs: c.Pairs}
	return s.BlockMode()
}
